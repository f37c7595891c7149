#!/bin/sh
# Control-network calls hold user handlers (prog_hold): the legacy
# "reset the counter after the barrier" idiom, handlers never inside a
# barrier, reduction, scan, broadcast or concat, and held handlers run by
# interrupts as the call returns.  shm and tcp, 2 to 8 nodes.  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/hold.sh

PLAN=20
. "$(dirname "$0")/lib.sh"

for run in shm:2 shm:3 shm:8 tcp:2 tcp:5; do
    prov=${run%:*} nodes=${run#*:}
    job "hold $prov n=$nodes" 120 $nodes $prov prog_hold
    expect_ok "hold $prov n=$nodes: 300 counter rounds, no handler inside a control-network call"
    left_behind
    job "hold irq $prov n=$nodes" 60 $nodes $prov prog_hold irq
    expect_ok "hold irq $prov n=$nodes: held handlers interrupt the node after the barrier"
    left_behind
done
finish
