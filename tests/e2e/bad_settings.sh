#!/usr/bin/env bash
# A bad TUTTI_* value is a clear error naming the variable, not a silent default.
set -euo pipefail
lib=$1 info=$2
out=$(TUTTI_PLACEMENT=fastest "$info" 2>&1) && { echo "accepted a bad value"; exit 1; }
grep -q "TUTTI_PLACEMENT='fastest' is not valid" <<<"$out" || { echo "unclear: $out"; exit 1; }
out=$(TUTTI_DEVICES=tpu "$info" 2>&1) && { echo "accepted a bad device"; exit 1; }
grep -q "TUTTI_DEVICES: 'tpu' matches no device" <<<"$out" || { echo "unclear: $out"; exit 1; }
# Captured first: grep -q leaves at the first match, and pipefail would count the
# writer's SIGPIPE as a failure.
envout=$("$info" --env)
grep -q "TUTTI_PLACEMENT" <<<"$envout" || { echo "--env lacks a variable"; exit 1; }
out=$(TUTTI_DEVICES=pthread "$info")
grep -q "Backing devices:" <<<"$out" && ! grep -q "basic" <<<"$(grep -A3 'Backing' <<<"$out")" \
  || { echo "selection ignored: $out"; exit 1; }
echo PASS
