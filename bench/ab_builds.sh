#!/bin/sh
# A/B of two build trees in the same run: examples/am_pingpong's round
# trip (median) and one-way rate, the two builds alternating REPS times on
# each path, so that the machine's load falls on both alike.  Used for
# changes that must cost nothing (doc/bench.md, "The house before the
# engine").
#
#   sh bench/ab_builds.sh [-r REPS] [-p "rings shm tcp"] BUILD_A BUILD_B
#
# Prints one line per path: the medians of A and B and B/A.
set -eu

reps=7
paths="rings shm tcp"
while getopts r:p:h opt; do
    case $opt in
        r) reps=$OPTARG ;;
        p) paths=$OPTARG ;;
        *) sed -n '2,10p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { sed -n '2,10p' "$0"; exit 2; }
a=$1 b=$2
for t in "$a" "$b"; do
    [ -x "$t/tools/cm5run" ] && [ -x "$t/examples/am_pingpong" ] || {
        echo "ab_builds: $t has no tools/cm5run or examples/am_pingpong" >&2
        exit 2
    }
done
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cm5-ab.XXXXXX")
trap 'cd / && rm -rf "$scratch"' EXIT
cd "$scratch"

median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for path in $paths; do
    case $path in
        rings) opt= ;;
        *) opt="--provider $path" ;;
    esac
    : >a.rtt; : >b.rtt; : >a.rate; : >b.rate
    i=0
    while [ $i -lt "$reps" ]; do
        for side in a b; do
            if [ $side = a ]; then t=$a; else t=$b; fi
            # shellcheck disable=SC2086
            timeout 120 "$t/tools/cm5run" -n 2 $opt --timeout 100 \
                "$t/examples/am_pingpong" -i 20000 -m 200000 >out 2>&1 || {
                echo "ab_builds: $t on $path failed:" >&2
                tail -3 out >&2
                exit 1
            }
            sed -n 's/^rtt_us //p' out >>$side.rtt
            sed -n 's/.*s: \([0-9]*\) messages\/s.*/\1/p' out >>$side.rate
        done
        i=$((i + 1))
    done
    ra=$(median <a.rtt) rb=$(median <b.rtt)
    qa=$(median <a.rate) qb=$(median <b.rate)
    awk -v p="$path" -v n="$reps" -v ra="$ra" -v rb="$rb" -v qa="$qa" \
        -v qb="$qb" 'BEGIN {
        printf "%-6s %d runs each: round trip A %.2f us, B %.2f us (B/A %.3f); " \
               "rate A %d/s, B %d/s (B/A %.3f)\n", p, n, ra, rb, rb / ra, qa, \
               qb, qb / qa }'
done
