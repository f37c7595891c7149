#!/bin/sh
# Waits that never give the CPU away (issue 10, item 1).  Every algorithm
# on 32 nodes pinned to ONE CPU (taskset), the hot-spot matrix (every
# node sends 64 units of 16 B to node 0), 5 runs each after a warm-up:
# the median run of every algorithm must stay under BOUND_MS.  A wait
# loop that only probes (CMMD_msg_pending, CMMD_sync_done, CMMD_msg_done)
# without CMAML_poll never yields: each spinning node burns its whole
# time slice before the node it waits for may run, in every run.
#
# Measured on 2 cores shared with other work.  On main, whose A1 and A4
# waits only probed, this test's medians of 5: a1 928 ms, a4 1128 ms,
# a4-n1 760 ms, a4-n2 847 ms, all failing (a3, 16 nodes, 146 ms: not
# caught, but A3 runs A4's receive loop, which the a4 cases catch).  With the polls: slowest of 3
# at most 71 ms (two-stage) on a quiet machine; during a full make check,
# single runs of 257 ms (rsn) and 359 ms (two-stage), hence the median;
# medians of 5 up to 144 ms (two-stage) and 114 ms (a2) there.  The
# bound, 400 ms, is ~2.8x above the latter and ~1.9x below the spins.
# A3 (square P) runs on 16 nodes.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/algos/nospin.sh

: "${abs_top_builddir:=$(pwd)}"
CM5RUN=$abs_top_builddir/tools/cm5run
SCHED=$abs_top_builddir/tools/cm5sched
BOUND_MS=${NOSPIN_BOUND_MS:-400}
ALGS="ac,lp,rsn,rsnh,drsn,drsn+,two-stage,a1,a2,a4"

unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER

. "$(dirname "$0")/../tap.sh"
tap_begin cm5nospin ""

# Jobs: nodes, algorithms, options.
JOBS="32 $ALGS -
32 a4 a4_mode=n1
32 a4 a4_mode=n2
16 a3 -"
NALG=$(( $(echo "$ALGS" | tr ',' '\n' | wc -l) + 3 ))
echo "1..$((4 + NALG))"

if ! command -v taskset >/dev/null 2>&1; then
    for i in $(seq $((4 + NALG))); do skip "pinned job $i" "no taskset"; done
    exit 0
fi
# The first CPU this script may run on.
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')

# The median run (total_s, ms) of each algorithm of the CSV: "alg ms".
median() {
    sed 1d "$1" | awk -F, '{ printf "%s %.1f\n", $6, $12 * 1000 }' |
        sort -k1,1 -k2,2n | awk '
        { v[$1, ++n[$1]] = $2 }
        END { for (a in n) printf "%s %s\n", a, v[a, int((n[a] + 1) / 2)] }'
}

echo "$JOBS" | while read -r nodes algs opt; do
    set -- --alg "$algs" --workload hotspot:m=64 --sizes 16 --reps 5 \
        --stat median --csv run.csv --quiet
    [ "$opt" = - ] || set -- "$@" -o "$opt"
    what="taskset -c $cpu cm5run -n $nodes cm5sched $*"
    rm -f run.csv
    t0=$(now_ms)
    timeout -k 2 190 taskset -c "$cpu" "$CM5RUN" -n "$nodes" \
        $(provopt shm) --timeout 180 "$SCHED" "$@" >out 2>err
    rc=$?
    ms=$(($(now_ms) - t0))
    check "$nodes nodes on CPU $cpu: $algs ${opt#-} verified (${ms} ms)" \
        '[ "$rc" -eq 0 ] && [ -s run.csv ]'
    for a in $(echo "$algs" | tr ',' ' '); do
        t=$(median run.csv | awk -v a="$a" '$1 == a { print $2 }')
        check "$a ${opt#-}: median of 5 runs ${t:-?} ms <= $BOUND_MS ms" \
            '[ -n "$t" ] && awk -v t="$t" -v b="$BOUND_MS" "BEGIN { exit !(t <= b) }"'
    done
done
