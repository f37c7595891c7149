#!/bin/sh
# What DRS_N+ is for (ranka1995 section 5; issue 10, item 4): on the same
# matrices it asks fewer times and is denied fewer times than DRS_N.  Both
# on 16 nodes over shm, 3 runs each after a warm-up, on the hot spot
# (every node sends 64 KiB to node 0) and on ranka1995's best case for
# two-stage (k = 16, l = 1/16: one heavy message per node); the CSV's
# inquiries and denials (summed over nodes) are summed over the runs and
# printed.  Measured on 2 cores under load: hot spot 788 / 1290 inquiries
# and 743 / 1245 denials for DRS_N against 146 / 154 and 101 / 109 for
# DRS_N+; k = 16: 1536 / 1521 and 816 / 801 against 832 / 833 and
# 112 / 113.  Every byte is verified by cm5sched.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/algos/drsplus.sh

: "${abs_top_builddir:=$(pwd)}"
CM5RUN=$abs_top_builddir/tools/cm5run
SCHED=$abs_top_builddir/tools/cm5sched

unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER

. "$(dirname "$0")/../tap.sh"
tap_begin cm5drsplus 5

what="cm5sched --alg drsn,drsn+ on 16 nodes, shm"
t0=$(now_ms)
timeout -k 2 130 "$CM5RUN" -n 16 --provider shm --timeout 120 "$SCHED" \
    --alg drsn,drsn+ --workload hotspot:m=65536 \
    --workload 'kl:k=16,l=1/16,t=65536' --sizes 1 --reps 3 --quiet \
    --csv run.csv >out 2>err
rc=$?
ms=$(($(now_ms) - t0))
check "$what: both algorithms on both workloads, every byte right ($ms ms)" \
    '[ "$rc" -eq 0 ] && [ "$(sed 1d run.csv | wc -l)" -eq 12 ]'

# sums WORKLOAD ALG: "inquiries denials" summed over the runs.  Workload
# names are quoted and may hold commas: strip them first.
sums() {
    sed 1d run.csv | grep "^\"$1\"" | sed 's/^"[^"]*"//' |
        awk -F, -v a="$2" '$6 == a { q += $22; d += $23 }
                           END { printf "%d %d\n", q, d }'
}
for w in hotspot:m=65536 'kl:k=16,l=1/16,t=65536'; do
    set -- $(sums "$w" drsn) $(sums "$w" drsn+)
    q0=$1 d0=$2 q1=$3 d1=$4
    check "$w: DRS_N+ asks fewer times ($q1 inquiries against DRS_N's $q0)" \
        '[ "$rc" -eq 0 ] && [ "$q1" -lt "$q0" ]'
    check "$w: DRS_N+ is denied fewer times ($d1 denials against DRS_N's $d0)" \
        '[ "$rc" -eq 0 ] && [ "$d1" -lt "$d0" ]'
done
