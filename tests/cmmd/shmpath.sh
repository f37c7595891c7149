#!/bin/sh
# The same-host fast path (CM5_SHM, prog_shmpath), from cm5_stats():
#   - by default (no --provider) every packet of a one-host job takes the
#     rings, on 2 and 5 nodes, and the ring segments' names are gone from
#     /dev/shm once every node has mapped them;
#   - CM5_SHM=off, and an explicit --provider shm or tcp, put every packet
#     on libfabric; CM5_SHM=on keeps the rings beside --provider tcp;
#   - with interrupts enabled (nodes sleep, handlers run from interrupts);
#   - node 1 of 3 killed (SIGKILL) after start-up: cm5run's one line, and
#     nothing left behind.
# TAP output.
#
#   abs_top_builddir=BUILD sh tests/cmmd/shmpath.sh

PLAN=19
. "$(dirname "$0")/lib.sh"
unset CM5_SHM

# run NAME NODES CM5RUN-PROVIDER-OPTION CM5_SHM PATH [irq]
run() {
    name=$1 nodes=$2 popt=$3 mode=$4 path=$5 irq=$6
    jobno=$((jobno + 1))
    mark="cm5cmmd-$$-$jobno"
    rm -f key out err
    shm_list >shm.before
    t0=$(now_ms)
    if [ -n "$mode" ]; then export CM5_SHM="$mode"; else unset CM5_SHM; fi
    CM5TEST_KEYFILE=$scratch/key timeout -k 2 70 \
        "$CM5RUN" -n "$nodes" $popt --timeout 60 \
        sh -c 'echo "$CM5_JOB_KEY" >>"$0"; exec "$@"' "$scratch/key" \
        "$PROGS/prog_shmpath" paths "$path" "$irq" "$mark" >out 2>err
    rc=$?
    ms=$(($(now_ms) - t0))
    t_end=$(date '+%H:%M:%S.%N')
    sed -n 's/^prog_shmpath: \(node [0-9]*: shm.*\)$/# \1/p' out
    expect_ok "$name: every packet took the $path path ($path counters only)"
    left_behind
}

run "default n=2" 2 "" "" shm
run "default n=5" 5 "" auto shm
run "CM5_SHM=off n=3" 3 "" off fabric
run "--provider shm n=2" 2 "--provider shm" auto fabric
run "--provider tcp n=2" 2 "--provider tcp" "" fabric
run "CM5_SHM=on --provider tcp n=3" 3 "--provider tcp" on shm
run "irq default n=3" 3 "" auto shm irq
run "irq CM5_SHM=off n=3" 3 "" off fabric irq

unset CM5_SHM
job "kill n=3" 60 3 shm prog_shmpath kill
vpid=$(sed -n 's/^cm5run: node 1 (pid \([0-9]*\)) killed by signal 9.*/\1/p' err)
check "kill n=3: node 1 killed after start-up: exit 137, cm5run's one line names it ($ms ms)" \
    '[ -n "$vpid" ] && [ "$rc" -eq 137 ] &&
     [ "$(grep -c "^cm5run: node" err)" -eq 1 ] && ! grep -q "^FAIL" err'
check "kill n=3: every node found its ring segment unnamed before the kill" \
    '[ "$(grep -c "^prog_shmpath: node [0-9]*: shm" out)" -eq 3 ]'
left_behind
finish
