#!/bin/sh
# wake.sh: how fast a sleeping node wakes (issue 27, item 3).  A
# ping-pong of 16-byte CMMD messages whose two sides each sleep T us
# outside the runtime before they answer (bench/cmmd_pingpong -t), so
# that the other has fallen asleep in its receive when the message
# comes; the median round trip less the two sleeps is what the two
# wake-ups (and the sleeps' own overshoot) cost.  Ways a job waits:
#   cm5run          cm5run -n 2: the job's futex doorbell
#   cm5run tcp      cm5run -n 2 --provider tcp: tcp's file descriptor
#   3 hosts, ring   mpirun, 4 nodes on 3 network-namespace hosts, node
#                   0 with node 3 (same host: rings; each sleeps on tcp's
#                   descriptor and its wake-up socket)
#   3 hosts, tcp    the same job, node 0 with node 1 (across: tcp)
# With --libdir DIR the nodes load libcm5fab from DIR (another build's
# .libs: a before/after in one run; the program is this build's).
# Needs root (namespaces), mpirun and cm5fab built with PMIx for the
# last two; says in one line what is missing.
#
#   sh bench/wake.sh [--think US] [--iters N] [--builddir DIR] [--libdir DIR]
set -u
me=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)
abs_top_srcdir=$(cd "$here/.." && pwd)
T=2000 ITERS=300 BUILDDIR= LIBDIR=
while [ $# -gt 0 ]; do
    case $1 in
    --think) T=$2; shift ;;
    --iters) ITERS=$2; shift ;;
    --builddir) BUILDDIR=$2; shift ;;
    --libdir) LIBDIR=$2; shift ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "$me: unknown option '$1' (--help)" >&2; exit 2 ;;
    esac
    shift
done
[ -n "$BUILDDIR" ] || BUILDDIR=$abs_top_srcdir/_build
abs_top_builddir=$(cd "$BUILDDIR" && pwd) || exit 2
PP=$abs_top_builddir/bench/cmmd_pingpong
[ -x "$PP" ] || { echo "$me: $PP not built (make)"; exit 2; }
if [ -n "$LIBDIR" ]; then
    LIBDIR=$(cd "$LIBDIR" && pwd) || exit 2
    PP=$abs_top_builddir/bench/.libs/cmmd_pingpong # (not the wrapper)
    export LD_LIBRARY_PATH="$LIBDIR"
fi
CM5RUN=$abs_top_builddir/tools/cm5run
wake() { sed -n 's/^pingpong 16 wake_rtt_us //p'; }

echo "# ping-pong, each side sleeping $T us before it answers; $ITERS round trips;" \
    "$(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1 /proc/loadavg)${LIBDIR:+; library $LIBDIR}"
printf '| how the job waits | round trip less the sleeps, median (us) |\n'
printf '|---|---|\n'
printf '| cm5run (doorbell) | %s |\n' \
    "$("$CM5RUN" -n 2 "$PP" -i "$ITERS" -t "$T" 16 2>/dev/null | wake)"
printf '| cm5run --provider tcp (descriptor) | %s |\n' \
    "$("$CM5RUN" -n 2 --provider tcp "$PP" -i "$ITERS" -t "$T" 16 2>/dev/null | wake)"
# lib.sh's skips print a TAP line; here they are this script's one line.
. "$abs_top_srcdir/tests/cluster/lib.sh"
cluster_skip() { echo "$me: $1"; exit 0; }
CLUSTER_SLOTS=2
cluster_require_pmix
cluster_netns_up
for peer in 3 1; do
    what="ring peer (node 3)"
    [ $peer = 1 ] && what="tcp peer (node 1)"
    # shellcheck disable=SC2086
    r=$(cluster_mpirun 4 120 ${LIBDIR:+-x LD_LIBRARY_PATH} "$PP" -i "$ITERS" \
        -p $peer -t "$T" 16 2>/dev/null | wake)
    printf '| mpirun, 3 hosts, node 0 and a %s | %s |\n' "$what" "$r"
done
