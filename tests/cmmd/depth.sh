#!/bin/sh
# The progress engine never recurses (prog_depth; issue 14, fault 5):
# completion callbacks that send run out of credits (a window of 2) and
# wait; progress nests at most 3 deep, deferred work never nests, no step
# takes seconds.  shm and tcp, 3 and 4 nodes; with interrupts on shm.  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/depth.sh

PLAN=10
. "$(dirname "$0")/lib.sh"

export CM5_AM_CREDITS=2
for run in shm:3 shm:4 tcp:3 tcp:4; do
    prov=${run%:*} nodes=${run#*:}
    job "depth $prov n=$nodes" 120 $nodes $prov prog_depth
    expect_ok "depth $prov n=$nodes: $(grep -m1 'progress depth' out | sed 's/^prog_depth: node 0 //')"
    left_behind
done
export CM5_INTERRUPTS=1
job "depth irq shm n=4" 120 4 shm prog_depth
unset CM5_INTERRUPTS
expect_ok "depth irq shm n=4: $(grep -m1 'progress depth' out | sed 's/^prog_depth: node 0 //')"
left_behind
finish
