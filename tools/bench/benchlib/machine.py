"""Machine description and OpenCL device enumeration."""
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _read(path):
    try:
        with open(path, "r", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _run(cmd, timeout=60, env=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           env=env, universal_newlines=True, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, "", str(e)


def cpu_info():
    text = _read("/proc/cpuinfo")
    model, cores, sockets = None, set(), set()
    phys = core = None
    for line in text.splitlines():
        if ":" not in line:
            if phys is not None and core is not None:
                cores.add((phys, core))
            phys = core = None
            continue
        k, v = [s.strip() for s in line.split(":", 1)]
        if k == "model name" and model is None:
            model = v
        elif k == "physical id":
            phys = v
            sockets.add(v)
        elif k == "core id":
            core = v
    if phys is not None and core is not None:
        cores.add((phys, core))
    flags = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    flag_set = set(flags.group(1).split()) if flags else set()
    return {
        "model": model or platform.processor() or "unknown",
        "logical_cpus": os.cpu_count(),
        "physical_cores": len(cores) or None,
        "sockets": len(sockets) or None,
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "avx512": "avx512f" in flag_set,
    }


def mem_info():
    m = re.search(r"^MemTotal:\s*(\d+)\s*kB", _read("/proc/meminfo"), re.M)
    return {"total_bytes": int(m.group(1)) * 1024 if m else None}


def os_info():
    rel = _read("/etc/os-release")
    m = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', rel, re.M)
    libc = platform.libc_ver()
    return {"pretty_name": m.group(1) if m else platform.platform(), "kernel": platform.release(),
            "libc": "%s %s" % libc if libc[0] else None, "python": sys.version.split()[0]}


def nvidia_smi():
    if not shutil.which("nvidia-smi"):
        return None
    rc, out, _ = _run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                       "--format=csv,noheader"], timeout=30)
    if rc != 0:
        return None
    gpus = []
    for line in out.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 3:
            gpus.append({"name": parts[0], "driver_version": parts[1], "memory": parts[2]})
    return gpus


def tutti_version(repo_dir):
    """Tutti commit: from git when run from a checkout, else a VERSION file (bundles)."""
    version_file = os.path.join(os.path.dirname(HERE), "VERSION")
    if os.path.exists(version_file):
        info = {}
        for line in _read(version_file).splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                v = v.strip()
                info[k.strip()] = {"true": True, "false": False}.get(v, v)
        if info:
            info["source"] = "VERSION file"
            return info
    rc, out, _ = _run(["git", "-C", repo_dir, "rev-parse", "HEAD"])
    if rc != 0:
        return {"commit": None, "source": "unknown"}
    rc2, st, _ = _run(["git", "-C", repo_dir, "status", "--porcelain", "--untracked-files=no"])
    rc3, subj, _ = _run(["git", "-C", repo_dir, "log", "-1", "--format=%cI %s"])
    return {"commit": out.strip(), "dirty": bool(st.strip()) if rc2 == 0 else None,
            "last_commit": subj.strip() if rc3 == 0 else None, "source": "git"}


def file_digest(path):
    if not path or not os.path.exists(path):
        return None
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return {"path": os.path.abspath(path), "bytes": os.path.getsize(path), "sha256": h.hexdigest()}


# ------------------------------------------------------------ devices ---

def _clean_env():
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


def devices_from_devinfo(devinfo):
    rc, out, err = _run([devinfo], env=_clean_env())
    if rc != 0:
        return None
    try:
        return json.loads(out)["devices"]
    except (ValueError, KeyError):
        return None


_LIST_RE = re.compile(r"^(\d+): (.*) \[(.*)\]( GPU)?$")


def devices_from_app_list(app):
    """Parses an app's --list output: 'N: name [platform] GPU'."""
    rc, out, _ = _run([app, "--list"], env=_clean_env())
    if rc != 0:
        return None
    devs = []
    for line in out.splitlines():
        m = _LIST_RE.match(line.strip())
        if m:
            devs.append({"index": int(m.group(1)), "name": m.group(2), "platform": m.group(3),
                         "type": "gpu" if m.group(4) else "other"})
    return devs or None


def devices_from_clinfo():
    if not shutil.which("clinfo"):
        return None
    rc, out, _ = _run(["clinfo", "-l"], env=_clean_env())
    if rc != 0:
        return None
    devs, plat = [], None
    for line in out.splitlines():
        m = re.match(r"^Platform #\d+: (.*)$", line.strip())
        if m:
            plat = m.group(1)
            continue
        m = re.search(r"Device #\d+: (.*)$", line)
        if m:
            devs.append({"index": len(devs), "name": m.group(1).strip(), "platform": plat, "type": "unknown"})
    return devs or None


def enumerate_devices(devinfo=None, any_app=None):
    """Real OpenCL devices, indexed as the apps' --device N counts them."""
    for source, fn, arg in (("mk_devinfo", devices_from_devinfo, devinfo),
                            ("app --list", devices_from_app_list, any_app)):
        if arg:
            devs = fn(arg)
            if devs is not None:
                return devs, source
    devs = devices_from_clinfo()
    if devs is not None:
        return devs, "clinfo -l"
    return [], "none"


def describe(repo_dir, devices, device_source, tutti_lib):
    env_keys = ("POCL_DEVICES", "OCL_ICD_VENDORS", "OCL_ICD_FILENAMES", "CUDA_VISIBLE_DEVICES",
                "POCL_MAX_PTHREAD_COUNT", "POCL_KERNEL_CACHE")
    return {
        "cpu": cpu_info(),
        "memory": mem_info(),
        "os": os_info(),
        "opencl_devices": devices,
        "opencl_device_source": device_source,
        "nvidia_smi": nvidia_smi(),
        "env": {k: os.environ[k] for k in env_keys if k in os.environ},
        "tutti": dict(tutti_version(repo_dir), library=file_digest(tutti_lib)),
    }
