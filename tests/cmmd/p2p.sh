#!/bin/sh
# CMMD point-to-point messages (prog_p2p) on 1, 2, 3, 5 and 8 nodes over
# shm and tcp, on 2 and 3 nodes over udp, and on 32 nodes over shm (31
# nodes x 300 CMMD_send_noblock into node 0 fill its queue: a send that
# waits for room must not let a later message with the same tag overtake
# it, which one run in three did); with interrupts enabled in every node
# (CM5_INTERRUPTS=1) on 3 nodes over shm, tcp and udp; and whether
# CMMD_send_noblock "never blocks" (2 nodes, shm and tcp).  TAP output.
#
#   abs_top_builddir=BUILD sh tests/cmmd/p2p.sh

PLAN=36
. "$(dirname "$0")/lib.sh"

for prov in shm tcp udp; do
    for nodes in 1 2 3 5 8; do
        if [ $prov = udp ] && [ $nodes != 2 ] && [ $nodes != 3 ]; then
            continue
        fi
        job "p2p $prov n=$nodes" 60 $nodes $prov prog_p2p all
        expect_ok "p2p $prov n=$nodes: block, noblock, async, probe, shift, swap messages correct on every node"
        left_behind
    done
done
job "p2p shm n=32" 120 32 shm prog_p2p all
expect_ok "p2p shm n=32: every message correct and in order on every node"
left_behind
export CM5_INTERRUPTS=1
for prov in shm tcp udp; do
    job "p2p irq $prov n=3" 60 3 $prov prog_p2p all
    expect_ok "p2p irq $prov n=3: every message correct with interrupts enabled (CM5_INTERRUPTS=1)"
    left_behind
done
unset CM5_INTERRUPTS
for prov in shm tcp; do
    job "noblock_nowait $prov n=2" 30 2 $prov prog_p2p noblock_nowait
    expect_ok "noblock_nowait $prov n=2: 1000 CMMD_send_noblock to a node computing for 1 s return before it polls"
    left_behind
done
finish
