#!/bin/sh
# The same-host fast path against libfabric's shm provider: examples/
# am_pingpong (16-byte round trip, median; one-way 16-byte message rate)
# with CM5_SHM=off and CM5_SHM=auto in alternating rounds, so that both
# see the same load; prints each round and the medians of each mode and
# their ratio (doc/bench.md, "Same-host fast path").
#
#   bench/shmpath.sh [BUILD [ROUNDS [ITERS]]]

build=${1:-.}
rounds=${2:-7}
iters=${3:-20000}
out=$(mktemp -d "${TMPDIR:-/tmp}/cm5-shmpath.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ $r -le "$rounds" ]; do
    for mode in off auto; do
        CM5_SHM=$mode "$build/tools/cm5run" -n 2 --timeout 120 \
            "$build/examples/am_pingpong" -i "$iters" >"$out/run" 2>&1 ||
            { cat "$out/run"; exit 1; }
        rtt=$(sed -n 's/^rtt_us //p' "$out/run")
        rate=$(sed -n 's/.*s: \([0-9]*\) messages\/s.*/\1/p' "$out/run")
        echo "round $r CM5_SHM=$mode rtt_us $rtt rate $rate"
        echo "$rtt" >>"$out/rtt.$mode"
        echo "$rate" >>"$out/rate.$mode"
    done
    r=$((r + 1))
done
med() { sort -g "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for mode in off auto; do
    echo "median CM5_SHM=$mode rtt_us $(med "$out/rtt.$mode") rate $(med "$out/rate.$mode") (rtt $(sort -g "$out/rtt.$mode" | head -n 1)..$(sort -g "$out/rtt.$mode" | tail -n 1))"
done
echo "ratio off/auto rtt $(echo "$(med "$out/rtt.off") $(med "$out/rtt.auto")" | awk '{printf "%.2f", $1 / $2}') rate auto/off $(echo "$(med "$out/rate.auto") $(med "$out/rate.off")" | awk '{printf "%.2f", $1 / $2}')"
echo "# load after $(cut -d' ' -f1-3 /proc/loadavg)"
