#!/bin/sh
# The strided (_v) point-to-point calls of <cm/cmmd/mp.h> (prog_mpv):
# every call, elements and gaps byte for byte, on 1, 2, 3 and 5 nodes
# over shm and tcp; then the wrong calls (prog_mpv MODE, 2 nodes, shm,
# two of them over tcp too), each one error line naming the call and
# exit 1.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/cmmd/mpv.sh

# MODE|NODE|CALL|MESSAGE (an extended regular expression)
cases='stride_small|1|CMMD_send_v|stride 4 is smaller than the element length 8
elen_negative|1|CMMD_receive_v|negative element length -4
count_negative|1|CMMD_send_block_v|negative element count -1
null_buffer|1|CMMD_send_noblock_v|buffer is a null pointer for 3 elements of 4 bytes
too_big|1|CMMD_receive_async_v|1048576 elements of 4096 bytes are more than 2147483647 bytes
node_7|1|CMMD_send_async_v|node 7 is outside the partition \(0\.\.1\)
tag_negative|1|CMMD_send_and_receive_v|tag -3 is not a valid message tag
too_long|0|CMMD_receive_block_v|message of 16 bytes from node 1 \(tag 5\) is longer than the receive buffer of 8 bytes on node 0'
tcp_modes='stride_small too_long'

PLAN=$((8 * 2 + ($(echo "$cases" | wc -l) + 2) * 2))
. "$(dirname "$0")/lib.sh"

for run in shm:1 shm:2 shm:3 shm:5 tcp:1 tcp:2 tcp:3 tcp:5; do
    prov=${run%:*} nodes=${run#*:}
    job "mpv $prov n=$nodes" 90 $nodes $prov prog_mpv
    expect_ok "mpv $prov n=$nodes: every _v call, elements in place and gaps untouched"
    left_behind
done

bad_cases "mpv bad" prog_mpv
finish
