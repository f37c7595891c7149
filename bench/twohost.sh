#!/bin/sh
# twohost.sh: round trip and one-way rate of 16-byte messages within one
# host and across two (issue 27, item 5), on network-namespace hosts
# (tests/cluster/lib.sh: a head namespace with a bridge, hosts joined to
# it by veth pairs), cm5fab against Open MPI on the same namespaces:
#   cm5fab within   cm5run -n 2 examples/am_pingpong inside host 1 (the
#                   same-host rings)
#   cm5fab across   mpirun (PMIx) one node on each of hosts 1 and 2
#                   (libfabric tcp)
#   Open MPI within mpirun -np 2 bench/mpi_pingpong.c on host 1 (vader)
#   Open MPI across mpirun one rank on each host (btl tcp)
# Each round runs the four once; the table gives the medians over the
# rounds (round trip: the median of each run's iterations; rate: rank 1 ->
# 0, 16-byte messages/s).  Needs root (namespaces), mpirun and mpicc
# (openmpi-bin, libopenmpi-dev) and cm5fab built with PMIx; says in one
# line what is missing.  Namespaces and processes are removed on exit.
#
#   sh bench/twohost.sh [--rounds N] [--iters N] [--msgs N] [--builddir DIR]
set -u
me=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)
abs_top_srcdir=$(cd "$here/.." && pwd)
ROUNDS=3
ITERS=5000
MSGS=100000
BUILDDIR=
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) ROUNDS=$2; shift ;;
    --iters) ITERS=$2; shift ;;
    --msgs) MSGS=$2; shift ;;
    --builddir) BUILDDIR=$2; shift ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "$me: unknown option '$1' (--help)" >&2; exit 2 ;;
    esac
    shift
done
[ -n "$BUILDDIR" ] || BUILDDIR=$abs_top_srcdir/_build
abs_top_builddir=$(cd "$BUILDDIR" && pwd) || exit 2
# lib.sh's skips print a TAP line; here they are this script's one line.
. "$abs_top_srcdir/tests/cluster/lib.sh"
cluster_skip() {
    echo "$me: $1" >&2
    exit 0
}
cluster_require_pmix
MPICC=${MPICC:-mpicc.openmpi}
command -v "$MPICC" >/dev/null 2>&1 || cluster_skip "$MPICC not installed (libopenmpi-dev)"
cluster_netns_up
"$MPICC" -O2 -o "$dir/mpi_pingpong" "$here/mpi_pingpong.c" ||
    cluster_skip "cannot build bench/mpi_pingpong.c with $MPICC"
AM=$abs_top_builddir/examples/am_pingpong
CM5RUN=$abs_top_builddir/tools/cm5run
h1=$net.2 h2=$net.3

# mpi_on HOSTS NP ARGS...: mpirun from the head on the hosts given.
# --bind-to none: Open MPI binds each host's first rank to its core 0,
# and the namespace hosts share this machine's cores, so the two ranks
# "across hosts" shared one core: a rank that spins kept the other from
# running until it yielded or the scheduler's tick took it (cm5fab with
# CM5_SPIN_US=2000: 4 ms round trips; Open MPI, which never yields: 8 ms,
# two 4 ms ticks; cm5fab's default 50 us spin: 150 us).
mpi_on() {
    hosts=$1 np=$2
    shift 2
    printf '%s\n' $hosts | sed 's/$/ slots=2/' >"$dir/hf"
    timeout -k 5 120 ip netns exec ${pre}h0 "$MPIRUN" --allow-run-as-root \
        --hostfile "$dir/hf" \
        --mca plm_rsh_agent "$abs_top_srcdir/tests/cluster/agent.sh" \
        --mca oob_tcp_if_include $net.0/24 \
        --mca btl_tcp_if_include $net.0/24 -np "$np" --map-by node \
        --bind-to none -x FI_TCP_IFACE=cm5net "$@"
}
# rtt and rate of one run's output (am_pingpong's or mpi_pingpong's)
rtt() { sed -n 's/^rtt_us //p' "$1" | head -n 1; }
rate() {
    sed -n -e 's/^oneway_msgs_per_s //p' \
        -e 's/^one-way .* \([0-9]*\) messages\/s.*/\1/p' "$1" | head -n 1
}

for r in $(seq "$ROUNDS"); do
    a="-i $ITERS -m $MSGS"
    timeout -k 5 120 ip netns exec ${pre}h1 "$CM5RUN" -n 2 "$AM" $a \
        >"$dir/cw.$r" 2>&1
    mpi_on "$h1 $h2" 2 --mca btl self "$AM" $a >"$dir/ca.$r" 2>&1
    mpi_on "$h1" 2 --mca btl self,vader "$dir/mpi_pingpong" $a \
        >"$dir/mw.$r" 2>&1
    mpi_on "$h1 $h2" 2 --mca btl self,tcp "$dir/mpi_pingpong" $a \
        >"$dir/ma.$r" 2>&1
done
# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "?" }'; }
row() { # NAME PREFIX
    t=$(for r in $(seq "$ROUNDS"); do rtt "$dir/$2.$r"; done | median)
    m=$(for r in $(seq "$ROUNDS"); do rate "$dir/$2.$r"; done | median)
    printf '| %s | %s | %s |\n' "$1" "$t" "$m"
}
echo "Two namespace hosts on a bridge ($(nproc) cores, $(date -u '+%Y-%m-%d'), load $(cut -d' ' -f1 /proc/loadavg)), medians of $ROUNDS rounds of $ITERS round trips and $MSGS one-way messages of 16 bytes:"
echo
echo "| path | round trip (us) | one-way rate (msgs/s) |"
echo "|---|---|---|"
row "cm5fab, within a host (rings)" cw
row "cm5fab, across hosts (PMIx, tcp)" ca
row "Open MPI, within a host (vader)" mw
row "Open MPI, across hosts (btl tcp)" ma
for f in cw ca mw ma; do
    [ -n "$(rtt "$dir/$f.1")" ] || {
        echo "$me: $f.1 gave no figure:" >&2
        tail -n 8 "$dir/$f.1" | cut -c1-200 >&2
    }
done
