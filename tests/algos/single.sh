#!/bin/sh
# wang1993's AC, LP, RS_N and RS_NH through prog_a2av (every byte checked
# on every node) on 1, 2, 3, 5, 8 and 16 nodes over shm and tcp, with the
# algorithms' options, recv=am/concat, interrupts, repeated calls, AC
# with CMMD's asynchronous slots nearly exhausted (prog_single), a bad
# option and counts the nodes disagree on.  Asserts the step counts (LP: 2^ceil(log2 P) - 1 with
# xor_skip, P - 1 with shift), RS_N's phases between the largest
# fan-in/out h and 2h - 1 (every phase a maximal matching; exact on
# hotspot and permutation), and that every algorithm moves the same
# messages and bytes for the same matrix.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/algos/single.sh

PLAN=43
: "${abs_top_builddir:=$(pwd)}"
CM5RUN=$abs_top_builddir/tools/cm5run
PROG=$abs_top_builddir/tests/algos/prog_a2av
PROG_SLOTS=$abs_top_builddir/tests/algos/prog_single

. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/algos/lib.sh"

# job DESCRIPTION NODES PROVIDER ALG ARGS...: run it and check it worked.
job() {
    desc=$1
    shift
    run 40 "$@"
    check "$desc ($ms ms)" good
}

# ---- AC ----------------------------------------------------------------
job "ac p=1 shm: nothing to send" 1 shm ac --matrix random
job "ac p=3 shm: random matrix, 3 calls" 3 shm ac --matrix random --reps 3
check "ac: one phase" '[ "$(val phases)" = 1 ]'
job "ac p=8 shm: full matrix, 2 calls" 8 shm ac --matrix full --max 40 \
    --reps 2
check "ac p=8: 56 messages" '[ "$(val msgs)" = 56 ]'
job "ac p=5 tcp: random matrix, recv=concat" 5 tcp ac --matrix random \
    -o recv=concat

# AC with one asynchronous receive slot and one send slot left (127 of
# CMMD's 128 held by messages that finish only afterwards), 3 calls.
PROG_SAVE=$PROG
PROG=$PROG_SLOTS
run 40 5 shm 127 3
PROG=$PROG_SAVE
check "ac p=5 shm: one asynchronous slot each way, 3 calls correct ($ms ms)" \
    '[ "$rc" -eq 0 ] && grep -qx "ok held=127 available_receives=1" out'

# ---- LP ----------------------------------------------------------------
job "lp p=8 shm: exact d=3, lp_barrier=1" 8 shm lp --matrix exact \
    --density 3 -o lp_barrier=1
check "lp p=8: 7 steps" '[ "$(val phases)" = 7 ]'
job "lp p=5 tcp: hotspot, lp_nonpow2=shift" 5 tcp lp --matrix hotspot \
    -o lp_nonpow2=shift
check "lp p=5 shift: 4 steps" '[ "$(val phases)" = 4 ]'
job "lp p=3 shm: zero matrix" 3 shm lp --matrix zero
check "lp p=3: 3 steps even with nothing to send" '[ "$(val phases)" = 3 ]'
job "lp p=2 tcp: permutation, 2 calls" 2 tcp lp --matrix permutation \
    --reps 2
check "lp p=2: 1 step" '[ "$(val phases)" = 1 ]'

# ---- RS_N --------------------------------------------------------------
job "rsn p=8 shm: exact d=3, recv=am, 2 calls" 8 shm rsn --matrix exact \
    --density 3 -o recv=am --reps 2
check "rsn p=8 d=3: 3 to 5 phases, 24 messages" \
    '[ "$(val phases)" -ge 3 ] && [ "$(val phases)" -le 5 ] &&
     [ "$(val msgs)" = 24 ]'
job "rsn p=5 shm: permutation, longest first, phase barrier" 5 shm rsn \
    --matrix permutation -o rsn_row_order=longest -o rsn_phase_barrier=1 \
    --reps 3
check "rsn: a permutation takes at most one phase" \
    '[ "$(val phases)" -le 1 ]'
job "rsn p=5 tcp: hotspot, fixed order" 5 tcp rsn --matrix hotspot \
    -o rsn_row_order=fixed
check "rsn hotspot p=5: 4 phases" '[ "$(val phases)" = 4 ]'
job "rsn p=2 shm: zero matrix" 2 shm rsn --matrix zero
check "rsn zero: no phase" '[ "$(val phases)" = 0 ]'
job "rsn p=16 shm: exact d=4" 16 shm rsn --matrix exact --density 4
check "rsn p=16 d=4: 4 to 7 phases, 64 messages" \
    '[ "$(val phases)" -ge 4 ] && [ "$(val phases)" -le 7 ] &&
     [ "$(val msgs)" = 64 ]'

# ---- RS_NH -------------------------------------------------------------
job "rsnh p=3 shm: full, quantile:0.5, recv=concat" 3 shm rsnh \
    --matrix full -o rsnh_cutoff=quantile:0.5 -o recv=concat
job "rsnh p=8 shm: hotspot, no cutoff" 8 shm rsnh --matrix hotspot \
    -o rsnh_cutoff=none
check "rsnh hotspot p=8: 7 phases, 7 messages" \
    '[ "$(val phases)" = 7 ] && [ "$(val msgs)" = 7 ]'
job "rsnh p=5 tcp: exact d=2, quantile:0.9, recv=am" 5 tcp rsnh \
    --matrix exact --density 2 -o rsnh_cutoff=quantile:0.9 -o recv=am
job "rsnh p=5 shm: uniform d=3 (nothing is cut)" 5 shm rsnh \
    --matrix uniform --density 3 --max 20
check "rsnh uniform: 15 messages of 20 bytes" \
    '[ "$(val msgs)" = 15 ] && [ "$(val bytes)" = 300 ]'

# ---- one full matrix through all four: same messages and bytes ---------
job "ac p=5 shm: full, interrupts=1, recv=am" 5 shm ac --matrix full \
    --max 30 --seed 7 -o interrupts=1 -o recv=am
msgs_ac=$(val msgs) bytes_ac=$(val bytes)
job "lp p=5 shm: full, 2 calls" 5 shm lp --matrix full --max 30 --seed 7 \
    --reps 2
check "lp p=5 xor_skip: 7 steps" '[ "$(val phases)" = 7 ]'
msgs_lp=$(val msgs) bytes_lp=$(val bytes)
job "rsn p=5 shm: full, recv=concat" 5 shm rsn --matrix full --max 30 \
    --seed 7 -o recv=concat
check "rsn full p=5: 4 to 7 phases" \
    '[ "$(val phases)" -ge 4 ] && [ "$(val phases)" -le 7 ]'
msgs_rsn=$(val msgs) bytes_rsn=$(val bytes)
job "rsnh p=5 shm: full, critical cutoff, 2 calls" 5 shm rsnh \
    --matrix full --max 30 --seed 7 -o rsnh_cutoff=critical --reps 2
msgs_rsnh=$(val msgs) bytes_rsnh=$(val bytes)
check "full p=5: ac, lp, rsn move 20 messages, rsnh at least 20" \
    '[ "$msgs_ac" = 20 ] && [ "$msgs_lp" = 20 ] && [ "$msgs_rsn" = 20 ] &&
     [ "$msgs_rsnh" -ge 20 ]'
check "full p=5: every algorithm moves the same bytes" \
    '[ -n "$bytes_ac" ] && [ "$bytes_lp" = "$bytes_ac" ] &&
     [ "$bytes_rsn" = "$bytes_ac" ] && [ "$bytes_rsnh" = "$bytes_ac" ]'

# ---- a bad option: one clear line and a non-zero exit ------------------
run 20 2 shm rsnh --matrix random -o rsnh_cutoff=bogus
check "rsnh_cutoff=bogus: non-zero exit, the one error names option and value" \
    '[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && ! grep -qx ok out &&
     grep -q "error.*rsnh_cutoff: .bogus. is not critical" err &&
     [ "$(grep " error " err | grep -vc "rsnh_cutoff: .bogus.")" = 0 ]'

# ---- counts the nodes disagree on: one clear error, no hang -------------
PROG=$PROG_SLOTS
run 30 3 shm bad rsn
check "rsn with disagreeing counts: stops naming the pair ($ms ms)" \
    '[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && ! grep -q unnoticed out &&
     grep -q "error cm5_sched_alltoallv(rsn): node 1 sends node 0 3 elements, but recvcounts\[1\] there is 5" err'
run 30 3 shm bad ac
check "ac with disagreeing counts: stops naming the pair ($ms ms)" \
    '[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && ! grep -q unnoticed out &&
     grep -q "error cm5_sched_alltoallv(ac): node 0 received 3 bytes from node 1, expected 5" err'
PROG=$PROG_SAVE

# ---- nothing left running in the scratch directory ---------------------
left=
for pid in $(pgrep -f -- "$abs_top_builddir/tests/algos/prog_"); do
    [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$scratch" ] &&
        left="$left $pid"
done
check "no process left behind" '[ -z "$left" ]'

echo "# $n tests in $(($(date +%s) - t_start)) s"
[ "$n" -eq "$PLAN" ] || echo "# planned $PLAN tests, ran $n"
