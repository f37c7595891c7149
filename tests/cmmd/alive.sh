#!/bin/sh
# The liveness check, CM5_PEER_TIMEOUT (prog_alive), over shm and tcp (and
# udp for "stop"), on 4 nodes with CM5_PEER_TIMEOUT=1 (cm5run jobs have it
# off by default).
#
#   stop     node 1 is stopped (SIGSTOP, by the pid it prints) while it
#            computes and the others wait in a barrier: the job ends
#            non-zero within 8 s of the stop, with exactly one "lost node
#            1" line, from node 2; nothing is left behind
#   compute  node 1, then every node, computes 3 s without a call into
#            CMMD (the heartbeat has a thread of its own): nobody is
#            reported, the job ends well
#   late     node 2 sleeps 3 s before finalize (the others wait in the
#            exit barrier), and the reverse: the job ends well
#   exit     node 1 exits with status 3: cm5run's line reports it, no
#            "lost node" line from anyone
#   resize   half the nodes leave the partition (exit 0) and the rest go
#            on for 2 s: nobody reports the nodes that left
#   config   a bad value gives one error line and the job fails; auto is
#            off under cm5run; 1 is on (CM5_LOG_LEVEL=info says so)
#
#   abs_top_builddir=BUILD sh tests/cmmd/alive.sh

PLAN=41
. "$(dirname "$0")/lib.sh"

CM5_PEER_TIMEOUT=1
export CM5_PEER_TIMEOUT

# No process of the job is left stopped: a stopped process would outlive
# cm5run's SIGTERM until its SIGKILL.
release() {
    [ -n "$1" ] && kill -CONT "$1" 2>/dev/null
    [ -n "$1" ] && kill -KILL "$1" 2>/dev/null
    :
}

# stop_job NODES PROVIDER VICTIM: run prog_alive stop in the background,
# stop node VICTIM once it computes; rc, ms (from the stop to the end of
# the job), out, err as job() leaves them.
stop_job() {
    nodes=$1 prov=$2 victim=$3
    name="alive stop $prov n=$nodes"
    jobno=$((jobno + 1))
    mark="cm5cmmd-$$-$jobno"
    what="$name: prog_alive stop $victim on $nodes nodes, $prov"
    rm -f key out err
    shm_list >shm.before
    CM5TEST_KEYFILE=$scratch/key timeout -k 2 40 \
        "$CM5RUN" -n "$nodes" --provider "$prov" --timeout 30 \
        sh -c 'echo "$CM5_JOB_KEY" >>"$0"; exec "$@"' "$scratch/key" \
        "$PROGS/prog_alive" stop "$victim" "$mark" >out 2>err &
    bg=$!
    vpid=
    i=0
    while [ -z "$vpid" ] && [ $i -lt 300 ]; do
        sleep 0.1
        vpid=$(sed -n "s/^prog_alive: node $victim pid \([0-9]*\)$/\1/p" out)
        i=$((i + 1))
    done
    sleep 0.5 # every node is past the first barrier
    t0=$(now_ms)
    [ -n "$vpid" ] && kill -STOP "$vpid"
    wait $bg
    rc=$?
    ms=$(($(now_ms) - t0))
    release "$vpid"
}

for prov in shm tcp; do
    stop_job 4 $prov 1
    check "alive stop $prov: the job ends non-zero within 8 s of the stop ($ms ms)" \
        '[ -n "$vpid" ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$ms" -lt 8000 ]'
    check "alive stop $prov: one line, from node 2, names the stopped node 1" \
        '[ "$(grep -c "lost node" err)" -eq 1 ] &&
         grep -q "^cm5\[2:[0-9]*\] error alive: lost node 1: no heartbeat for [0-9.]* s (CM5_PEER_TIMEOUT=1)" err'
    left_behind

    job "alive compute $prov" 60 4 $prov prog_alive compute 1 3
    expect_ok "alive compute $prov: node 1 computes 3 s without polling, not reported"
    check "alive compute $prov: no lost node" '! grep -q "lost node" err'
    left_behind
    job "alive compute all $prov" 60 4 $prov prog_alive compute -1 3
    expect_ok "alive compute all $prov: every node computes 3 s, none reported"
    check "alive compute all $prov: no lost node" '! grep -q "lost node" err'

    job "alive late $prov" 60 4 $prov prog_alive late 2 3
    expect_ok "alive late $prov: node 2 reaches finalize 3 s after the others"
    check "alive late $prov: no lost node" '! grep -q "lost node" err'
    left_behind
    job "alive early $prov" 60 4 $prov prog_alive early 2 3
    expect_ok "alive early $prov: node 2 waits 3 s for the others in finalize"
    check "alive early $prov: no lost node" '! grep -q "lost node" err'
done

# udp too (faults.sh stops a node mid-flood on every provider).
stop_job 4 udp 1
check "alive stop udp: the job ends non-zero within 30 s of the stop ($ms ms)" \
    '[ -n "$vpid" ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$ms" -lt 30000 ]'
check "alive stop udp: one line, from node 2, names the stopped node 1" \
    '[ "$(grep -c "lost node" err)" -eq 1 ] &&
     grep -q "^cm5\[2:[0-9]*\] error alive: lost node 1: no heartbeat for [0-9.]* s (CM5_PEER_TIMEOUT=1)" err'
left_behind

for prov in shm tcp; do
    job "alive exit $prov" 30 4 $prov prog_alive exit 1
    check "alive exit $prov: cm5run reports node 1's status 3, nobody a lost node" \
        '[ "$rc" -eq 3 ] && grep -q "^cm5run: node 1 (pid [0-9]*) exited with status 3" err &&
         ! grep -q "lost node" err'
    left_behind
done

job "alive resize shm" 60 4 shm prog_alive resize 2
check "alive resize: 2 nodes leave, 2 go on for 2 s and end well ($ms ms)" \
    '[ "$rc" -eq 0 ] && [ "$(grep -c "left the partition" out)" -eq 2 ] &&
     [ "$(grep -c "^prog_alive: node [01] of 2 ok$" out)" -eq 2 ]'
check "alive resize: no lost node" '! grep -q "lost node" err'
left_behind

CM5_PEER_TIMEOUT=1s
job "alive bad value" 20 2 shm prog_alive compute 0 0
# (cm5run may stop the second node before it says the same.)
check "alive config: CM5_PEER_TIMEOUT=1s fails the job with one line a node" \
    '[ "$rc" -ne 0 ] && grep -q "^cm5\[" err &&
     [ "$(grep -c "^cm5\[0:" err)" -le 1 ] && [ "$(grep -c "^cm5\[1:" err)" -le 1 ] &&
     ! grep "^cm5\[" err | grep -v "^cm5\[[01]:[0-9]*\] error config: CM5_PEER_TIMEOUT=1s: expected auto, off, 0 or a number of seconds from 0.5 to 86400$"'
CM5_PEER_TIMEOUT=0.1
job "alive too short" 20 2 shm prog_alive compute 0 0
check "alive config: 0.1 s is too short" \
    '[ "$rc" -ne 0 ] && grep -q "CM5_PEER_TIMEOUT=0.1: expected" err'
# (The nodes stop before they open an endpoint and write no job key: the
# check for files left behind would see other jobs' files.)
unset CM5_PEER_TIMEOUT
CM5_LOG_LEVEL=info
export CM5_LOG_LEVEL
job "alive auto" 20 2 tcp prog_alive compute 0 0
check "alive config: auto is off under cm5run" \
    '[ "$rc" -eq 0 ] && grep -q "^cm5\[0:[0-9]*\] info alive: liveness check off (CM5_PEER_TIMEOUT=auto, all nodes on one host)" err'
CM5_PEER_TIMEOUT=2.5
export CM5_PEER_TIMEOUT
job "alive on" 20 2 tcp prog_alive compute 0 0
check "alive config: 2.5 is on, pings every 0.625 s" \
    '[ "$rc" -eq 0 ] && grep -q "^cm5\[0:[0-9]*\] info alive: liveness check on: a node missing for 2.5 s stops the job (CM5_PEER_TIMEOUT=2.5), pings every 0.625 s" err'
CM5_PEER_TIMEOUT=off
job "alive off" 20 2 tcp prog_alive compute 0 0
check "alive config: off" \
    '[ "$rc" -eq 0 ] && grep -q "info alive: liveness check off (CM5_PEER_TIMEOUT=off)" err'
unset CM5_LOG_LEVEL CM5_PEER_TIMEOUT
finish
