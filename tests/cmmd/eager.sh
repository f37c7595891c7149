#!/bin/sh
# Eager small messages (prog_eager, see its header): the eager budget per
# peer buffers exactly its bound of unexpected messages and sends the
# rest by rendezvous, mixed eager and rendezvous messages keep their
# order, receives posted first take eager messages without buffering,
# ANY_NODE/ANY_TAG receives and probes see them, CMMD_send_block stays
# synchronous, every size up to CM5_EAGER_MAX + 1 arrives whole, and the
# packets took the expected path (shm jobs: the same-host rings, which
# carry eager messages as records of several slots; eager_fab.sh runs the
# same over libfabric alone); on 2 and 3 nodes over shm and tcp and 3
# over udp with the default CM5_EAGER_MAX, with CM5_EAGER_MAX=0 (off),
# with interrupts enabled (CM5_INTERRUPTS=1), and on shm with
# CM5_EAGER_MAX=64.  A 100-byte
# message into a 50-byte receive, arrived before or after the receive,
# stops the job with the receiver's usual line.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/cmmd/eager.sh

PLAN=28
. "$(dirname "$0")/lib.sh"

counts() {
    sed -n 's/^prog_eager: node 0: \(.*\)$/# \1/p' out
}

for prov in shm tcp; do
    for nodes in 2 3; do
        job "eager $prov n=$nodes" 60 $nodes $prov prog_eager all
        counts
        expect_ok "eager $prov n=$nodes: bound, order, posted, ANY_NODE and sync right"
        left_behind
    done
    export CM5_EAGER_MAX=0
    job "eager off $prov n=3" 60 3 $prov prog_eager all
    counts
    expect_ok "eager off $prov n=3 (CM5_EAGER_MAX=0): nothing eager, messages right"
    left_behind
    unset CM5_EAGER_MAX
    export CM5_INTERRUPTS=1
    job "eager irq $prov n=3" 60 3 $prov prog_eager all
    counts
    expect_ok "eager irq $prov n=3 (CM5_INTERRUPTS=1): counts and messages right"
    left_behind
    unset CM5_INTERRUPTS
done
job "eager udp n=3" 90 3 udp prog_eager all
counts
expect_ok "eager udp n=3 (ofi_rxd): bound, order, posted, ANY_NODE and sync right"
left_behind
export CM5_EAGER_MAX=64
job "eager 64 shm n=3" 60 3 shm prog_eager all
counts
expect_ok "eager 64 shm n=3 (CM5_EAGER_MAX=64): counts and messages right"
left_behind
unset CM5_EAGER_MAX

cases='trunc_unexpected|1|CMMD_receive_block|message of 100 bytes from node 0 \(tag 5\) is longer than the receive buffer of 50 bytes on node 1
trunc_posted|1|CMMD_receive_async|message of 100 bytes from node 0 \(tag 5\) is longer than the receive buffer of 50 bytes on node 1'
tcp_modes='trunc_unexpected trunc_posted'
bad_cases "eager" prog_eager
finish
