#!/bin/sh
# Eager messages against the rendezvous: cm5sched's algorithms with
# CM5_EAGER_MAX=0 and with the default (or EAGER=N), and the round trip
# of CMMD block messages between 2 nodes (bench/cmmd_pingpong), in
# alternating rounds on the same machine; prints every round's comm
# times (ms) and round trips (us) and the medians per (algorithm or
# "pingpong", size) with the ratio eager / rendezvous.  The default path
# of one host is the same-host rings; CM5_SHM=off in the environment
# measures libfabric's shm instead.
#
#   bench/eager_vs_rendezvous.sh [BUILDDIR] [ROUNDS]
#   NODES=16 ALGS=ac,lp WORKLOAD=density:d=8 SIZES=16,256,4096 EAGER=1024
#   PP_SIZES="16 1024 4096" PP_ITERS=2000 (PP_SIZES= skips the ping-pong,
#   ALGS= skips cm5sched)
B=${1:-_build} R=${2:-7}
: "${NODES:=16}" "${ALGS=ac,lp}" "${WORKLOAD:=density:d=8}"
: "${SIZES:=16,256,4096}" "${REPS:=5}"
: "${PP_SIZES=16 1024 4096}" "${PP_ITERS:=2000}"
out=$(mktemp)
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, CM5_SHM=${CM5_SHM:-auto}, CM5_CMA=${CM5_CMA:-auto}, load: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ $i -lt "$R" ]; do
    for mode in off on; do
        if [ $mode = off ]; then e=0; else e=${EAGER:-}; fi
        # shellcheck disable=SC2086 # PP_SIZES: one argument per size
        [ -z "$PP_SIZES" ] ||
            env ${e:+CM5_EAGER_MAX=$e} timeout 600 "$B/tools/cm5run" -n 2 \
                --timeout 590 "$B/bench/cmmd_pingpong" -i "$PP_ITERS" \
                $PP_SIZES 2>&1 |
                awk -v m=$mode -v r=$i '/^pingpong / { print m, "pingpong", $2, $4, r }' \
                    >>"$out"
        [ -z "$ALGS" ] ||
        env ${e:+CM5_EAGER_MAX=$e} timeout 600 "$B/tools/cm5run" -n "$NODES" \
            --timeout 590 "$B/tools/cm5sched" --alg "$ALGS" \
            --workload "$WORKLOAD" --sizes "$SIZES" --reps "$REPS" 2>&1 |
            awk -v m=$mode -v r=$i -v algs="$ALGS" '
                BEGIN { n = split(algs, a, ",") }
                /^ *size \|/ && !hdr { hdr = 1; next }
                hdr && /^ *[0-9]+ \|/ {
                    split($0, f, "|"); s = f[1] + 0
                    for (k = 1; k <= n; k++) {
                        split(f[k + 1], c, " "); print m, a[k], s, c[1], r
                    }
                }
                /best once/ { exit }' >>"$out"
    done
    i=$((i + 1))
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# mode alg size comm_ms, or pingpong size rtt_us (round by round)"
sort -k2,2 -k3,3n -k5,5n -k1,1 "$out" | awk '
    { k = $2 " " $3; v[k, $1] = v[k, $1] " " $4; keys[k] = 1 }
    END { for (k in keys) print k, "off:" v[k, "off"], "| on:" v[k, "on"] }' | sort -k1,1 -k2,2n
# The median of a list of numbers on stdin.
med() {
    sort -g | awk '{ x[NR] = $1 }
        END { print (NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'
}
echo "# alg size median_off median_on on/off median_of_round_ratios"
for k in $(awk '{ print $2 "_" $3 }' "$out" | sort -u); do
    alg=${k%_*} size=${k#*_}
    off=$(awk -v a="$alg" -v s="$size" '$1 == "off" && $2 == a && $3 == s { print $4 }' "$out" | med)
    on=$(awk -v a="$alg" -v s="$size" '$1 == "on" && $2 == a && $3 == s { print $4 }' "$out" | med)
    rr=$(awk -v a="$alg" -v s="$size" '$2 == a && $3 == s { v[$1, $5] = $4; r[$5] = 1 }
        END { for (i in r) if (v["off", i] > 0) print v["on", i] / v["off", i] }' "$out" | med)
    echo "$alg $size $off $on $(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.2f", a / b }') $(awk -v x="$rr" 'BEGIN { printf "%.2f", x }')"
done | sort -k1,1 -k2,2n
rm -f "$out"
