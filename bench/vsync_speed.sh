#!/bin/sh
# What synchronised virtual time costs (doc/bench.md, "Virtual time's
# synchronisation"): one 32-node row of wang1993 Table 4 (cm5sched
# --alg ac,lp,rsn,drsn, density 16, 512 B and 4 KiB unless SIZES says
# otherwise, e.g. the paper's 16,128,...,131072) on the real clock,
# in virtual time unsynchronised and synchronised (CM5_MODEL_SYNC=on),
# in alternating rounds so that all three see the same load; prints each
# round's wall times, the medians and the ratio synchronised / real.
#
#   bench/vsync_speed.sh [BUILD [ROUNDS [NODES [MODEL [SIZES [DENSITY]]]]]]
#
# MODEL: the virtual-time model (cm5run --model; default cm5), e.g.
# cm5:bc=1 for receipt beside the clock.

build=${1:-.}
rounds=${2:-5}
nodes=${3:-32}
model=${4:-cm5}
sizes=${5:-512,4096}
density=${6:-16}
out=$(mktemp -d "${TMPDIR:-/tmp}/cm5-vsync.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

now_ms() { date +%s%3N; }
row() {
    t0=$(now_ms)
    "$build/tools/cm5run" -n "$nodes" --timeout 3600 "$@" \
        "$build/tools/cm5sched" --alg ac,lp,rsn,drsn \
        --workload "density:d=$density" --sizes "$sizes" --reps 1 \
        --warmup 0 \
        >"$out/run" 2>&1 || {
        cat "$out/run"
        exit 1
    }
    echo $(($(now_ms) - t0))
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $nodes nodes, model $model, d = $density, sizes $sizes, load $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ $r -le "$rounds" ]; do
    real=$(row)
    off=$(CM5_MODEL_CPU_SCALE=0 CM5_MODEL_SYNC=off row --model "$model")
    on=$(CM5_MODEL_CPU_SCALE=0 CM5_MODEL_SYNC=on row --model "$model")
    echo "round $r real_ms $real virtual_ms $off synchronised_ms $on"
    echo "$real" >>"$out/real"
    echo "$off" >>"$out/off"
    echo "$on" >>"$out/on"
    r=$((r + 1))
done
med() { sort -g "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "median real_ms $(med "$out/real") virtual_ms $(med "$out/off") synchronised_ms $(med "$out/on")"
echo "ratio synchronised/real $(echo "$(med "$out/on") $(med "$out/real")" | awk '{printf "%.2f", $1 / $2}')"
echo "# load after $(cut -d' ' -f1-3 /proc/loadavg)"
