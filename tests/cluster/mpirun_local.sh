#!/bin/sh
# The same binaries under Open MPI's mpirun on this host: PMIx bootstrap.
set -u
. "$abs_top_srcdir/tests/cluster/lib.sh"
cluster_require_pmix
B=$abs_top_builddir/examples
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1
# mpi SECONDS MPIRUN-ARGS...: mpirun bounded in time.  Every process of
# the job carries a marker in its environment: what a killed mpirun left
# behind (its nodes, orphaned) is found and killed, and said.
mpi_n=0
mpi() {
    t=$1
    shift
    mpi_n=$((mpi_n + 1))
    mark=cm5mpi-$$-$mpi_n
    CM5TEST_MARK=$mark timeout -k 5 "$t" "$MPIRUN" --allow-run-as-root \
        --oversubscribe --mca btl self -x CM5TEST_MARK "$@"
    rc=$?
    left=$(grep -l "CM5TEST_MARK=$mark" /proc/[0-9]*/environ 2>/dev/null |
        cut -d/ -f3)
    if [ -n "$left" ]; then
        kill -KILL $left 2>/dev/null
        echo "mpi: killed processes mpirun left behind: $left"
        return 99
    fi
    return $rc
}
echo "1..19"
out=$(mpi 60 -np 4 "$B/hello" 2>&1)
n=$(printf '%s\n' "$out" | grep -c '^hello from node [0-3] of 4$')
printf '%s\n' "$out" | grep -q 'provider: shm (bootstrap: pmix)' &&
    [ "$n" = 4 ] && ok 1 "mpirun -np 4 hello: PMIx bootstrap, shm" ||
    notok 1 "mpirun hello" "$out"
out=$(mpi 120 -np 8 "$B/am_flood" -m 12500 2>&1)
printf '%s\n' "$out" | grep -q '100000 requests and 100000 replies' &&
    ok 2 "mpirun -np 8 am_flood: 100000 requests and replies" ||
    notok 2 "mpirun flood" "$out"
out=$(mpi 60 -np 5 "$B/cmmd_ring" 2>&1)
printf '%s\n' "$out" | grep -q '5 of 5 nodes hold the right data' &&
    ok 3 "mpirun -np 5 cmmd_ring" || notok 3 "mpirun cmmd_ring" "$out"
t0=$(date +%s)
out=$(mpi 60 -np 3 "$B/am_flood" -p nope 2>&1)
rc=$?
t=$(($(date +%s) - t0))
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $t -le 20 ] &&
    printf '%s\n' "$out" | grep -q "error CMMD_error: am_flood: unknown pattern 'nope'" &&
    ok 4 "a failing node ends the mpirun job (status $rc, ${t}s)" ||
    notok 4 "failing node under mpirun (rc $rc, ${t}s)" "$out"

out=$(mpi 60 -np 2 "$abs_top_builddir/tools/cm5info" 2>&1)
why='provider shm (all 2 nodes on one host: the PMIx local size is the job size)'
n=$(printf '%s\n' "$out" | grep -c "^node [01] of 2: bootstrap pmix, $why\$")
[ "$n" = 2 ] && [ "$(printf '%s\n' "$out" | grep -c '^cm5fab ')" = 1 ] &&
    printf '%s\n' "$out" | grep -q '^  shm  *usable$' &&
    ok 5 "mpirun -np 2 cm5info: pmix, node and size, shm because one host" ||
    notok 5 "mpirun cm5info" "$out"

# PMIX_* variables promise a launcher whose server is gone: a server
# address where nobody listens, and none at all.
port=$((40000 + $$ % 20000))
for env in "PMIX_SERVER_URI2=bogus.0;tcp4://127.0.0.1:$port" \
    "PMIX_SERVER_URI=bogus.0;tcp4://127.0.0.1:$port" NO_SERVER_URI=1; do
    t0=$(date +%s)
    out=$(env PMIX_RANK=0 PMIX_NAMESPACE=bogus "$env" timeout -k 5 30 \
        "$B/hello" 2>&1)
    rc=$?
    t=$(($(date +%s) - t0))
    case $env in
    NO_*) where='(no PMIX_SERVER_URI\* variable names it) cannot be found' ;;
    *) where="at bogus.0;tcp4://127.0.0.1:$port does not answer" ;;
    esac
    line="error boot: PMIx_Init failed ([A-Z_]*): PMIX_RANK=0 and PMIX_NAMESPACE=bogus say a PMIx launcher (mpirun, srun --mpi=pmix, prterun) started this process, but its PMIx server $where; start the program with a PMIx launcher or with cm5run, or unset the PMIX_\* variables to run it alone as a 1-node partition\$"
    [ $rc = 1 ] && [ $t -le 10 ] &&
        printf '%s\n' "$out" | grep -q "$line" &&
        ! printf '%s\n' "$out" | grep -q '^hello' || break
done
[ $rc = 1 ] && [ $t -le 10 ] && printf '%s\n' "$out" | grep -q "$line" &&
    ok 6 "PMIx server gone: status 1 in ${t}s, the error says what to set" ||
    notok 6 "PMIx server gone ($env: rc $rc, ${t}s)" "$out"
n=$(printf '%s\n' "$out" | grep -c .)
[ "$n" = 1 ] && ok 7 "PMIx server gone: one line" ||
    notok 7 "PMIx server gone: one line, not $n" "$out"

# A launcher without PMIx (srun without --mpi=pmix, flux run without -o
# pmi=pmix): every process would run alone; the node says so.
out=$(env -u PMIX_RANK PMI_SIZE=4 timeout 30 "$B/hello" 2>&1)
printf '%s\n' "$out" | grep -q 'warn boot: PMI_SIZE=4: a launcher started this process as one of several, but gave it no PMIx server (no PMIX_RANK): running as a 1-node partition; use srun --mpi=pmix, flux run -o pmi=pmix, mpirun or prterun$' &&
    printf '%s\n' "$out" | grep -q '^hello from node 0 of 1$' &&
    ok 8 "launcher without PMIx: the node warns it runs alone" ||
    notok 8 "launcher without PMIx" "$out"

# One host: the nodes get a doorbell as under cm5run (shm has no wait
# object; without one, waits back off), and it is removed once all have
# it (a file in /dev/shm only between PMIx_Init and the first fence).
before=$(ls /dev/shm 2>/dev/null | grep '^cm5-db-' | sort)
out=$(mpi 60 -np 3 -x CM5_LOG_LEVEL=info "$B/am_flood" -m 2000 2>&1)
left() {
    ls /dev/shm 2>/dev/null | grep '^cm5-db-' | sort | comm -13 \
        "$scratch/db_before" -
}
printf '%s\n' "$before" >"$scratch/db_before"
n=$(printf '%s\n' "$out" | grep -c "info wait: waits sleep on the job's doorbell$")
[ "$n" = 3 ] && printf '%s\n' "$out" | grep -q '6000 requests and 6000 replies' &&
    { [ -z "$(left)" ] || { sleep 1; [ -z "$(left)" ]; }; } &&
    ok 9 "mpirun -np 3 on one host: every node sleeps on a doorbell, none left in /dev/shm" ||
    notok 9 "mpirun doorbell ($n of 3 nodes; left: $(left))" "$out"

# Host/node programs (doc/cluster.md): CM5_HOST=1 in both applications,
# the host program the first, of one process; every host call checked
# (tests/cmmd/prog_host.c), on the rings and over tcp.  (-x reaches one
# application: the marker is given to the second too.)
P=$abs_top_builddir/tests/cmmd
host_job() { # SECONDS NODES [MPIRUN OPTIONS FOR BOTH]...
    t=$1 n=$2
    shift 2
    mpi "$t" -x CM5_HOST=1 "$@" -np 1 "$P/prog_host_h" all m : \
        -x CM5TEST_MARK -x CM5_HOST=1 "$@" -np "$n" "$P/prog_host_n" all m
}
out=$(host_job 60 4 2>&1)
rc=$?
n=$(printf '%s\n' "$out" | grep -c '^prog_host: node [0-4] of 4 ok$')
[ "$rc" -eq 0 ] && [ "$n" = 5 ] &&
    ok 10 "host/node under mpirun: host program + 4 nodes, every host call right" ||
    notok 10 "host/node under mpirun ($n of 5 ok, exit $rc)" "$out"
out=$(host_job 60 3 -x CM5_PROVIDER=tcp 2>&1)
rc=$?
n=$(printf '%s\n' "$out" | grep -c '^prog_host: node [0-3] of 3 ok$')
[ "$rc" -eq 0 ] && [ "$n" = 4 ] &&
    ok 11 "host/node under mpirun over tcp: host program + 3 nodes" ||
    notok 11 "host/node over tcp ($n of 4 ok, exit $rc)" "$out"
# CM5_HOST=1 given to the host's application only: one line, non-zero
out=$(mpi 60 -x CM5_HOST=1 -np 1 "$P/prog_host_h" all m : \
    -x CM5TEST_MARK -np 3 "$P/prog_host_n" all m 2>&1)
rc=$?
n=$(printf '%s\n' "$out" | grep -c 'error boot: CM5_HOST=1 in 1 of the job.s 4 processes: a host/node job needs it in every one')
m=$(printf '%s\n' "$out" | grep -c '^cm5\[')
[ "$rc" -ne 0 ] && [ "$n" = 1 ] && [ "$m" = 1 ] &&
    ok 12 "CM5_HOST=1 in one application only: one line naming it, exit $rc" ||
    notok 12 "CM5_HOST mismatch ($n naming it, $m lines, exit $rc)" "$out"

# Virtual time under mpirun with every node on this host: synchronised,
# as in a cm5run job (the records live in the doorbell the nodes share):
# a storm of active messages (prog_vsync, 8 nodes, 40 requests each to
# pseudo-random nodes, computation free) gives the very lines cm5run's
# job gives, twice, and no node says it runs unsynchronised.  (A PMIx
# job on several hosts is synchronised through messages:
# tests/cluster/netns.sh.)
P=$abs_top_builddir/tests/cmmd
vs_ref "$scratch/vs.cm5run" 8 storm 40
vs_twice "$scratch/vs.cm5run" 8 "" -- \
    mpi 120 -np 8 -x CM5_MODEL=cm5 -x CM5_MODEL_CPU_SCALE=0 \
    "$P/prog_vsync" storm 40 &&
    ok 13 "CM5_MODEL=cm5 under mpirun on one host: synchronised, the storm's virtual times and handler orders those of cm5run's job, twice" ||
    notok 13 "synchronised virtual time under mpirun ($why)" \
        "$(diff "$scratch/vs.cm5run" "$vs_last" 2>&1 | head -6)"

# The deadlock check without cm5run: on the heartbeat ring (on one host,
# where there is no heartbeat, the ring runs for the check alone), node 0
# sends a token around it once a second and stops a job whose nodes all
# wait for a message, none in flight, with cm5run's one line
# (am_alive.c); a node that computes 5 s before it sends is no deadlock.
t0=$(date +%s)
out=$(mpi 60 -np 4 "$P/prog_deadlock" recv 2>&1)
rc=$?
t=$(($(date +%s) - t0))
want="error deadlock: every node has waited for a message for 3 s and none is in flight: nodes 1-3 in barrier; node 0 in message completion; stopping the job (CM5_DEADLOCK=0: no check)"
node0_stopped "$out" $rc $t 20 "$want" &&
    ok 14 "a deadlock under mpirun on one host: node 0's one line, status $rc in ${t}s" ||
    notok 14 "a deadlock under mpirun (status $rc, ${t}s)" "$out"
out=$(mpi 60 -np 4 -x CM5_DEADLOCK=1 "$P/prog_deadlock" slow 2>&1)
rc=$?
n=$(printf '%s\n' "$out" | grep -c '^prog_deadlock: node [0-3] of 4 ok$')
[ $rc -eq 0 ] && [ "$n" = 4 ] &&
    ok 15 "a node computing 5 s while the others wait (CM5_DEADLOCK=1): no verdict, the job ends" ||
    notok 15 "a slow node under mpirun's check (status $rc, $n ok)" "$out"

# A host/node job in virtual time (synchronised, the host collectives
# timed: doc/model.md, "The host program"): the clocks of cm5run's job.
CM5_MODEL=cm5 CM5_MODEL_CPU_SCALE=0 timeout -k 5 60 \
    "$abs_top_builddir/tools/cm5run" -n 4 --host "$P/prog_host_h" all m -- \
    "$P/prog_host_n" all m 2>&1 | grep ' clock ' | sort >"$scratch/h.cm5run"
out=$(host_job 60 4 -x CM5_MODEL=cm5 -x CM5_MODEL_CPU_SCALE=0 2>&1)
rc=$?
printf '%s\n' "$out" | grep ' clock ' | sort >"$scratch/h.mpirun"
[ "$rc" -eq 0 ] && [ "$(wc -l <"$scratch/h.cm5run")" -eq 5 ] &&
    cmp -s "$scratch/h.cm5run" "$scratch/h.mpirun" &&
    ! printf '%s\n' "$out" | grep -q 'synchronisation:' &&
    ok 16 "host/node in virtual time under mpirun: the clocks of cm5run's job" ||
    notok 16 "host/node in virtual time under mpirun (exit $rc)" \
        "$(diff "$scratch/h.cm5run" "$scratch/h.mpirun" 2>&1 | head; printf '%s\n' "$out" | tail -5)"

# The ring's two uses, as node 0 logs them: on one host no heartbeat
# (mpirun sees a node die), the ring for the deadlock check alone, and no
# ring at all with CM5_DEADLOCK=0; with CM5_PEER_TIMEOUT both.
alive_line() {
    mpi 60 -np 2 -x CM5_LOG_LEVEL=info "$@" "$B/hello" 2>&1 |
        sed -n 's/^cm5\[0:[0-9]*\] info alive: //p'
}
a=$(alive_line)
b=$(alive_line -x CM5_DEADLOCK=0)
c=$(alive_line -x CM5_PEER_TIMEOUT=10)
[ "$a" = "liveness check off (CM5_PEER_TIMEOUT=auto, all nodes on one host); the ring carries the deadlock check alone (CM5_DEADLOCK=3)" ] &&
    [ "$b" = "liveness check off (CM5_PEER_TIMEOUT=auto, all nodes on one host)" ] &&
    [ "$c" = "liveness check on: a node missing for 10 s stops the job (CM5_PEER_TIMEOUT=10), pings every 2.5 s" ] &&
    ok 17 "one host: the ring for the deadlock check alone; none with CM5_DEADLOCK=0; a heartbeat with CM5_PEER_TIMEOUT" ||
    notok 17 "the ring's uses under mpirun" "$(printf '%s\n%s\n%s\n' "$a" "$b" "$c")"

# A host/node job: the host program takes part in the check (the token
# goes from the last node to it, then to node 0), on the rings and over
# tcp with the heartbeat on; the counter-pattern (the host computes 5 s
# while every node waits for it, then node 0 5 s while the host waits:
# CM5_DEADLOCK=1) runs to its end, on the rings and over tcp beside two
# CPU hogs.
want="error deadlock: every node has waited for a message for 3 s and none is in flight: nodes 0-2 and the host program in message completion; stopping the job (CM5_DEADLOCK=0: no check)"
# host_pair SECONDS MODE [MPIRUN OPTIONS FOR BOTH]...: the host program
# and 3 nodes, CM5_HOST=1 in each.
host_pair() {
    t=$1 mode=$2
    shift 2
    mpi "$t" -x CM5_HOST=1 "$@" -np 1 "$P/prog_host_h" "$mode" : \
        -x CM5_HOST=1 "$@" -np 3 "$P/prog_host_n" "$mode"
}
t0=$(date +%s)
out=$(host_pair 60 deadlock 2>&1)
rc1=$? t1=$(($(date +%s) - t0))
t0=$(date +%s)
out2=$(host_pair 60 deadlock -x CM5_PROVIDER=tcp -x CM5_PEER_TIMEOUT=10 2>&1)
rc2=$? t2=$(($(date +%s) - t0))
node0_stopped "$out" $rc1 $t1 20 "$want" &&
    node0_stopped "$out2" $rc2 $t2 20 "$want" &&
    ok 18 "a host/node deadlock under mpirun: node 0's one line names the host program too (rings: status $rc1 in ${t1}s; tcp, heartbeat on: $rc2 in ${t2}s)" ||
    notok 18 "host/node deadlock under mpirun (status $rc1, ${t1}s; tcp $rc2, ${t2}s)" "$out
$out2"
# (the counter-pattern on the rings, then over tcp with the heartbeat on
# beside two CPU hogs, killed by their PIDs)
slow_job() { # FILE [MPIRUN OPTIONS FOR BOTH]...
    f=$1
    shift
    host_pair 90 slow -x CM5_DEADLOCK=1 "$@" >"$f" 2>&1
    s_rc=$rc
    s_n=$(grep -c '^prog_host: node [0-3] of 3 ok$' "$f")
}
slow_job "$scratch/slow.out"
rc1=$s_rc n1=$s_n
(while :; do :; done) &
hog1=$!
(while :; do :; done) &
hog2=$!
trap 'kill $hog1 $hog2 2>/dev/null; rm -rf "$scratch"' EXIT
slow_job "$scratch/slow2.out" -x CM5_PROVIDER=tcp -x CM5_PEER_TIMEOUT=10
kill $hog1 $hog2 2>/dev/null
wait $hog1 $hog2 2>/dev/null
trap 'rm -rf "$scratch"' EXIT
[ $rc1 -eq 0 ] && [ "$n1" = 4 ] && [ $s_rc -eq 0 ] && [ "$s_n" = 4 ] &&
    ok 19 "host/node, each side computing 5 s while the other waits (CM5_DEADLOCK=1): no verdict, the job ends (rings; tcp with the heartbeat, beside two CPU hogs)" ||
    notok 19 "a slow host under mpirun's check (rings: status $rc1, $n1 of 4 ok; tcp, hogs: $s_rc, $s_n of 4 ok)" "$(cat "$scratch/slow.out" "$scratch/slow2.out")"
