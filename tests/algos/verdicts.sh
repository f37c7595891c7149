#!/bin/sh
# bench/verdicts.py computes each verdict from the CSVs (issue 10, item
# 5): on made-up CSVs whose answers are known, each claim is printed with
# its numbers and turns from "holds" to "does not hold" when the numbers
# do; the status table names every paper.  TAP output.
#
#   abs_top_srcdir=SRC sh tests/algos/verdicts.sh

: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
V=$abs_top_srcdir/bench/verdicts.py

. "$(dirname "$0")/../tap.sh"
tap_begin cm5verdicts 15
if ! command -v python3 >/dev/null 2>&1; then
    for i in $(seq 15); do skip "verdicts $i" "no python3"; done
    exit 0
fi

H=workload,matrix,matrix_seed,p,provider,alg,size,elem_size,msg_bytes_per_unit,rep,t_units,total_s,comm_s,sched_s,recv_s,phases,max_concurrent_in,msgs,bytes,msgs_recv,bytes_recv,inquiries,denials,nstages,stage1_steps,stage1_msgs,stage1_maxlen,stage2_steps,stage2_msgs,stage2_maxlen,stage3_steps,stage3_msgs,stage3_maxlen,stage4_steps,stage4_msgs,stage4_maxlen,gather_s,copy_s,sbuf_units,rbuf_units
# row ALG RECV_S TOTAL PHASES S1MSGS [SBUF RBUF]: one line (p = 16, C = 4,
# t = 4 units, M_max 1024).
row() {
    echo "\"w\",0,1,16,\"shm\",$1,16,1,16,0,4,$3,$3,0,$2,$4,1,0,0,0,0,0,0,4,0,$5,0,0,2,0,0,2,0,0,2,0,0,0,${6:-0},${7:-0}"
}
# rowp WORKLOAD P ALG TOTAL: a liu2002 sweep line.
rowp() {
    echo "\"$1\",0,1,$2,\"shm\",$3,1,48,48,0,4,$4,$4,0,0,1,1,0,0,0,0,0,0,4,0,0,0,0,2,0,0,2,0,0,2,0,0,0,0,0"
}
mksweep() { # DIR A4_B A4_N1 A4_N2 A3_SQ
    { echo $H; for w in pattern1:m=64 pattern2:m=4096; do
        rowp $w 16 a1 0.5; rowp $w 16 a2 0.4; rowp $w 16 a3 0.3
        rowp $w 16 a4 "$2"; done; } >"$1/lium_b.csv"
    { echo $H; rowp pattern2:m=4096 16 a4 "$3"; } >"$1/lium_n1.csv"
    { echo $H; rowp pattern2:m=4096 16 a4 "$4"; } >"$1/lium_n2.csv"
    { echo $H; rowp pattern1:m=4096 25 a3 "$5"; rowp pattern1:m=4096 25 a4 0.2
    } >"$1/liusq_p25.csv"
    { echo $H; rowp pattern1 8 a1 0.5; rowp pattern1 8 a2 0.4
      rowp pattern1 8 a4 "$2"; } >"$1/liup_p8.csv"
}
mk() { # DIR AM_RECV CONCAT_RECV A4_TOTAL A4_S1MSGS A4_RBUF A1_SBUF AM8 AM16
    mkdir -p "$1"
    for d in 4 16 31; do
        { echo $H; row lp "$2" 1 15 0; } >"$1/t3_am_d$d.csv"
        { echo $H; row lp "$3" 1 15 0; } >"$1/t3_concat_d$d.csv"
    done
    { echo $H; row lp "$2" 1 15 0; } >"$1/t3_n256_am_d4.csv"
    # n = 256, d = 8 and 16: AM grows with d (good) or falls at 16 (bad)
    { echo $H; row lp "$8" 1 15 0; } >"$1/t3_n256_am_d8.csv"
    { echo $H; row lp "$9" 1 15 0; } >"$1/t3_n256_am_d16.csv"
    { echo $H; row lp "$3" 1 15 0; } >"$1/t3_n256_concat_d4.csv"
    { echo $H; row a1 0 0.5 15 0 "$7" 4; row a2 0 0.4 30 0 4 3
      row a4 0 "$4" 18 "$5" 2 "$6"; } >"$1/liu_m1024.csv"
}
mk good 0.001 0.002 0.1 5 4 16384 0.0015 0.0025
mk bad 0.003 0.002 0.9 6 133 16385 0.004 0.0035
mksweep good 0.2 0.3 0.1 0.4
mksweep bad 0.35 0.3 0.4 0.1
python3 "$V" good >good.out 2>&1
python3 "$V" bad >bad.out 2>&1
line() { grep -F "$2" "$1.out"; }
check "AM 1 ms against concatenate 2 ms: holds, with the numbers" \
    'line good "AM beats concatenate at every d" | grep -q "d=4: AM 1 / concat 2 ms.*\*\*holds\*\*"'
check "AM 3 ms against concatenate 2 ms: does not hold" \
    'line bad "AM beats concatenate at every d" | grep -q "\*\*does not hold\*\*"'
check "n = 256 (Table 3 on tcp): AM 1 ms against concatenate 2 ms holds, 3 ms does not" \
    'line good "AM beats concatenate at n = 256, d = 4" | grep -q "AM 1, concat 2 ms.*\*\*holds\*\*" &&
     line bad "AM beats concatenate at n = 256, d = 4" | grep -q "\*\*does not hold\*\*"'
check "n = 256: AM 1 < 1.5 < 2.5 ms grows with d (holds, the paper's figures at the d run named: 2.67 -> 3.07 ms); 3 < 4 > 3.5 does not" \
    'line good "AM grows with d at n = 256" | grep -q "(paper 2.67 -> 3.07 ms) | 1 < 1.5 < 2.5 ms.*\*\*holds\*\*" &&
     line bad "AM grows with d at n = 256" | grep -q "3 < 4 < 3.5 ms.*\*\*does not hold\*\*"'
check "A4 100 ms against A1 500, A2 400: holds; A4 900 ms: does not" \
    'line good "A4 < A1 and A4 < A2" | grep -q "a4 100, a2 400, a1 500 ms.*\*\*holds\*\*" &&
     line bad "A4 < A1 and A4 < A2" | grep -q "\*\*does not hold\*\*"'
check "Table 2 counts: 5 = C + 1 messages holds, 6 does not" \
    'line good "A4 stage messages" | grep -q "0 of 1 runs over.*\*\*holds\*\*" &&
     line bad "A4 stage messages" | grep -q "1 of 1 runs over.*\*\*does not hold\*\*"'
check "Table 4: A4 rBUF 4 = C^2 L/P holds (ratio 1.00), 133 = 4 + 2 C P + 1 does not (33.25)" \
    'line good "Table 4, A4: sBUF <= C^2 L/P, rBUF <= C^2 L/P (L = t; + less than 2 C P" | grep -q "sBUF 0.50, rBUF 1.00; 0 of 14 above the plain bound (largest excess 0 elements), 0 beyond the rounding (P = 8, 16, 25).*\*\*holds\*\*" &&
     line bad "Table 4, A4" | grep -q "rBUF 33.25; 1 of 14 above the plain bound (largest excess 129 elements), 1 beyond the rounding.*\*\*does not hold\*\*"'
check "Table 4: A1 sBUF 16384 = M_max P holds, 16385 does not; A2 holds in both" \
    'line good "Table 4, A1: sBUF <= M_max P, rBUF <= L" | grep -q "sBUF 1.00, rBUF 1.00.*\*\*holds\*\*" &&
     line bad "Table 4, A1" | grep -q "\*\*does not hold\*\*" &&
     line bad "Table 4, A2: sBUF <= L, rBUF <= L" | grep -q "sBUF 1.00, rBUF 0.75.*\*\*holds\*\*"'
check "sections without CSVs are reported as not run, not as verdicts" \
    'line good "wang1993 T4" | grep -q "no CSV (t4 not run).*not computed"'
check "liu2002 sweeps: A4 0.2 s lowest holds (Figs 15-18), 0.35 s under A3 does not; Fig 19 and 20 are opposite claims" \
    'line good "Figs 15/17, P = 8: A4 < A1" | grep -q "\*\*holds\*\*" &&
     line good "Figs 16/18, P = 16, pattern2:m=4096: A4 lowest" | grep -q "a4 200, a3 300, a2 400, a1 500 ms.*\*\*holds\*\*" &&
     line bad "Figs 16/18, P = 16, pattern2:m=4096: A4 lowest" | grep -q "\*\*does not hold\*\*" &&
     line good "Fig 19 (T3D), P = 16, pattern1:m=64: A3 < A4" | grep -q "\*\*does not hold\*\*" &&
     line bad "Fig 20 (T3D), P = 16, pattern2:m=4096: A4 < A3" | grep -q "\*\*does not hold\*\*" &&
     ! grep -q "Fig 19 (T3D), P = 16, pattern2:m=4096" good.out &&
     ! grep -q "Fig 20 (T3D), P = 16, pattern1" good.out'
check "liu2002 modes: A4-n2 0.1 s against n1 0.3 s holds, 0.4 s does not; Fig 23 at P = 25" \
    'line good "Figs 21/22 (SP2), P = 16, pattern2:m=4096: A4-n2 < A4-n1" | grep -q "n2 100, n1 300 ms.*\*\*holds\*\*" &&
     line bad "Figs 21/22 (SP2), P = 16, pattern2:m=4096" | grep -q "\*\*does not hold\*\*" &&
     line good "Fig 23 (SP2), P = 25, pattern1:m=4096: A4-n2 < A3" | grep -q "A4-n2 200, A3 400 ms.*\*\*holds\*\*" &&
     line bad "Fig 23 (SP2), P = 25" | grep -q "\*\*does not hold\*\*"'
# --cells: Generate_Recv 1 ms against the CM-5's 0.455 / 0.743 / 1.114
# at n = 32 (d = 16 calibrates irq) and 2.67 at n = 256; concatenate 2
# ms (calibration); the CM-5's partitions only (good's rows are p = 16)
python3 "$V" --cells good >cells16.out 2>&1
mkdir cells
for f in good/t3_*.csv; do
    case $f in *n256*) p=256 ;; *) p=32 ;; esac
    sed "s/^\"w\",0,1,16,/\"w\",0,1,$p,/" "$f" >"cells/${f#good/}"
done
python3 "$V" --cells cells >cells.out 2>&1
check "--cells: each cell with its error; d = 31 and n = 256 d = 16 within 25 %, d = 4 and n = 256 d = 4, 8 not, d = 16 and concatenate apart as calibration: 2 of 5; none from 16-node runs" \
    'grep -q "| T3 | AM n=32 d=4 | 16 | 0.455 | 1 | +120 % | \*\*no\*\* |" cells.out &&
     grep -q "| T3 | AM n=32 d=31 | 16 | 1.114 | 1 | -10 % | yes |" cells.out &&
     grep -q "| T3 | AM n=32 d=16 | 16 | 0.743 | 1 | +35 % | (calibration: irq) |" cells.out &&
     grep -q "| T3 | AM n=256 d=4 | 16 | 2.671 | 1 | -63 % | \*\*no\*\* |" cells.out &&
     grep -q "| T3 | AM n=256 d=16 | 16 | 3.066 | 2.5 | -18 % | yes |" cells.out &&
     grep -q "^Validation: 2 of 5 cells within 25 % (40 %; goal 80 %); 3 calibration cells apart.$" cells.out &&
     grep -q "^No cell of wang1993 Tables 2-6 in this run (they need its 32 nodes" cells16.out'
python3 "$V" --status good >status.out 2>&1
check "the status table names all five papers" \
    '[ "$(cut -d"|" -f2 status.out | sed 1,2d | sort -u | wc -l)" -eq 5 ]'
check "the status table gives Table 3 at n = 256 when its CSVs are there, and how to run it when not" \
    'grep -q "Table 3 (recvl: AM vs concatenate) | rerun at n = 32, 256 |" status.out &&
     rm -f bad/t3_n256_*.csv && python3 "$V" --status bad | grep -q "rerun at n = 32; n = 256 not in this run.*--table3-nodes \"64 128 256\", the default, runs it"'
check "the status table gives the P and M_max of the liu2002 sweeps" \
    'grep -q "Figs 15/17 (P varied) | rerun in blocking mode at P = 8 " status.out &&
     grep -q "rerun at P = 16, M_max = 64, 4096; A4 in modes b, n1, n2" status.out &&
     grep -q "Fig 23 (A3 vs A4 on square P) | rerun at P = 25 |" status.out'
