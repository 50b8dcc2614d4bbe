# shellcheck shell=bash
# profile_lib.sh - sourced by accuracy.sh and fig310.sh: where the apps and
# libtutti.so are, and profiling an app into a fresh database (TUTTI_PROFILE=1).
# In the bundle this file and profile_params.tsv are in bench/, in the tree next to the scripts.

# The apps' own settings only: no split launches, no other database, nothing inherited.
clean=(-u TUTTI_MODE -u TUTTI_PARTITION -u TUTTI_PLACEMENT -u TUTTI_PROFILE -u TUTTI_PROFILE_DB
       -u TUTTI_VALIDATE_OUT -u TUTTI_VALIDATE_RUNS -u TUTTI_VALIDATE_SEED)

# bench_locate SCRIPT_DIR: sets lib, appsdir (kept when set), pydir (bench python and
# profile_params.tsv) and tool (tutti-profile or ""): from the bench bundle
# (tutti-bench/{apps,lib,bin,bench}) when the script is in one and no $build was given,
# else from a build tree ($build, $TUTTI_BUILD, <repo>/build).
bench_locate() {
  local here=$1
  tool=""
  if [ -z "${build:-}" ] && [ -d "$here/apps" ] && [ -f "$here/lib/libtutti.so" ]; then
    [ -f "$here/env.sh" ] && . "$here/env.sh"  # NVIDIA + PoCL for the ICD loader, lib/ on the path
    : "${lib:=$here/lib/libtutti.so}" "${appsdir:=$here/apps}"
    pydir=$here/bench
    [ -x "$here/bin/tutti-profile" ] && tool=$here/bin/tutti-profile
  else
    build=${build:-${TUTTI_BUILD:-$(cd "$here/../.." && pwd)/build}}
    : "${lib:=$build/interpose/libtutti.so}" "${appsdir:=$build/tools/bench/apps}"
    pydir=$here
    [ -x "$build/tools/tutti-profile/tutti-profile" ] && tool=$build/tools/tutti-profile/tutti-profile
  fi
  [ -f "$lib" ] || { echo "$(basename "$0"): no libtutti.so at $lib" >&2; exit 2; }
  [ -d "$appsdir" ] || { echo "$(basename "$0"): no apps folder at $appsdir" >&2; exit 2; }
  lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
  appsdir=$(cd "$appsdir" && pwd)
}

# table_apps: the apps with a row in profile_params.tsv, in its order.
table_apps() {
  awk -F'\t' '!/^#/ && NF >= 3 && $1 != "app" {print $1}' "$pydir/profile_params.tsv"
}

# profile_runs APP SIZES: one line "TAG<tab>ARGS" per profiling run.  SIZES "table": the
# two argument lists of the app's row in profile_params.tsv (or $params_file in its folder) (tags p1, p2; tiny,small
# without a row), else a comma list of --size presets (tag = the preset).
profile_runs() {
  local app=$1 sizes=$2 s x
  if [ "$sizes" = table ]; then
    awk -F'\t' -v a="$app" '!/^#/ && $1 == a && NF >= 3 {
      printf "p1\t--size thesis %s\np2\t--size thesis %s\n", $2, $3; found = 1; exit }
      END { if (!found) printf "tiny\t--size tiny\nsmall\t--size small\n" }' \
      "$pydir/${params_file:-profile_params.tsv}"
    return
  fi
  IFS=, read -ra s <<< "$sizes"
  for x in "${s[@]}"; do printf '%s\t--size %s\n' "$x" "$x"; done
}

# profile_app APP DIR SIZES TIMEOUT: a fresh DIR/profiles.sqlite from TUTTI_PROFILE=1 runs
# (logs DIR/profile-TAG.log, their arguments in DIR/profiled.tsv).  Status 1 when a run failed.
profile_app() {
  local app=$1 d=$2 sizes=$3 t=$4 tag args plan r  # callers have globals runs, size(s)
  rm -f "$d"/profiles.sqlite* "$d/profiled.tsv"
  mapfile -t plan < <(profile_runs "$app" "$sizes")
  for r in "${plan[@]}"; do
    IFS=$'\t' read -r tag args <<< "$r"
    echo "== $app: profiling ($tag) $args"
    printf '%s\t%s\n' "$tag" "$args" >> "$d/profiled.tsv"
    # shellcheck disable=SC2086  # args is a word list
    if ! timeout "$t" env "${clean[@]}" LD_PRELOAD="$lib" TUTTI_PROFILE=1 \
        TUTTI_PROFILE_DB="$d/profiles.sqlite" "$appsdir/$app" $args \
        > "$d/profile-$tag.log" 2>&1 < /dev/null; then
      echo "$(basename "$0"): $app: profiling run $tag ($args) failed (see $d/profile-$tag.log)" >&2
      return 1
    fi
  done
  [ -n "$tool" ] && "$tool" --db "$d/profiles.sqlite" list > "$d/models.txt" 2>&1
  return 0
}
