#!/bin/sh
# The CMAML extras of <cm/cmmd/amx.h> (prog_amx): one-channel polls,
# consuming waits, tags, element-wise rports, on 2, 4 and 5 nodes over
# shm and tcp; then the wrong calls (prog_amx MODE, 2 nodes, shm, two of
# them over tcp too), each one error line naming the call and exit 1.
# TAP output.
#
#   abs_top_builddir=BUILD sh tests/cmmd/amx.sh

# MODE|NODE|CALL|MESSAGE (an extended regular expression)
cases='tag_16|1|CMAML_allocate_this_tag|tag 16 does not exist \(tags are 0\.\.15\)
free_tag_-1|1|CMAML_free_tag|tag -1 does not exist \(tags are 0\.\.15\)
esize_negative|1|CMAML_set_rport_esize|negative element size -4
esize_unallocated|1|CMAML_get_rport_esize|rport 20 is not allocated
allocated_200|1|CMAML_get_rport_allocated|rport 200 does not exist \(rports are 0\.\.127\)
addri_-1|1|CMAML_get_rport_addri|rport -1 does not exist \(rports are 0\.\.127\)
wait_null|1|CMAML_wait|flag is a null pointer
stride_small|0|CMAML_scopy|rport 3 on node 0 has elements of 8 bytes every 4 bytes: the stride is smaller than the element \(node 1 sent 16 bytes\)
ecount_past|0|CMAML_scopy|12 bytes from node 1 at offset 4 pass the 3 elements of 4 bytes of rport 3 on node 0'
tcp_modes='stride_small ecount_past'

PLAN=$((6 * 2 + ($(echo "$cases" | wc -l) + 2) * 2))
. "$(dirname "$0")/lib.sh"

for run in shm:2 shm:4 shm:5 tcp:2 tcp:4 tcp:5; do
    prov=${run%:*} nodes=${run#*:}
    job "amx $prov n=$nodes" 90 $nodes $prov prog_amx
    expect_ok "amx $prov n=$nodes: request/reply polls count exactly, waits consume, 16 tags, strided scopy byte for byte"
    left_behind
done

bad_cases "amx bad" prog_amx
finish
