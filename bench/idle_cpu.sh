#!/bin/sh
# idle_cpu.sh: the CPU that waiting nodes use (issue 27, item 3).  Node 0
# sleeps S seconds before it leaves main while the other nodes wait for
# it in the exit barrier (tests/cmmd/prog_alive late 0 S); each node's
# CPU time (user + system, from the shell that runs it: `times`) is
# taken with S = 0 (start-up and ending) and with S; the difference, per
# waiting node, is what S seconds of waiting cost.  Three ways a job
# waits:
#   cm5run         cm5run -n N: nodes sleep on cm5run's doorbell
#   mpirun 1 host  mpirun -np N (PMIx): nodes sleep on the doorbell a
#                  one-host PMIx job gets (boot_pmix.c)
#   mpirun 2 hosts mpirun, N/2 nodes on each of two network-namespace
#                  hosts (tests/cluster/lib.sh): the rings within a host
#                  and tcp across: nodes sleep on tcp's descriptor and
#                  a wake-up socket their ring peers write to (before
#                  2026-11-29: no doorbell, waits backed off)
# Prints, for each, the median and the largest per-node CPU of the wait
# (ms) over ROUNDS rounds.  Needs root (namespaces), mpirun and cm5fab
# built with PMIx; says in one line what is missing.
#
#   sh bench/idle_cpu.sh [--nodes N] [--sleep S] [--rounds R] [--builddir DIR]
set -u
me=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)
abs_top_srcdir=$(cd "$here/.." && pwd)
N=8 S=5 ROUNDS=3 BUILDDIR=
while [ $# -gt 0 ]; do
    case $1 in
    --nodes) N=$2; shift ;;
    --sleep) S=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --builddir) BUILDDIR=$2; shift ;;
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "$me: unknown option '$1' (--help)" >&2; exit 2 ;;
    esac
    shift
done
[ -n "$BUILDDIR" ] || BUILDDIR=$abs_top_srcdir/_build
abs_top_builddir=$(cd "$BUILDDIR" && pwd) || exit 2
PA=$abs_top_builddir/tests/cmmd/prog_alive
[ -x "$PA" ] || { echo "$me: $PA not built (make tests/cmmd/prog_alive)"; exit 2; }
# lib.sh's skips print a TAP line; here they are this script's one line.
. "$abs_top_srcdir/tests/cluster/lib.sh"
cluster_skip() { echo "$me: $1"; exit 0; }
CLUSTER_SLOTS=$((N / 2))
cluster_require_pmix
cluster_netns_up
scratch=$dir/run
mkdir -p "$scratch" && cd "$scratch" || exit 2

# Each node's CPU in ms, one line per node (`times`' second line: its
# children, the node's process).
WRAP='"$0" late 0 "$1" >/dev/null; times'
cpu_ms() {
    awk 'NR % 2 == 0 {
        split($1, u, "m"); split($2, s, "m")
        printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 + 0.5 }'
}
run_case() { # case secs
    case $1 in
    cm5run) "$abs_top_builddir/tools/cm5run" -n "$N" sh -c "$WRAP" "$PA" "$2" ;;
    mpi1) "$MPIRUN" --allow-run-as-root --oversubscribe --mca btl self \
        -np "$N" sh -c "$WRAP" "$PA" "$2" ;;
    mpi2) cluster_mpirun "$N" 120 sh -c "$WRAP" "$PA" "$2" ;;
    esac 2>/dev/null | cpu_ms | sort -n
}
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }

echo "# $N nodes, node 0 sleeps $S s, the others wait; $ROUNDS rounds;" \
    "$(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1 /proc/loadavg)"
printf '| %s | %s | %s | %s |\n' "how the job waits" \
    "CPU of a node, S = 0 (ms)" "CPU of a waiting node over $S s, median (ms)" \
    "largest (ms)"
printf '|---|---|---|---|\n'
for c in cm5run mpi1 mpi2; do
    base="" wait=""
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        base="$base $(run_case $c 0 | median)"
        # (node 0, the sleeper, costs what S = 0 costs: in the median)
        wait="$wait
$(run_case $c "$S")"
        r=$((r + 1))
    done
    b=$(printf '%s\n' $base | median)
    m=$(printf '%s\n' "$wait" | grep . | median)
    hi=$(printf '%s\n' "$wait" | grep . | sort -n | tail -1)
    case $c in
    cm5run) name="cm5run (doorbell)" ;;
    mpi1) name="mpirun, one host (PMIx doorbell)" ;;
    mpi2) name="mpirun, two hosts (rings + tcp, doorbell per host)" ;;
    esac
    printf '| %s | %s | %s | %s |\n' "$name" "$b" "$((m - b))" "$((hi - b))"
done
