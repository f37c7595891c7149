#!/bin/sh
# Host/node jobs (cm5run --host) in virtual time (CM5_MODEL=cm5,
# doc/model.md, "The host program"): a host collective is one operation
# of the control network that the host joins, ending for the host and
# every node at the latest entry clock plus its price.
#   - prog_host vtime: a host synchronization, a broadcast of 1000 bytes
#     from the host, a synchronization the host enters 1 ms late, an
#     integer reduction, a distribution (24 bytes a node) and a gathering
#     (40 bytes a node) on 4 nodes take, on every side, exactly their
#     price plus the clock read (clk = 1 us): bar + 1000 cnb, 1 ms + bar,
#     red, bar + 4 x 24 cnb, bar + 4 x 40 cnb (bar = red = 5 us, cnb =
#     1.62 us a byte: doc/model.md's table); synchronised, unsynchronised
#     and with the records as messages alike.
#   - prog_host all (every host call: collectives, messages both ways,
#     active messages to and from the host, the global OR), synchronised:
#     the same clocks on every side twice, beside two CPU hogs, on one
#     CPU, over tcp, udp and libfabric shm, with the records as messages;
#     no broken bound, no hang at the exit.
#   - with interrupts on (CM5_INTERRUPTS=1): vtime's exact prices;
#     prog_host all runs to its end with no broken bound, on the rings
#     and over tcp (its 0.3 s of computation by the CPU, unstated and
#     above the floor, makes its times vary with interrupts on: the
#     program waits for its interrupt by rule meanwhile; a nodes'
#     barrier inside a host collective took the collective for ended
#     and deadlocked the job before 2026-11-30).
#   - the host program exits 3 in virtual time: the job ends at once.
# Computation is free (CM5_MODEL_CPU_SCALE=0).  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/vsync_host.sh

PLAN=19
. "$(dirname "$0")/lib.sh"

CM5_MODEL=cm5
CM5_MODEL_CPU_SCALE=0
export CM5_MODEL CM5_MODEL_CPU_SCALE

trap 'hogs_off; cd / && rm -rf "$scratch"' EXIT

# every side's line of the kind given (vtime, clock), in node order
lines() { grep "^prog_host: node [0-9]* $1 " out | sort -k3,3n; }
broken() { grep -c 'synchronisation:' err; }
clean() { [ "$rc" -eq 0 ] && [ "$(broken)" -eq 0 ] && all_ok; }

# The lengths: price + clk (1 us).
want="$((5000 + 1000 * 1620 + 1000)) $((1000000 + 5000 + 1000)) \
$((5000 + 1000)) $((5000 + 4 * 24 * 1620 + 1000)) \
$((5000 + 4 * 40 * 1620 + 1000))"
exact() {
    [ "$(lines vtime | wc -l)" -eq 5 ] &&
        [ "$(lines vtime | cut -d' ' -f5- | sort -u)" = "$want" ]
}
for s in on off net; do
    CM5_MODEL_SYNC=$s
    export CM5_MODEL_SYNC
    hjob "vtime sync=$s" 60 4 shm vtime
    check "host collectives cost their price on the host and every node, CM5_MODEL_SYNC=$s ($want ns; $ms ms)" \
        'clean && exact'
done
left_behind

CM5_MODEL_SYNC=on
export CM5_MODEL_SYNC
hjob "all" 60 4 shm all
lines clock >all.1
check "every host call, synchronised: no broken bound, every side ends ($(sed -n 1p all.1 | cut -d' ' -f5) ns; $ms ms)" \
    'clean && [ "$(wc -l <all.1)" -eq 5 ]'
hjob "all again" 60 4 shm all
lines clock >all.2
check "the same clocks twice" 'clean && cmp -s all.1 all.2'
hogs_on
hjob "all beside hogs" 60 4 shm all
hogs_off
lines clock >all.3
check "the same clocks beside two CPU hogs" 'clean && cmp -s all.1 all.3'
if command -v taskset >/dev/null 2>&1; then
    CM5TEST_WRAP="taskset -c 0"
    hjob "all on one CPU" 60 4 shm all
    CM5TEST_WRAP=
    lines clock >all.4
    check "the same clocks on one CPU (taskset -c 0)" 'clean && cmp -s all.1 all.4'
else
    skip "the same clocks on one CPU" "no taskset"
fi
for p in tcp udp; do
    hjob "all $p" 60 4 $p all
    lines clock >all.$p
    check "the same clocks over $p" 'clean && cmp -s all.1 all.$p'
done
CM5_SHM=off
export CM5_SHM
hjob "all libfabric shm" 60 4 shm all
unset CM5_SHM
lines clock >all.fshm
check "the same clocks on libfabric shm (CM5_SHM=off)" \
    'clean && cmp -s all.1 all.fshm'
CM5_MODEL_SYNC=net
hjob "all net" 60 4 tcp all
lines clock >all.net
check "the same clocks with the records as messages (CM5_MODEL_SYNC=net, tcp)" \
    'clean && cmp -s all.1 all.net'
CM5_MODEL_SYNC=on
left_behind

CM5_INTERRUPTS=1
export CM5_INTERRUPTS
hjob "vtime irq" 60 4 shm vtime
check "host collectives with interrupts on: their price on every side ($ms ms)" \
    'clean && exact'
for p in shm tcp; do
    hjob "all irq $p" 60 4 $p all
    check "every host call with interrupts on, $p: no broken bound, every side ends ($ms ms)" \
        'clean && [ "$(lines clock | wc -l)" -eq 5 ]'
done
unset CM5_INTERRUPTS
left_behind

hjob "host exits 3" 20 3 shm host_exit
check "the host program exits 3 in virtual time: the job ends, exit 3 ($ms ms)" \
    '[ "$rc" -eq 3 ] && [ "$ms" -lt 15000 ] &&
     grep -Eq "cm5run: host program .* exited with status 3" err'
left_behind
finish
