#!/bin/sh
# Control-network calls keep the CM-5's timing, the epoch rule (prog_hold):
# the legacy "reset the counter after the barrier" idiom (a fast node's
# requests sent after its barrier wait for the end of a slow node's), no
# handler of traffic sent after its sender's call inside a barrier,
# reduction, scan, broadcast or concat, the other idiom (requests, their
# replies, then a barrier that a neighbour may already wait in: it
# answers), and with interrupts a request held by a barrier runs as it
# returns.  shm and tcp, 2 to 8 nodes.  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/hold.sh

PLAN=30
. "$(dirname "$0")/lib.sh"

for run in shm:2 shm:3 shm:8 tcp:2 tcp:5; do
    prov=${run%:*} nodes=${run#*:}
    job "hold $prov n=$nodes" 120 $nodes $prov prog_hold
    expect_ok "hold $prov n=$nodes: 300 counter rounds, no handler of later traffic inside a control-network call"
    left_behind
    job "hold reqbar $prov n=$nodes" 120 $nodes $prov prog_hold reqbar 100 16
    expect_ok "hold reqbar $prov n=$nodes: 100 rounds of 16 requests, their replies, then a barrier or a reduction"
    left_behind
    job "hold irq $prov n=$nodes" 60 $nodes $prov prog_hold irq
    expect_ok "hold irq $prov n=$nodes: a request sent after the sender began the barrier interrupts node 0 as the barrier returns"
    left_behind
done
finish
