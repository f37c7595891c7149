#!/bin/sh
# DRS_N and DRS_N+ on 1, 2, 3, 5, 8, 16 and 31 nodes over shm and on 3
# and 8 nodes over tcp.  Each job runs prog_drs: both algorithms on the
# full, hot-spot, random, exact, uniform, permutation and zero matrices,
# polling and interrupts, the receiver or the sender releasing the lock,
# a retry delay, the early go-ahead off (theta 0) and wide (theta 1 s),
# Generate_Recv, several consecutive calls, messages of several KiB in
# pieces of drs_chunk_max=1000 bytes (and 7), the data as CMMD messages
# into receives posted at the start (drs_data=cmmd; also with only two
# asynchronous receives at a time); every byte is checked.
# From each case line this asserts: at most one incoming transfer at a
# time for DRS_N and for DRS_N+ with theta 0, at most two for DRS_N+; the
# exact message (one per piece) and byte counts of the matrix; an
# inquiry for every message and a denial for every other inquiry; on 8
# nodes and more,
# denials on the hot spot (7 senders of 200 KB, three calls), and (shm)
# two overlapping transfers with theta 1 s.  tcp on a loaded machine
# can serialize the senders so that no inquiry meets a transfer.
# The jobs of 8 nodes and more run a subset of the cases (--only): on a
# 2-core machine their start-up is what takes the time.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/algos/drs.sh

: "${abs_top_builddir:=$(pwd)}"
CM5RUN=$abs_top_builddir/tools/cm5run
PROG=$abs_top_builddir/tests/algos/prog_drs

unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER

ALL=30 # cases of prog_drs's table, times two algorithms
BIG=hotspot_irq,full_theta0_irq_sender,random_sender,hotspot_theta1s,full_chunk1000
CMMD=full_cmmd,hotspot_cmmd_irq_sender,random_cmmd_chunk1000
PLAN=$((6 * (ALL + 1) + (8 + 1) + (10 + 1) + (2 + 1) + (6 + 1)))
. "$(dirname "$0")/../tap.sh"
tap_begin cm5drs "$PLAN"

tap() {
    n=$((n + 1))
    echo "$1 $n - $2"
}

# v KEY LINE: the value of KEY= in a case line.
v() {
    echo "$2" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"
}

# check_case LINE: the bounds of one case.
check_case() {
    line=$1
    alg=$(echo "$line" | sed -n 's/.* alg=\([^ ]*\).*/\1/p')
    name=$(echo "$line" | sed -n 's/.* name=\([^ ]*\).*/\1/p')
    p=$(v p "$line") mci=$(v mci "$line") msgs=$(v msgs "$line")
    bytes=$(v bytes "$line") inq=$(v inquiries "$line")
    den=$(v denials "$line")
    lim=1
    [ "$alg" = drsn+ ] && lim=2
    case $name in *theta0*) lim=1 ;; esac
    why=
    [ "$mci" -le $lim ] || why="$why mci>$lim"
    [ "$msgs" -eq 0 ] || [ "$mci" -ge 1 ] || why="$why mci=0"
    [ "$msgs" -eq "$(v expect_msgs "$line")" ] || why="$why msgs"
    [ "$bytes" -eq "$(v expect_bytes "$line")" ] || why="$why bytes"
    [ "$inq" -ge "$msgs" ] || why="$why inquiries<msgs"
    [ "$den" -eq $((inq - msgs)) ] || why="$why denials"
    if [ "$p" -ge 8 ]; then
        case $name in hotspot*) [ "$den" -gt 0 ] || why="$why no-denial" ;; esac
        if [ "$name" = hotspot_theta1s ] && [ "$alg" = drsn+ ] &&
            [ "$prov" = shm ]; then
            [ "$mci" -eq 2 ] || why="$why no-overlap"
        fi
    fi
    desc="$alg $name on $p nodes, $prov: mci=$mci msgs=$msgs inquiries=$inq denials=$den"
    if [ -z "$why" ]; then
        tap ok "$desc"
    else
        tap "not ok" "$desc"
        echo "#   failed:$why; $line"
    fi
}

# job NODES PROVIDER SECONDS EXPECTED [ARGS...]: run prog_drs, then one
# TAP line for the job and one per expected case line.
job() {
    nodes=$1 prov=$2 secs=$3 want=$4
    shift 4
    t0=$(date +%s)
    timeout -k 2 $((secs + 10)) "$CM5RUN" -n "$nodes" --provider "$prov" \
        --timeout "$secs" "$PROG" "$@" >out 2>err
    rc=$?
    got=$(grep -c '^case ' out)
    desc="prog_drs $* on $nodes nodes, $prov: exit 0, every byte right ($(($(date +%s) - t0)) s)"
    if [ $rc -eq 0 ] && grep -q '^ok$' out && [ "$got" -eq "$want" ]; then
        tap ok "$desc"
    else
        tap "not ok" "$desc"
        echo "#   exit $rc, $got of $want cases"
        tail -n 5 err | cut -c1-300 | sed 's/^/#   stderr: /'
    fi
    grep '^case ' out | head -n "$want" | while read -r line; do
        check_case "$line"
    done
    n=$((n + (got < want ? got : want)))
    i=$got
    while [ "$i" -lt "$want" ]; do
        tap "not ok" "case $((i + 1)) of prog_drs on $nodes nodes, $prov: not run"
        i=$((i + 1))
    done
}

for nodes in 1 2 3 5 8; do
    job $nodes shm 50 $ALL
done
job 3 tcp 50 $ALL
job 16 shm 50 8 --only hotspot_irq,full_theta0_irq_sender,hotspot_chunk1000_irq,hotspot_cmmd_irq_sender
job 8 tcp 50 10 --only $BIG
job 31 shm 90 2 --only exact_am
# DRS_N's data as CMMD messages with two asynchronous receives at a time:
# the rest are posted as those complete, and a sender whose receive is
# not posted yet is denied
CM5_ASYNC_MAX=2
export CM5_ASYNC_MAX
job 8 shm 50 6 --only $CMMD
unset CM5_ASYNC_MAX

echo "# $n tests in $(($(date +%s) - t_start)) s"
[ "$n" -eq "$PLAN" ] || echo "# planned $PLAN tests, ran $n"
