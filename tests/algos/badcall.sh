#!/bin/sh
# Wrong calls of the scheduling library (prog_badcall MODE, 2 nodes; issue
# 10, item 8): the argument checks of algos/sched.c (cm5_sched_generate_recv
# and cm5_sched_alltoallv) and the fatal paths of run_drs.c and
# run_twostage.c that a wrong call can reach.  Each gives exactly one line
# "cm5[<node>:<pid>] error <call>: <message>" from the node that detects
# it, exits 1 without hanging and leaves nothing behind.  Not reached from
# a call (they need a corrupted or forged message): DRS_N's "data landed
# ... not granted / outside a call" and "RELEASE ... it does not hold",
# two-stage's malformed header, slot overflow and 32-bit header words.
# TAP output.
#
#   abs_top_builddir=BUILD sh tests/algos/badcall.sh

A='cm5_sched_alltoallv'
# MODE|NODE|CALL|MESSAGE (extended regular expressions)
cases="recv_null|1|cm5_sched_generate_recv|sendcounts is NULL
recv_method|1|cm5_sched_generate_recv|method 7 is neither CM5_SCHED_RECV_AM nor CM5_SCHED_RECV_CONCAT
alg|1|$A|unknown algorithm 99
counts_null|1|$A\(lp\)|recvcounts is NULL
elem0|1|$A\(lp\)|opts->elem_size is 0
rdispls_discovered|1|$A\(ac\)|rdispls must be NULL when recvcounts are discovered \(opts->recv 1\)
buf_null|1|$A\(lp\)|sendbuf is NULL
self_mismatch|1|$A\(lp\)|node 1 sends itself 1 elements but expects 2 from itself
capacity|1|$A\(ac\)|node 1 receives 4 elements, more than opts->recv_capacity \(2\)
drs_chunk|1|$A\(drsn\)|drs_chunk_max 0 is not in 1\.\.2147483647 bytes
drs_overflow|1|$A\(drsn\)|3 elements of 9223372036854775807 bytes to or from node 0 overflow
drs_mismatch|0|$A\(drsn\)|node 1 sends node 0 a piece of 3 bytes at byte 0 \(its last\) but node 0 expects 2 elements \(2 bytes\) from it: send and receive counts do not match
drs_finished|0|$A\(drsn\)|node 1 asks node 0 to take 2 bytes in call #1, which node 0 has finished: send and receive counts do not match
ts_toolong|1|$A\(two-stage\)|the stage-1 message for node 0 would be 2147483660 bytes, longer than a CMMD message \(2147483647 bytes\)
ts_mismatch|0|$A\(two-stage\)|node 0: node 1 forwards elements 2\.\.3 from node 1, which sends only 2"
tcp_modes='drs_mismatch ts_mismatch'

PLAN=$((($(echo "$cases" | wc -l) + 2) * 2))
. "$(dirname "$0")/../cmmd/lib.sh"
PROGS=$abs_top_builddir/tests/algos

bad_cases "badcall" prog_badcall
finish
