#!/bin/sh
# The CMMD control network (prog_coll) on 1, 2, 3, 5 and 8 nodes over shm
# and tcp, on 2 and 3 nodes over udp, and on 16 nodes over shm.  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/coll.sh

PLAN=26
. "$(dirname "$0")/lib.sh"

for run in shm:1 shm:2 shm:3 shm:5 shm:8 tcp:1 tcp:2 tcp:3 tcp:5 tcp:8 \
    udp:2 udp:3 shm:16; do
    prov=${run%:*} nodes=${run#*:}
    job "coll $prov n=$nodes" 90 $nodes $prov prog_coll
    expect_ok "coll $prov n=$nodes: reductions, scans, broadcasts, concat, barriers, global OR correct on every node"
    left_behind
done
finish
