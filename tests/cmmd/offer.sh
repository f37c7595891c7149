#!/bin/sh
# Offered receives (prog_offer, see its header): CMMD's matching order
# whichever way each message goes (announced, or written into a receive
# its node offered), on the same-host rings with 2, 3 and 5 nodes (where
# writes into offered receives must happen), beside two CPU hogs, with
# interrupts, with no eager messages, and over libfabric's shm, tcp and
# udp (no offers there: the same checks on the announced path).  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/offer.sh

PLAN=18
. "$(dirname "$0")/lib.sh"

# Two CPU hogs, killed by their PIDs (also if the script stops).
hogs() {
    yes >/dev/null &
    hog1=$!
    yes >/dev/null &
    hog2=$!
    trap 'kill $hog1 $hog2 2>/dev/null' EXIT
}
unhog() {
    kill "$hog1" "$hog2" 2>/dev/null
    wait "$hog1" "$hog2" 2>/dev/null
    trap - EXIT
}

for nodes in 2 3 5; do
    job "offer shm n=$nodes" 120 $nodes shm prog_offer rings
    expect_ok "offer shm n=$nodes: receives matched in CMMD's order, writes into offered receives happened"
    left_behind
done
hogs
job "offer hogs n=5" 180 5 shm prog_offer rings
unhog
expect_ok "offer shm n=5 beside two CPU hogs: order and offers right"
left_behind
export CM5_INTERRUPTS=1
job "offer irq n=3" 120 3 shm prog_offer rings
expect_ok "offer shm n=3 with interrupts: order and offers right"
left_behind
unset CM5_INTERRUPTS
export CM5_EAGER_MAX=0
job "offer noeager n=3" 120 3 shm prog_offer rings
expect_ok "offer shm n=3 with CM5_EAGER_MAX=0: order and offers right"
left_behind
unset CM5_EAGER_MAX
export CM5_SHM=off
job "offer fab n=3" 120 3 shm prog_offer
expect_ok "offer over libfabric's shm (CM5_SHM=off) n=3: order right"
left_behind
unset CM5_SHM
for prov in tcp udp; do
    job "offer $prov n=3" 180 3 $prov prog_offer
    expect_ok "offer $prov n=3: order right"
    left_behind
done
finish
