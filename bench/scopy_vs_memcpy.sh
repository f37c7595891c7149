#!/bin/sh
# CMAML_scopy against memcpy (bench/scopy_vs_memcpy): node 1 -> node 0 on
# one host with single copy (CM5_CMA=auto) and through libfabric's shm
# (CM5_CMA=off), in alternating rounds on the same machine; prints every
# round and, per size, the medians of memcpy, scopy with each mode, and
# the median of each round's scopy / memcpy ratio (doc/bench.md,
# "Single-copy bulk").
#
#   bench/scopy_vs_memcpy.sh [BUILDDIR [ROUNDS [ITERS]]]
#   SIZES="65536 1048576 16777216"
B=${1:-_build} R=${2:-7} I=${3:-50}
: "${SIZES:=65536 1048576 16777216}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ "$r" -le "$R" ]; do
    for mode in auto off; do
        # shellcheck disable=SC2086 # SIZES: one argument per size
        CM5_CMA=$mode timeout 600 "$B/tools/cm5run" -n 2 --timeout 590 \
            "$B/bench/scopy_vs_memcpy" -i "$I" $SIZES 2>&1 |
            awk -v m=$mode -v r=$r '/^size / { print r, m, $2, $4, $6, $8 }' \
                >>"$out"
    done
    r=$((r + 1))
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# round CM5_CMA size memcpy_MBps scopy_MBps scopy/memcpy"
sort -k3,3n -k1,1n -k2,2 "$out"
med() {
    sort -g | awk '{ x[NR] = $1 }
        END { print (NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'
}
echo "# size median_memcpy median_scopy_cma median_scopy_off median_ratio_cma median_ratio_off"
for s in $SIZES; do
    mc=$(awk -v s="$s" '$3 == s { print $4 }' "$out" | med)
    ca=$(awk -v s="$s" '$3 == s && $2 == "auto" { print $5 }' "$out" | med)
    co=$(awk -v s="$s" '$3 == s && $2 == "off" { print $5 }' "$out" | med)
    ra=$(awk -v s="$s" '$3 == s && $2 == "auto" { print $6 }' "$out" | med)
    ro=$(awk -v s="$s" '$3 == s && $2 == "off" { print $6 }' "$out" | med)
    echo "$s $mc $ca $co $ra $ro"
done
