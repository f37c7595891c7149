#!/bin/sh
# CMAML interrupts (prog_irq) over shm and tcp.  TAP output.
#
#   basic   state calls; handlers run during a loop that makes no call,
#           in the main thread, flagged as inside an interrupt; polling
#           after disabling; no handler inside disabled sections
#   inside  no handler runs from an interrupt inside a CMMD call
#   free    completions by interrupt (async receives whose handlers free
#           their MCBs, an scopy, buffered sends): those that come while
#           node 0 computes run by interrupt, the one an eager message
#           brings during a barrier runs as the barrier returns (inside
#           the call: not by interrupt), nothing is freed inside the
#           signal handler
#   malloc  an interrupt arriving while node 0 is in malloc() must not
#           deadlock (node 0's watchdog reports it after 5 s)
#
#   abs_top_builddir=BUILD sh tests/cmmd/irq.sh

PLAN=20
. "$(dirname "$0")/lib.sh"

for run in shm:2 shm:3 tcp:2 tcp:3; do
    prov=${run%:*} nodes=${run#*:}
    job "irq basic $prov n=$nodes" 60 $nodes $prov prog_irq basic
    expect_ok "irq basic $prov n=$nodes: handlers run during pure computing, in the main thread, never while disabled"
    left_behind
done
for run in shm:3 tcp:3; do
    prov=${run%:*} nodes=${run#*:}
    job "irq inside $prov n=$nodes" 60 $nodes $prov prog_irq inside
    expect_ok "irq inside $prov n=$nodes: no handler runs from an interrupt while node 0 is inside CMMD_send_block/receive_block/send_noblock"
    left_behind
done
for run in shm:2 tcp:2; do
    prov=${run%:*} nodes=${run#*:}
    job "irq free $prov n=$nodes" 60 $nodes $prov prog_irq free
    sed -n 's/^prog_irq: \(node 0: .*\)$/# \1/p' out
    expect_ok "irq free $prov n=$nodes: completions run by interrupt free nothing inside the signal handler"
    left_behind
done
for run in shm:2 tcp:3; do
    prov=${run%:*} nodes=${run#*:}
    job "irq malloc $prov n=$nodes" 30 $nodes $prov prog_irq malloc
    expect_ok "irq malloc $prov n=$nodes: messages arriving by interrupt while node 0 computes with malloc/free do not deadlock it"
    left_behind
done
finish
