#!/bin/sh
# Interrupts that behave like the CM-5's (prog_irq quiet, peers).  TAP.
#
#   quiet   interrupts on, no traffic: sleep(2) sleeps 2 s and a 1 s
#           nanosleep sees at most 2 EINTR, on shm, tcp and udp
#   peers   3 nodes, interrupts on, nobody polls: node 0 handles all six
#           requests and nodes 1 and 2 get their replies; repeated (20
#           times on tcp, where requests were once left unhandled in
#           about 4 runs of 10)
#
#   abs_top_builddir=BUILD sh tests/cmmd/irqmsg.sh

: "${IRQ_PEERS_RUNS:=20}"
PLAN=12
. "$(dirname "$0")/lib.sh"

for prov in shm tcp udp; do
    job "irq quiet $prov" 60 2 $prov prog_irq quiet
    sed -n 's/^prog_irq: \(node .*EINTR\)$/# \1/p' out
    expect_ok "irq quiet $prov: no interrupt without a message (sleep(2) sleeps, nanosleep sees no EINTR)"
    left_behind
done
for run in tcp:$IRQ_PEERS_RUNS shm:3 udp:3; do
    prov=${run%:*} runs=${run#*:}
    failed=0 i=0
    while [ $i -lt "$runs" ]; do
        job "irq peers $prov" 30 3 $prov prog_irq peers
        if [ "$rc" -ne 0 ]; then
            failed=$((failed + 1))
            grep -m 2 FAIL err | sed 's/^/#   /'
        fi
        i=$((i + 1))
    done
    echo "# irq peers $prov: $failed of $runs runs failed"
    check "irq peers $prov: all requests and replies handled by interrupt in $runs of $runs runs" \
        '[ "$failed" -eq 0 ]'
    left_behind
done
finish
