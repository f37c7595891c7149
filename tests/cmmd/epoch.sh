#!/bin/sh
# The epoch rule on DRS_N as its authors wrote it (prog_drsam, issue 24):
# test-and-set inquiries, CMAML_scopy into rports allocated in request
# handlers, a release request (from the scopy's completion handler, or
# right after the scopy), then polling until every message arrived and a
# barrier or a reduction.  Under the old rule (every user handler held in
# control-network calls) the release of a node that had reached the
# collective was held there, its receiver stayed taken, and the others
# polled forever.  4 and 8 nodes (32 on the rings), eager messages
# (16-2000 bytes), 4-32 KiB and up to 200 KB (single copy, rendezvous),
# on the rings, the rings without single copy, libfabric's shm, tcp and
# udp; every byte checked.  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/epoch.sh

PLAN=17
. "$(dirname "$0")/lib.sh"

run() { # LABEL NODES PROV ARGS...
    label=$1 nodes=$2 prov=$3
    shift 3
    job "drsam $label $prov n=$nodes" 60 "$nodes" "$prov" prog_drsam "$@"
    expect_ok "drsam $label, $prov, $nodes nodes: every message in, every byte right, no hang"
}

for prov in shm tcp udp; do
    run "4-32 KiB, release in the scopy handler" 8 $prov 4 4096 32768 4 11
    run "16-2000 B, release after the scopy" 4 $prov 3 16 2000 4 12 after
done
run "16 B-200 KB, release in the scopy handler" 8 shm 7 16 200000 3 13
run "4-32 KiB, release in the scopy handler" 32 shm 8 4096 32768 3 14
run "16 B-200 KB, release after the scopy" 32 shm 6 16 200000 2 15 after
CM5_CMA=off
export CM5_CMA
run "4-32 KiB, no single copy" 8 shm 4 4096 32768 4 16
run "16 B-200 KB, no single copy" 8 shm 7 16 200000 3 17
unset CM5_CMA
CM5_SHM=off
export CM5_SHM
run "4-32 KiB, libfabric's shm" 8 shm 4 4096 32768 4 18
run "16 B-200 KB, libfabric's shm" 8 shm 7 16 200000 3 19 after
unset CM5_SHM
CM5_INTERRUPTS=1
export CM5_INTERRUPTS
run "4-32 KiB, interrupts" 8 shm 4 4096 32768 4 20
run "16-2000 B, interrupts" 8 tcp 3 16 2000 4 21 after
# The other idiom under interrupts: requests, their replies, a barrier.
job "reqbar irq shm n=8" 120 8 shm prog_hold reqbar 60 16
expect_ok "reqbar shm, 8 nodes, interrupts: 60 rounds of requests, replies, then a barrier"
unset CM5_INTERRUPTS
left_behind
finish
