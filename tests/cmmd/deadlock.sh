#!/bin/sh
# cm5run's deadlock check (CM5_DEADLOCK, prog_deadlock): a job in which
# every node waits for a message and none is in flight stops within
# seconds with one line naming each node's wait (a receive nobody sends,
# CMAML_poll_while_lt with nobody to answer; with interrupts too), on
# rings, libfabric shm, tcp and udp; CM5_DEADLOCK=0 turns it off.  The
# counter-patterns must run to their end: a node that computes longer
# than the check's window while the others wait, 64 MiB in flight while
# both ends wait, a node that sleeps before it sends what ends everyone's
# wait - also beside two CPU hogs - and that with the check's window at
# 1 s (CM5_DEADLOCK=1), where 1 GiB on tcp takes several windows: without
# the tagged transfers in the count, the check stops it (tried).  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/deadlock.sh

PLAN=36
. "$(dirname "$0")/lib.sh"

# deadlocked LABEL WANT: exit 1 within 15 s (the check's 3 s, start-up on
# a loaded machine), and stderr is cm5run's one line, naming WANT.
deadlocked() {
    want="cm5run: deadlock: every node has waited for a message for 3 s and none is in flight: $2; stopping the job (CM5_DEADLOCK=0: no check)"
    check "$1: stopped in $ms ms with one line naming: $2" \
        '[ "$rc" -eq 1 ] && [ "$ms" -lt 15000 ] && [ "$(wc -l <err)" -eq 1 ] &&
         [ "$(cat err)" = "$want" ]'
}

for prov in shm tcp udp fabshm; do
    p=$prov
    [ $prov = fabshm ] && p=shm && export CM5_SHM=off
    job "deadlock recv $prov" 60 4 $p prog_deadlock recv
    deadlocked "deadlock recv $prov" "nodes 1-3 in barrier; node 0 in message completion"
    left_behind
    unset CM5_SHM
done
for prov in shm tcp; do
    job "deadlock flag $prov" 60 4 $prov prog_deadlock flag
    deadlocked "deadlock flag $prov" "nodes 0-3 in CMAML_poll_while_lt"
    left_behind
done
export CM5_INTERRUPTS=1
job "deadlock recv irq" 60 4 shm prog_deadlock recv
unset CM5_INTERRUPTS
deadlocked "deadlock recv, interrupts on" "nodes 1-3 in barrier; node 0 in message completion"
left_behind
export CM5_DEADLOCK=0
job "deadlock off" 8 4 shm prog_deadlock recv
unset CM5_DEADLOCK
check "CM5_DEADLOCK=0: no check, the job runs to its --timeout ($ms ms)" \
    '[ "$rc" -eq 124 ] && ! grep -q deadlock err'
left_behind

export CM5_DEADLOCK=1
for prov in shm tcp udp fabshm; do
    p=$prov
    [ $prov = fabshm ] && p=shm && export CM5_SHM=off
    job "slow $prov" 90 4 $p prog_deadlock slow
    expect_ok "a node that computes 5 s while the others wait is no deadlock ($prov)"
    left_behind
    unset CM5_SHM
done
for prov in shm tcp; do
    # (on tcp long enough to span the check's window: 5 s and more here)
    mib=64
    [ $prov = tcp ] && mib=1024
    job "big $prov" 180 4 $prov prog_deadlock big $mib
    expect_ok "$mib MiB in flight while both ends wait is no deadlock ($prov)"
    left_behind
    job "late $prov" 90 4 $prov prog_deadlock late
    expect_ok "CMAML_poll_while_lt everywhere until a node that slept 5 s sends ($prov)"
    left_behind
done

# The same beside two CPU hogs (killed by their PIDs).
sh -c 'while :; do :; done' &
hog1=$!
sh -c 'while :; do :; done' &
hog2=$!
trap 'kill $hog1 $hog2 2>/dev/null' EXIT
job "slow tcp, hogs" 120 4 tcp prog_deadlock slow
expect_ok "beside two CPU hogs: a node that computes 5 s is no deadlock (tcp)"
left_behind
job "big tcp, hogs" 180 4 tcp prog_deadlock big 1024
expect_ok "beside two CPU hogs: 1024 MiB in flight is no deadlock (tcp)"
left_behind
kill $hog1 $hog2 2>/dev/null
wait $hog1 $hog2 2>/dev/null
trap - EXIT
unset CM5_DEADLOCK
finish
