"""Discovers the apps, runs them natively and under Tutti, summarises the samples."""
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from . import modes as modes_mod

# Executables in the apps folder that are not workloads.
NOT_APPS = {"mk_devinfo"}

RESULT_RE = re.compile(r'^RESULT\s+(.*)$', re.M)
KV_RE = re.compile(r'(\w+)=("([^"]*)"|\S+)')
TUTTI_LINE_RE = re.compile(r'^TUTTI .*$', re.M)


def parse_kv(text):
    out = {}
    for m in KV_RE.finditer(text):
        out[m.group(1)] = m.group(3) if m.group(3) is not None else m.group(2)
    return out


def parse_result(stdout):
    """The last RESULT line as a dict with kernel_ms/wall_ms as floats, or None."""
    lines = RESULT_RE.findall(stdout)
    if not lines:
        return None
    r = parse_kv(lines[-1])
    for k in ("kernel_ms", "wall_ms"):
        try:
            r[k] = float(r[k])
        except (KeyError, ValueError):
            r[k] = None
    r["line"] = "RESULT " + lines[-1]
    return r


def parse_tutti_lines(lines):
    """Each 'TUTTI ...' stats line as {key: value...} (numbers converted)."""
    out = []
    for line in lines:
        d = {}
        for k, v in parse_kv(line).items():
            try:
                d[k] = int(v)
            except ValueError:
                try:
                    d[k] = float(v)
                except ValueError:
                    d[k] = v
        out.append(d)
    return out


# ---------------------------------------------------------- discovery ---

def apps_dir_candidates(build):
    return [os.path.join(build, "tools", "bench", "apps"), os.path.join(build, "apps"), build]


def _is_exe(path):
    return os.path.isfile(path) and os.access(path, os.X_OK) and not os.path.splitext(path)[1] in (
        ".so", ".sh", ".py", ".txt", ".json", ".cmake")


def discover(build):
    """(apps_dir, {name: path}, devinfo_path): app binaries answer --help with the
    common usage line of app.h."""
    for d in apps_dir_candidates(build):
        if not os.path.isdir(d):
            continue
        apps, devinfo = {}, None
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if not _is_exe(path):
                continue
            if name in NOT_APPS:
                if name == "mk_devinfo":
                    devinfo = path
                continue
            try:
                p = subprocess.run([path, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   timeout=30, universal_newlines=True, errors="replace")
            except (OSError, subprocess.TimeoutExpired):
                continue
            if p.returncode == 0 and "--size tiny|small|thesis" in p.stdout:
                apps[name] = path
        if apps:
            return d, apps, devinfo
    return None, {}, None


def find_tutti(build, explicit=None):
    if explicit:
        return explicit if os.path.exists(explicit) else None
    for cand in (os.path.join(build, "lib", "libtutti.so"), os.path.join(build, "interpose", "libtutti.so"),
                 os.path.join(build, "libtutti.so")):
        if os.path.exists(cand):
            return cand
    for root, dirs, files in os.walk(build):
        dirs[:] = [d for d in dirs if d not in ("CMakeFiles", "Testing", ".git")]
        if "libtutti.so" in files:
            return os.path.join(root, "libtutti.so")
    return None


# ------------------------------------------------------------ configs ---

def configs(devices, modes, tutti_lib, profile_db=None):
    """Native configuration per real device, then one per Tutti mode (each Tutti run on a
    fresh copy of profile_db when given, see _fresh_db)."""
    out = []
    for d in devices:
        out.append({"config": "native:%d" % d["index"], "kind": "native", "device_index": d["index"],
                    "device": d.get("name"), "platform": d.get("platform"), "env": {}})
    for m in modes:
        env = dict(modes_mod.TUTTI_ENV_ALL)
        env.update(m.env)
        out.append({"config": m.name, "kind": "tutti", "mode": m.name, "device_index": None,
                    "device": "tutti", "env": env, "tutti_lib": tutti_lib})
        if profile_db:
            out[-1]["profile_db"] = os.path.abspath(profile_db)
    return out


def _env_for(cfg):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("TUTTI_"):
            del env[k]
    env.pop("LD_PRELOAD", None)
    if cfg["kind"] == "tutti":
        env["LD_PRELOAD"] = cfg["tutti_lib"]
    env.update(cfg["env"])
    return env


def _fresh_db(template):
    """A scratch folder holding a copy of the profile database `template` for one run.
    SKMD stores every run's kernel times in its database (online calibration), so runs
    sharing one file would decide on what earlier runs (warm-up, other modes) left there;
    a copy per run decides on the profiled samples alone, as the thesis' runs did."""
    d = tempfile.mkdtemp(prefix="tutti-db-", dir=os.path.dirname(template))
    for suffix in ("", "-wal"):  # a WAL left behind holds committed rows too
        if os.path.exists(template + suffix):
            shutil.copyfile(template + suffix, os.path.join(d, "profiles.sqlite" + suffix))
    return d


def _kill_group(p):
    """Kills the app and anything it started (its own session, see run_once)."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass


def run_once(app_path, cfg, size, timeout_s, extra_args=()):
    cmd = [app_path, "--size", size, "--quiet"] + list(extra_args)
    if cfg["kind"] == "native":
        cmd += ["--device", str(cfg["device_index"])]
    env = _env_for(cfg)
    scratch = _fresh_db(cfg["profile_db"]) if cfg.get("profile_db") else None
    if scratch:
        env["TUTTI_PROFILE_DB"] = os.path.join(scratch, "profiles.sqlite")
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                             universal_newlines=True, errors="replace", start_new_session=True)
        timed_out = False
        try:
            out, err = p.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(p)
            out, err = p.communicate()
        except BaseException:  # interrupted (Ctrl-C, SIGTERM): leave no app behind
            _kill_group(p)
            p.wait()
            raise
    finally:
        if scratch:
            shutil.rmtree(scratch, True)
    elapsed = time.monotonic() - t0
    res = parse_result(out)
    tutti_lines = TUTTI_LINE_RE.findall(err) + TUTTI_LINE_RE.findall(out)
    status = "TIMEOUT" if timed_out else (res or {}).get("status", "NORESULT")
    if status == "PASS" and p.returncode != 0:
        status = "EXIT%d" % p.returncode
    sample = {
        "status": status,
        "rc": p.returncode,
        "kernel_ms": (res or {}).get("kernel_ms"),
        "wall_ms": (res or {}).get("wall_ms"),
        "elapsed_s": round(elapsed, 4),
        "result_line": (res or {}).get("line"),
        "result_device": (res or {}).get("device"),
        "tutti_lines": tutti_lines,
        "tutti_stats": parse_tutti_lines(tutti_lines),
    }
    if status != "PASS":
        sample["stdout_tail"] = out[-4000:]
        sample["stderr_tail"] = err[-4000:]
    return cmd, sample


def summarize(values):
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals),
            "stdev": statistics.stdev(vals) if len(vals) > 1 else 0.0, "n": len(vals)}


def run_config(app_name, app_path, cfg, profile, size, repeat, log=sys.stderr):
    return run_configs(app_name, app_path, [cfg], profile, size, repeat, False, log)[0]


def run_configs(app_name, app_path, cfgs, profile, size, repeat, interleave, log=sys.stderr):
    """One entry per configuration.  interleave: run i of every configuration before run
    i+1 of any, so slow drifts of the machine (seen as 20-40 % between minutes on the GPU
    VM) hit all configurations alike instead of whichever ran during them."""
    entries = []
    for cfg in cfgs:
        entry = {"app": app_name, "size": size, "interleaved": bool(interleave and len(cfgs) > 1)}
        entry.update({k: v for k, v in cfg.items() if k != "tutti_lib"})
        if profile.warmup:
            _, w = run_once(app_path, cfg, "tiny", profile.timeout_s)
            entry["warmup_status"] = w["status"]
        entry["samples"] = []
        entries.append(entry)
    order = ([(i, c) for i in range(repeat) for c in range(len(cfgs))] if interleave
             else [(i, c) for c in range(len(cfgs)) for i in range(repeat)])
    for i, c in order:
        cmd, s = run_once(app_path, cfgs[c], size, profile.timeout_s)
        entries[c]["samples"].append(s)
        entries[c]["cmd"] = cmd
        log.write("  %-24s %-14s #%d %-8s wall %s ms  kernel %s ms\n" % (
            app_name, cfgs[c]["config"], i + 1, s["status"], s["wall_ms"], s["kernel_ms"]))
        log.flush()
    for entry in entries:
        samples = entry["samples"]
        passed = [s for s in samples if s["status"] == "PASS"]
        entry["passed"] = len(passed)
        entry["failed"] = len(samples) - len(passed)
        entry["wall_ms"] = summarize([s["wall_ms"] for s in passed])
        entry["kernel_ms"] = summarize([s["kernel_ms"] for s in passed])
    return entries
