# vast_devices.sh - sourced by vast_fig.sh and vast_big.sh (bash), after env.sh: the
# devices their runs use, by name pattern.
#   VAST_FIG_GPU / VAST_FIG_CPU: the patterns (default NVIDIA, and PoCL's CPU device;
#   a PoCL-only machine can stand in a 'basic' device for the GPU to check the scripts).
# Sets gpu and cpu (native --device indices), tgpu (Tutti's backing-device index of the
# first GPU), tgpus (every matching GPU's, space-separated) and tgpu_split (weights in
# backing-device order for TUTTI_PARTITION=fixed: 1 per matching GPU, 0 elsewhere); needs
# $here (the bundle) and $lib (libtutti.so).
gmatch=${VAST_FIG_GPU:-nvidia} cmatch=${VAST_FIG_CPU:-'pthread\|cpu-'}
_list=$("$here/apps/VectorAdd" --list 2>&1)
gpu=$(grep -i "$gmatch" <<<"$_list" | head -1 | grep -o '^ *[0-9]*' | tr -d ' ')
cpu=$(grep -i "$cmatch" <<<"$_list" | head -1 | grep -o '^ *[0-9]*' | tr -d ' ')
_backing=$(TUTTI_LOG=info LD_PRELOAD=$lib timeout 60 "$here/apps/VectorAdd" --size tiny 2>&1 | grep "backing device")
tgpus=$(grep -i "$gmatch" <<<"$_backing" | sed 's/.*backing device \([0-9]*\):.*/\1/' | tr '\n' ' ')
tgpu=${tgpus%% *}
tgpu_split=$(sed 's/.*backing device \([0-9]*\):.*/\1/' <<<"$_backing" |
             while read -r i; do [[ " $tgpus" == *" $i "* ]] && echo 1 || echo 0; done | paste -sd,)
