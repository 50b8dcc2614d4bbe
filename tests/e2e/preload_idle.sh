#!/usr/bin/env bash
# Loading Tutti into a process that never calls OpenCL changes nothing: no output,
# no threads, same exit status (PoCL's linker children inherit LD_PRELOAD).
set -euo pipefail
lib=$1
out=$(TUTTI_LOG=debug TUTTI_STATS=1 LD_PRELOAD=$lib sh -c 'echo hello; exit 3' 2>&1) && rc=0 || rc=$?
[ "$out" = "hello" ] || { echo "unexpected output: $out"; exit 1; }
[ "$rc" = 3 ] || { echo "exit status changed: $rc"; exit 1; }
threads=$(LD_PRELOAD=$lib TUTTI_LOG=debug sh -c 'ls /proc/$$/task | wc -l')
[ "$threads" = 1 ] || { echo "threads in an idle process: $threads"; exit 1; }
# Bad settings do not matter to a process that never asks for OpenCL.
out=$(TUTTI_DEVICE_TYPE=bogus LD_PRELOAD=$lib true 2>&1)
[ -z "$out" ] || { echo "output from idle process with bad settings: $out"; exit 1; }
echo PASS
