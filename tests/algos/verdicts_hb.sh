#!/bin/sh
# bench/verdicts.py on hambrusch CSVs made up for the test (cm5sched
# --bcast's columns): Fig. 9's ordering and Fig. 5's Br_Lin claim hold or
# do not with the numbers shown, the MPI reference is quoted, and without
# the CSVs the claims are "not computed".  TAP.
#
#   abs_top_srcdir=SRC sh tests/algos/verdicts_hb.sh

: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
V=$abs_top_srcdir/bench/verdicts.py

. "$(dirname "$0")/../tap.sh"
tap_begin cm5verdicts_hb 4
if ! command -v python3 >/dev/null 2>&1; then
    for i in 1 2 3 4; do skip "verdicts_hb $i" "no python3"; done
    exit 0
fi

H=workload,matrix,matrix_seed,p,provider,alg,size,elem_size,msg_bytes_per_unit,rep,t_units,total_s,comm_s,sched_s,recv_s,phases,max_concurrent_in,msgs,bytes,msgs_recv,bytes_recv,inquiries,denials,nstages,stage1_steps,stage1_msgs,stage1_maxlen,stage2_steps,stage2_msgs,stage2_maxlen,stage3_steps,stage3_msgs,stage3_maxlen,stage4_steps,stage4_msgs,stage4_maxlen,gather_s,copy_s,sbuf_units,rbuf_units,mesh,s,auto_picks
# row WORKLOAD ALG COMM_S
row() {
    echo "\"$1\",0,1,64,\"shm\",$2,2048,1,2048,0,15,$3,$3,0,0,3,0,1,1,1,1,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,8x8,15,repos"
}
mk() { # DIR REPOS DIRECT PART BRLIN_ON_BLOCK
    mkdir -p "$1"
    { echo $H; row cross:s=15 repos "$2"; row cross:s=15 br_xy_source "$3"
      row cross:s=15 part_xy_source "$4"; } >"$1/hb_fig9.csv"
    { echo "workload,p,mesh,alg,size,comm_s,sched_s,total_s"
      echo '"cross:s=15",64,8x8,mpi_allgatherv,2048,0.002,0,0.002'; } \
        >"$1/hb_fig9_mpi.csv"
    { echo $H; row block:s=30 br_lin "$5"; row block:s=30 br_xy_source 0.004
      row block:s=30 br_xy_dim 0.005; } >"$1/hb_fig5.csv"
}
mk good 0.0041 0.0045 0.0048 0.003
mk bad 0.0050 0.0045 0.0048 0.006
python3 "$V" good >good.out 2>&1
python3 "$V" bad >bad.out 2>&1
mkdir none && python3 "$V" none >none.out 2>&1
line() { grep -F "$2" "$1.out"; }
check "Fig. 9: repos 4.1 < direct 4.5 < part 4.8 ms holds, with MPI quoted" \
    'line good "Repos < direct" | grep -q "repos 4.1, br_xy_source 4.5, part_xy_source 4.8 ms; Open MPI MPI_Allgatherv on cross 2 ms.*\*\*holds\*\*"'
check "Fig. 9: repos 5.0 ms above direct does not hold" \
    'line bad "Repos < direct" | grep -q "\*\*does not hold\*\*"'
check "Fig. 5: Br_Lin best on block holds at 3 ms, not at 6 ms" \
    'line good "Br_Lin best on block" | grep -q "br_lin 3, br_xy_source 4, br_xy_dim 5 ms.*\*\*holds\*\*" &&
     line bad "Br_Lin best on block" | grep -q "\*\*does not hold\*\*"'
check "without the hambrusch CSVs the claims are not computed" \
    '[ "$(grep -c "^| hambrusch.*no CSV (hb not run).*not computed" none.out)" -ge 6 ]'
