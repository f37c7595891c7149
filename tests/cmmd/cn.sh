#!/bin/sh
# The control-network extras and CMUTIL_ names (prog_cn) on 1, 2, 5 and 8
# nodes over shm and tcp; then wrong calls (prog_cnbad MODE, 2 nodes over
# shm), each giving exactly one line "cm5[1:<pid>] error <call>:
# <message>" plus cm5run's own, exit 1 (no hang: within 18 s).  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/cn.sh

# MODE|CALL|MESSAGE (an extended regular expression)
cases='combiner|CMMD_reduce_int_start|invalid combiner 99
combiner_float|CMMD_scan_double_start|combiner 14 \(a bitwise operation\) is invalid for floating-point values
direction|CMCN_scan_uint_start|invalid scan direction 7
finish_without_start|CMMD_reduce_int_finish|no split-phase reduction was started
scan_finish_without_start|CMCN_scan_float_finish|no split-phase scan was started
second_start|CMMD_scan_uint_start|the split-phase scan started by CMMD_scan_int_start is still outstanding \(one at a time: finish it first\)
finish_other_type|CMMD_reduce_double_finish|the outstanding split-phase reduction was started by CMMD_reduce_int_start
scan_v_size|CMMD_scan_v|element size 4 does not fit combiner 3
scan_v_count|CMMD_scan_double_v|bad vector \(count -1, dest 0x[0-9a-f]+, source 0x[0-9a-f]+\)
segmented_mode|CMMD_segmented_reduce_uint|invalid segment mode 9
cmutil_error|CMUTIL_error|legacy failure 7
cmutil_internal_error|CMUTIL_internal_error|internal error: lost track'

PLAN=$((8 * 3 + $(echo "$cases" | wc -l) * 2))
. "$(dirname "$0")/lib.sh"

for run in shm:1 shm:2 shm:5 shm:8 tcp:1 tcp:2 tcp:5 tcp:8; do
    prov=${run%:*} nodes=${run#*:}
    job "cn $prov n=$nodes" 120 $nodes $prov prog_cn
    expect_ok "cn $prov n=$nodes: split-phase reductions and scans, segmented reduction, vector scans, CMUTIL_ names correct on every node"
    check "cn $prov n=$nodes: one CMUTIL_warning line per node" \
        '[ "$(grep -Ec "^cm5\[[0-9]+:[0-9]+\] warning CMUTIL_warning: prog_cn warning [0-9]+ of node [0-9]+$" err)" -eq "$nodes" ]'
    left_behind
done

echo "$cases" >cases
while IFS='|' read -r mode call msg; do
    job "cnbad $mode" 20 2 shm prog_cnbad "$mode"
    check "cnbad $mode: one line 'cm5[1:PID] error $call: ...', exit 1, no hang ($ms ms)" \
        '[ "$rc" -eq 1 ] && [ "$ms" -lt 18000 ] && one_error 1 "$call" "$msg"'
    left_behind
done <cases
finish
