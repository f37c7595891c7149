#!/bin/sh
# Where a cm5run job's node processes spend their CPU (doc/bench.md,
# "Profile"): perf's cpu-clock samples (this VM has no hardware
# counters), shares by library and the top functions, as Markdown.
#
#   bench/profile.sh [--freq HZ] [--top N] [--comm NAME] [--out FILE]
#                    -- cm5run -n P PROGRAM [ARGS...]
#
# Only the node processes are counted (perf's comm = NAME, by default the
# base name of the first executable after cm5run's options), not cm5run.
# The program's own output is printed first.  Needs perf (linux-perf);
# run it on a quiet machine: a busy one shows mostly sched_yield.
set -eu
me=bench/profile.sh
FREQ=2999 TOP=25 COMM='' OUT=''
while [ $# -gt 0 ]; do
    case $1 in
    --freq) FREQ=$2; shift 2 ;;
    --top) TOP=$2; shift 2 ;;
    --comm) COMM=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --) shift; break ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "$me: unknown argument '$1' (--help)" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "$me: no command after --" >&2; exit 2; }
command -v perf >/dev/null 2>&1 ||
    { echo "$me: perf not found (apt-get install linux-perf)" >&2; exit 2; }
if [ -z "$COMM" ]; then
    first=1
    for w in "$@"; do
        if [ $first = 1 ]; then first=0; continue; fi
        case $w in -*) continue ;; esac
        if [ -f "$w" ] && [ -x "$w" ]; then COMM=$(basename "$w"); break; fi
    done
    [ -n "$COMM" ] || { echo "$me: no program in the command; --comm NAME" >&2; exit 2; }
fi
# perf truncates comm to 15 characters.
COMM=$(printf '%.15s' "$COMM")
data=$(mktemp /tmp/cm5prof.XXXXXX)
rep=$(mktemp /tmp/cm5prof.XXXXXX)
trap 'rm -f "$data" "$rep"' EXIT
load0=$(cut -d' ' -f1-3 /proc/loadavg)
perf record -q -F "$FREQ" -o "$data" -- "$@"
load1=$(cut -d' ' -f1-3 /proc/loadavg)
perf report -i "$data" --comms "$COMM" --no-children --sort dso,sym \
    --stdio -g none --percent-limit 0 2>/dev/null |
    awk '$1 ~ /%$/ { sub(/%/, "", $1); print }' >"$rep"
{
    echo
    echo "Profile of \`$*\` ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs,"
    echo "load $load0 before, $load1 after; perf cpu-clock at $FREQ Hz,"
    echo "the \`$COMM\` processes only; shares of their samples)."
    echo
    echo "| library | share |"
    echo "| --- | ---: |"
    awk '{ d[$2] += $1 } END { for (k in d) printf "%.1f %s\n", d[k], k }' "$rep" |
        sort -g -r | awk '$1 >= 0.1 { printf "| %s | %.1f %% |\n", $2, $1 }'
    echo
    echo "| function | library | share |"
    echo "| --- | --- | ---: |"
    head -n "$TOP" "$rep" | awk '{ s = $4; for (i = 5; i <= NF; i++) s = s " " $i
        printf "| `%s` | %s | %.2f %% |\n", s, $2, $1 }'
} | if [ -n "$OUT" ]; then tee "$OUT"; else cat; fi
