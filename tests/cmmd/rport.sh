#!/bin/sh
# CMAML rports and scopy (prog_rport) on 1, 2, 3, 5 and 8 nodes over shm
# and tcp, on 2 and 3 nodes over udp; with interrupts enabled in every
# node (CM5_INTERRUPTS=1) on 3 nodes over shm, tcp and udp.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/cmmd/rport.sh

PLAN=30
. "$(dirname "$0")/lib.sh"

for run in shm:1 shm:2 shm:3 shm:5 shm:8 tcp:1 tcp:2 tcp:3 tcp:5 tcp:8 \
    udp:2 udp:3; do
    prov=${run%:*} nodes=${run#*:}
    job "rport $prov n=$nodes" 60 $nodes $prov prog_rport
    expect_ok "rport $prov n=$nodes: 128 rports, 1 MiB gathered by scopy, all-to-all, handlers once"
    left_behind
done
export CM5_INTERRUPTS=1
for prov in shm tcp udp; do
    job "rport irq $prov n=3" 60 3 $prov prog_rport
    expect_ok "rport irq $prov n=3: rports and scopy correct with interrupts enabled (CM5_INTERRUPTS=1)"
    left_behind
done
unset CM5_INTERRUPTS
finish
