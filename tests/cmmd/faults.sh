#!/bin/sh
# The fault campaign of issue 14 (prog_faults), on shm, tcp and udp: each
# fault gives one named error line (or, for the exhaustion of rports and
# MCBs, which are not errors, exactly the historical return values), a
# non-zero exit within 30 s of the fault, and leaves no process and no
# /dev/shm file behind.  The bounds only catch hangs: the machine may be
# loaded.  (alive.sh stops a computing node on shm and tcp; errors.sh
# covers aborts and errors of the program.)
#
#   kill     node 1 of 4 is killed (SIGKILL) mid-flood: cm5run's one line
#            names node 1 and signal 9, the job exits 137
#   stop     node 1 of 4 is stopped (SIGSTOP) mid-flood, with
#            CM5_PEER_TIMEOUT=1: one "lost node 1" line, non-zero exit
#   rports   3 nodes allocate rports until -1, three times over: exactly
#            128, then -1 (and again -1), then all free; an rport still
#            receives a scopy afterwards
#   mcbs     3 nodes start asynchronous sends and receives until
#            CMMD_ERRVAL: exactly 128 of each, CMMD_ERR_NO_RPORTS; all
#            complete; 2000 sends in the legacy retry loop arrive in order
#   memory   ulimit -v 60000 (KiB) on every node: start-up fails with one
#            "out of address space" line a node; ulimit -v 600000: node 0
#            sends a buffer the library cannot copy (CMMD_send_noblock):
#            one "out of memory" line
#
#   abs_top_builddir=BUILD sh tests/cmmd/faults.sh

PLAN=54
. "$(dirname "$0")/lib.sh"

# No process of the job is left stopped.
release() {
    [ -n "$1" ] && kill -CONT "$1" 2>/dev/null
    [ -n "$1" ] && kill -KILL "$1" 2>/dev/null
    :
}

# flood_job PROVIDER SIGNAL: 4 nodes of prog_faults flood; once every node
# floods, node 1 gets SIGNAL.  rc, ms (from the signal to the end of the
# job), out, err, vpid.
flood_job() {
    prov=$1 sig=$2
    name="faults $sig $prov"
    jobno=$((jobno + 1))
    mark="cm5cmmd-$$-$jobno"
    what="$name: prog_faults flood on 4 nodes, $prov"
    rm -f key out err
    shm_list >shm.before
    CM5TEST_KEYFILE=$scratch/key timeout -k 2 100 \
        "$CM5RUN" -n 4 --provider "$prov" --timeout 90 \
        sh -c 'echo "$CM5_JOB_KEY" >>"$0"; exec "$@"' "$scratch/key" \
        "$PROGS/prog_faults" flood "$mark" >out 2>err &
    bg=$!
    vpid=
    i=0
    while [ $i -lt 400 ]; do
        sleep 0.1
        i=$((i + 1))
        vpid=$(sed -n "s/^prog_faults: node 1 pid \([0-9]*\)$/\1/p" out)
        [ -n "$vpid" ] && [ "$(grep -c " flooding$" out)" -eq 4 ] && break
        kill -0 $bg 2>/dev/null || break
    done
    t0=$(now_ms)
    [ -n "$vpid" ] && kill -"$sig" "$vpid"
    wait $bg
    rc=$?
    ms=$(($(now_ms) - t0))
    t_end=$(date '+%H:%M:%S.%N')
    release "$vpid"
}

# mem_job SECONDS NODES PROVIDER KIB ARGS...: job() with `ulimit -v KIB`
# on every node (not on cm5run).
mem_job() {
    secs=$1 nodes=$2 prov=$3 kib=$4
    shift 4
    name="faults memory $prov $kib"
    job_begin
    what="$name: prog_faults $* on $nodes nodes, $prov, ulimit -v $kib"
    CM5TEST_KEYFILE=$scratch/key timeout -k 2 $((secs + 10)) \
        "$CM5RUN" -n "$nodes" --provider "$prov" --timeout "$secs" \
        sh -c 'echo "$CM5_JOB_KEY" >>"$0"; ulimit -v "$1"; shift; exec "$@"' \
        "$scratch/key" "$kib" "$PROGS/prog_faults" "$@" "$mark" >out 2>err
    job_end $?
}

# The library's lines in err are all LINE (an extended regular
# expression, after "cm5[NODE:PID] error "), and there is one at least.
only_lines() {
    grep -q "^cm5\[" err &&
        ! grep "^cm5\[" err | grep -Ev "^cm5\[[0-9]+:[0-9]+\] error $1$"
}

for prov in shm tcp udp; do
    flood_job $prov KILL
    check "kill $prov: node 1 killed mid-flood: exit 137 within 30 s ($ms ms)" \
        '[ -n "$vpid" ] && [ "$rc" -eq 137 ] && [ "$ms" -lt 30000 ]'
    check "kill $prov: one line, cm5run's, names node 1 and signal 9" \
        '[ "$(grep -c "^cm5run: node" err)" -eq 1 ] &&
         grep -Eq "^cm5run: node 1 \(pid $vpid\) killed by signal 9" err &&
         ! grep -q "^cm5\[" err'
    left_behind
done

CM5_PEER_TIMEOUT=1
export CM5_PEER_TIMEOUT
for prov in shm tcp udp; do
    flood_job $prov STOP
    check "stop $prov: node 1 stopped mid-flood: exits non-zero within 30 s ($ms ms)" \
        '[ -n "$vpid" ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$ms" -lt 30000 ]'
    check "stop $prov: one line names the lost node 1" \
        '[ "$(grep -c "lost node" err)" -eq 1 ] &&
         grep -Eq "^cm5\[[023]:[0-9]+\] error alive: lost node 1: no heartbeat for [0-9.]+ s \(CM5_PEER_TIMEOUT=1\)" err'
    left_behind
done
unset CM5_PEER_TIMEOUT

for prov in shm tcp udp; do
    job "faults rports $prov" 60 3 $prov prog_faults rports
    expect_ok "rports $prov: 128 then -1 three times over, then a scopy lands"
    left_behind
    job "faults mcbs $prov" 60 3 $prov prog_faults mcbs
    expect_ok "mcbs $prov: 128 sends and 128 receives then CMMD_ERR_NO_RPORTS; 2000 sends through the retry loop"
    check "mcbs $prov: every node sent 2000 in the retry loop, which retried" \
        '[ "$(grep -Ec "^prog_faults: node [0-2]: 2000 sends through 128 MCBs, [1-9][0-9]* retries$" out)" -eq 3 ]'
    left_behind
done
# CM5_ASYNC_MAX sets the limit (HOT's libmpmy posts 192 receives on 4
# nodes and never retries): exactly that many, then CMMD_ERRVAL.
CM5_ASYNC_MAX=200 FAULTS_NASYNC=200
export CM5_ASYNC_MAX FAULTS_NASYNC
job "faults mcbs 200 shm" 60 3 shm prog_faults mcbs
expect_ok "mcbs shm, CM5_ASYNC_MAX=200: 200 sends and 200 receives then CMMD_ERR_NO_RPORTS; 2000 sends through the retry loop"
check "mcbs shm, CM5_ASYNC_MAX=200: the retry loop went through 200 MCBs" \
    '[ "$(grep -Ec "^prog_faults: node [0-2]: 2000 sends through 200 MCBs, [0-9]* retries$" out)" -eq 3 ]'
left_behind
unset CM5_ASYNC_MAX FAULTS_NASYNC

for prov in shm tcp udp; do
    case ${CM5TEST_SANITIZERS:-no} in
    no) ;;
    *)  # ASan and TSan reserve terabytes of shadow address space: no
        # ulimit -v leaves them room to start.
        for c in "start-up under ulimit -v 60000 fails" \
                 "one 'out of address space' line a node" \
                 "nothing left behind" "a copy too large for ulimit -v" \
                 "one line, node 0, CMMD_send_noblock" "nothing left behind"
        do
            skip "memory $prov: $c" "ulimit -v in a sanitizer build"
        done
        continue ;;
    esac
    mem_job 30 2 $prov 60000 rports
    check "memory $prov: start-up under ulimit -v 60000 fails, exit 1 within 30 s ($ms ms)" \
        '[ "$rc" -eq 1 ] && [ "$ms" -lt 30000 ]'
    check "memory $prov: one 'out of address space' line a node, nothing else" \
        'only_lines "init: out of address space: the limit \(ulimit -v 60000\) leaves [0-9]+ MiB, opening the endpoints needs [0-9]+ MiB; raise the limit" &&
         [ "$(grep -c "^cm5\[0:" err)" -le 1 ] && [ "$(grep -c "^cm5\[1:" err)" -le 1 ] &&
         [ "$(grep -c "^cm5run: node" err)" -eq 1 ]'
    left_behind
    mem_job 30 2 $prov 600000 bigsend
    check "memory $prov: a copy too large for ulimit -v 600000: exit 1 within 30 s ($ms ms)" \
        '[ "$rc" -eq 1 ] && [ "$ms" -lt 30000 ] && grep -q "^fault at" out'
    check "memory $prov: one line, node 0, CMMD_send_noblock: out of memory" \
        'one_error 0 CMMD_send_noblock "out of memory"'
    left_behind
done
finish
