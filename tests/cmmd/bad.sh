#!/bin/sh
# Wrong calls (prog_bad MODE, 2 nodes): each must give exactly one line
# "cm5[<node>:<pid>] error <call>: <message>" naming the call and the
# fault, from the node that detects it (its pid as cm5run reports it),
# plus cm5run's own line; the job exits 1 without hanging (within 18 s
# of its 20 s limit, start-up included: make -j2 check runs two
# multi-node tests at once on a loaded machine) and leaves nothing
# behind.  All modes over shm, a few over tcp.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/cmmd/bad.sh

# MODE|NODE|CALL|MESSAGE (an extended regular expression)
cases='scopy_unallocated|0|CMAML_scopy|node 1 sent 64 bytes to rport 5 of node 0, which is not allocated
scopy_past_counter|0|CMAML_scopy|60 bytes from node 1 at offset 60 pass the byte counter of rport 3 on node 0 \(40 bytes left\)
free_rport_128|1|CMAML_free_rport|rport 128 does not exist \(rports are 0\.\.127\)
free_rport_-1|1|CMAML_free_rport|rport -1 does not exist \(rports are 0\.\.127\)
scopy_rport_128|1|CMAML_scopy|rport 128 does not exist \(rports are 0\.\.127\)
scopy_rport_-1|1|CMAML_scopy|rport -1 does not exist \(rports are 0\.\.127\)
free_twice|1|CMAML_free_rport|rport 17 is not allocated \(freed twice\?\)
receive_too_short|1|CMMD_receive_block|message of 100 bytes from node 0 \(tag 5\) is longer than the receive buffer of 50 bytes on node 1
combiner|1|CMMD_reduce_int|invalid combiner 99
combiner_float|1|CMMD_reduce_double|combiner 14 \(a bitwise operation\) is invalid for floating-point values
combiner_v|1|CMMD_reduce_v|invalid combiner 42
scan_direction|1|CMMD_scan_int|invalid scan direction 7
scan_segment_mode|1|CMMD_scan_int|invalid segment mode 9
scan_inclusion|1|CMMD_scan_double|invalid inclusion 5
timer_64|1|CMMD_node_timer_start|timer 64 does not exist \(timers are 0\.\.63\)
timer_-1_unsafe|1|CMMD_node_timer_elapsed|timer -1 does not exist \(timers are 0\.\.63\)
send_node|1|CMMD_send_block|node 2 is outside the partition \(0\.\.1\)
receive_node|1|CMMD_receive_block|node -2 is outside the partition \(0\.\.1\)
scopy_node|1|CMAML_scopy|node 2 is outside the partition \(0\.\.1\)
send_length|1|CMMD_send_block|negative length -1
receive_length|1|CMMD_receive_block|negative length -8
scopy_length|1|CMAML_scopy|bad transfer \(offset 0, -5 bytes from 0x[0-9a-f]+\)
bc_length|1|CMMD_bc_to_nodes|bad buffer \(0x[0-9a-f]+, -3 bytes\)
send_tag|1|CMMD_send_noblock|tag -5 is not a valid message tag
cmmd_error|1|CMMD_error|legacy failure 42 at step three
fault_while_busy|1|CMMD_node_timer_stop|timer -7 does not exist \(timers are 0\.\.63\)
mcb_freed|1|CMMD_mcb_bytes|MCB 1 is not a live message control block \(freed with CMMD_free_mcb\)
mcb_errval|1|CMMD_msg_wait|MCB -1 is not a live message control block \(CMMD_ERRVAL: the call that returned it failed\)
mcb_probe_wait|1|CMMD_msg_wait|MCB 1 describes a pending message \(CMMD_mcb_pending\), not a send or receive'
# Over tcp a node sees its peers' sockets close: these modes check that
# the survivors do not report the failure a second time (fault_while_busy:
# 3 nodes, 2 of them sending requests to the one that faults).
tcp_modes='scopy_past_counter receive_too_short fault_while_busy:3'

PLAN=$((($(echo "$cases" | wc -l) + 3) * 2))
. "$(dirname "$0")/lib.sh"

bad_cases "bad" prog_bad
finish
