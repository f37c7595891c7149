#!/bin/sh
# Virtual time (CM5_MODEL, doc/model.md) on 2, 4, 5 and 8 nodes: exact
# figures of the model's arithmetic seen from a CMMD program (prog_model),
# determinism, node timers in virtual time, and bad settings refused by
# cm5run with one line.  Computation is free (CM5_MODEL_CPU_SCALE=0) and
# a clock read costs nothing (clk=0), so every figure is exact.  The
# figures are the first model's, unsynchronised (CM5_MODEL_SYNC=off; the
# default, synchronised, has its own in vsync.sh).  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/model.sh

PLAN=64
. "$(dirname "$0")/lib.sh"

CM5_MODEL_CPU_SCALE=0 CM5_MODEL_SYNC=off
export CM5_MODEL_CPU_SCALE CM5_MODEL_SYNC
LOGP=logp:L=6,o=2.2,g=4,clk=0

# field N of the line of out starting with "prog_model: WORD"
val() { sed -n "s/^prog_model: $1 //p" out | cut -d' ' -f"$2"; }

# request/reply round trip: 2 (os + L + or)
for m in cm5:clk=0:18600 $LOGP:20800; do
    CM5_MODEL=${m%:*} want=${m##*:}
    export CM5_MODEL
    job "rtt $CM5_MODEL" 60 2 shm prog_model pingpong 20
    expect_ok "rtt $CM5_MODEL: ran"
    check "rtt $CM5_MODEL: one round trip is $want ns (got $(val rtt 1))" \
        '[ "$(val rtt 1)" = "$want" ]'
    left_behind
done

# k requests to one node: os + L + (k - 1) g + or under LogP
for nn in 2 4 8; do
    CM5_MODEL=$LOGP
    want=$((2200 + 6000 + (nn - 2) * 4000 + 2200))
    job "contention n=$nn" 60 $nn shm prog_model contention
    expect_ok "contention n=$nn: ran"
    check "contention n=$nn: the receiver is done after $want ns (got $(val contention 2))" \
        '[ "$(val contention 1)" = $((nn - 1)) ] &&
         [ "$(val contention 2)" = "$want" ]'
    left_behind
done

# a deterministic program gives the same virtual times twice
CM5_MODEL=cm5:clk=0
job "det run 1" 90 5 shm prog_model det
grep -E '^prog_model: node [0-9]+ (clock|scopy)' out | sort >det1
expect_ok "det run 1: ran"
job "det run 2" 90 5 shm prog_model det
grep -E '^prog_model: node [0-9]+ (clock|scopy)' out | sort >det2
expect_ok "det run 2: ran"
check "det: two runs, identical virtual times on every node ($(wc -l <det2) lines)" \
    '[ "$(wc -l <det1)" -eq 10 ] && cmp -s det1 det2'
left_behind

# node contention of a complete exchange (8 nodes, 4 KiB = P packets):
# naive, everyone's j-th send to node j (then j+1): node 7 takes the
# 7 messages of nodes 0..6 (their 7th sends) one after another;
# xor, one message into each node per step.  D = ms + P os is a send,
# RV = 2 (or + L) the rendezvous (RTS, CTS) before the data, S = P
# max(or, link) + mr a receipt, a step of xor ms + os + L + RV + S.
CM5_MODEL=cm5:clk=0
D=$((28300 + 256 * 1600)) RV=$((2 * (1700 + 6000))) S=$((256 * 1700 + 4300))
naive=$((6 * D + 28300 + 1600 + 6000 + RV + 7 * S))
xor=$((7 * (28300 + 1600 + 6000 + RV + S)))
for run in 1 2; do
    job "a2a run $run" 120 8 shm prog_model a2a 4096
    grep -E '^prog_model: node [0-9]+ (naive|reap|xor)' out | sort >a2a$run
    expect_ok "a2a run $run: ran"
done
check "a2a naive: the slowest node takes $naive ns (got $(val 'a2a naive' 1))" \
    '[ "$(val "a2a naive" 1)" = "$naive" ]'
check "a2a xor: the slowest node takes $xor ns (got $(val 'a2a xor' 1))" \
    '[ "$(val "a2a xor" 1)" = "$xor" ]'
check "a2a: two runs, identical virtual times on every node, all orders" \
    '[ "$(wc -l <a2a2)" -eq 24 ] && cmp -s a2a1 a2a2'
# reap sees its messages complete in real-time order, then all: as naive
check "a2a reap: every node ends as with CMMD_all_msgs_wait" \
    '[ "$(grep " naive " a2a2 | sed "s/ naive / x /")" = \
       "$(grep " reap " a2a2 | sed "s/ reap / x /")" ]'
left_behind
# A node that waits for its own virtual clock, polling (DRS_N's retry
# wait): 20 ms of virtual time are 20000 clock reads, which must not each
# sleep in real time (they backed off to 5 ms sleeps: minutes).  8 nodes
# on 2 cores; the bound only catches the crawl.
CM5_MODEL=cm5
job "clockwait" 120 8 shm prog_model clockwait 20
expect_ok "clockwait: ran"
slow=$(sed -n 's/^prog_model: node [0-9]* clockwait \([0-9]*\) \([0-9]*\)$/\1 \2/p' out |
    awk '$1 < 20000000 || $2 > 10000 { n++ } END { print n + 0 }')
check "clockwait: 8 nodes wait 20 ms of virtual time polling, each in under 10 s ($(grep -c ' clockwait ' out) lines, $slow slow)" \
    '[ "$(grep -c " clockwait " out)" -eq 8 ] && [ "$slow" -eq 0 ]'
left_behind

# The same with the clock reads of the program priced (clk = 1 us): the
# runtime's own probes must not read the program's clock (a scan of MCBs
# once charged 1 us per probe, so reap ended later than naive, by as
# many microseconds as the host made it probe).
CM5_MODEL=cm5
job "a2a clk" 120 8 shm prog_model a2a 4096
grep -E '^prog_model: node [0-9]+ (naive|reap)' out | sort >a2aclk
expect_ok "a2a clk: ran"
check "a2a clk = 1 us: reap still ends as naive on every node" \
    '[ "$(grep -c " naive " a2aclk)" -eq 8 ] &&
     [ "$(grep " naive " a2aclk | sed "s/ naive / x /")" = \
       "$(grep " reap " a2aclk | sed "s/ reap / x /")" ]'
left_behind

# recording a trace (CM5_TRACE) reads the virtual clock without charging
# clk (the program's own clock read after each exchange does: 1 us)
CM5_MODEL=cm5 CM5_TRACE=$PWD/a2a.json
export CM5_TRACE
job "a2a traced" 120 8 shm prog_model a2a 4096
unset CM5_TRACE
expect_ok "a2a traced: ran"
check "a2a traced: the times plus one clock read ($(val 'a2a naive' 1), $(val 'a2a xor' 1) ns), a trace written" \
    '[ "$(val "a2a naive" 1)" = $((naive + 1000)) ] &&
     [ "$(val "a2a xor" 1)" = $((xor + 1000)) ] && [ -s a2a.json ]'
left_behind

# a CMMD message's data leaves after the receive is posted (rendezvous):
# node 1 posts 1000 clock reads late; it has the message RV' = 2 or + 2 L
# and P or + mr later, node 0's send_block ends when its last packet left
CM5_MODEL=cm5
job "late" 60 2 shm prog_model late
expect_ok "late: ran"
r1=$((1000000 + 2 * 1700 + 2 * 6000 + 256 * 1700 + 4300 + 1000))
s0=$((1000000 + 2 * 1700 + 6000 + 255 * 1600 + 1000))
check "late: receiver $r1 ns (got $(val 'node 1 late' 1)), sender $s0 ns (got $(val 'node 0 late' 1))" \
    '[ "$(val "node 1 late" 1)" = "$r1" ] && [ "$(val "node 0 late" 1)" = "$s0" ]'
left_behind

# a floating-point reduction costs redf (25 us), an integer one red (5 us),
# from a barrier (clk = 1 us, the model of the test before)
job "redtypes" 60 4 shm prog_model redtypes
check "redtypes: CMMD_reduce_int 6 us, CMMD_reduce_double 26 us on all 4 nodes (red or redf and a clock read): $(grep -c '^prog_model: redtypes 6000 26000$' out)" \
    '[ "$rc" -eq 0 ] && [ "$(grep -c "^prog_model: redtypes 6000 26000$" out)" -eq 4 ]'

# split-phase reduction and scan: every node ends at the latest entry
# (node 0's, 1000 clock reads late) plus red (an integer reduction: 5 us), then reads the clock
CM5_MODEL=cm5
job "split" 60 4 shm prog_model split
expect_ok "split: ran"
check "split: reduce, scan, reduce end 1006000 ns after their start on all 4 nodes: $(grep -c '^prog_model: node [0-3] split 1006000 1006000 1006000$' out)" \
    '[ "$(grep -c "^prog_model: node [0-3] split 1006000 1006000 1006000$" out)" -eq 4 ]'
left_behind

# node timers report virtual time: a 0.2 s sleep is no computation
CM5_MODEL=cm5
job "timers" 60 1 shm prog_model timers
check "timers: the node timer reads 1 us (one clock read; got $(val timer 1) ns) over $(val timer 3) ms of real time" \
    '[ "$rc" -eq 0 ] && [ "$(val timer 1)" = 1000 ] && [ "$(val timer 3)" -ge 200 ]'
CM5_MODEL_CPU_SCALE=1 job "timers scale 1" 60 1 shm prog_model timers
check "timers scale 1: the timer reads the computation (0 < $(val timer 1) ns < 0.2 s)" \
    '[ "$rc" -eq 0 ] && [ "$(val timer 1)" -gt 1000 ] &&
     [ "$(val timer 1)" -lt 200000000 ]'

# the computation floor (CM5_MODEL_CPU_FLOOR, default 1000 us): 20
# stretches of 5 us of CPU time between runtime calls are free; with the
# floor at 2 us each is charged 20 times its CPU time (scale 20); three
# stretches of 1.5 ms pass the default floor
CM5_MODEL_CPU_SCALE=20 job "fine, default floor" 60 1 shm prog_model fine 20 5
check "fine: 20 stretches of >= 5 us of CPU are not charged (timer $(val fine 1) ns = one clock read)" \
    '[ "$rc" -eq 0 ] && [ "$(val fine 1)" = 1000 ]'
CM5_MODEL_CPU_SCALE=20 CM5_MODEL_CPU_FLOOR=2 job "fine, floor 2" 60 1 shm \
    prog_model fine 20 5
check "fine, floor 2 us: charged 20 x CPU ($(val fine 2) ns of CPU, timer $(val fine 1) ns)" \
    '[ "$rc" -eq 0 ] && [ "$(val fine 2)" -ge 100000 ] &&
     [ "$(val fine 1)" -ge $(( 20 * $(val fine 2) + 1000 )) ] &&
     [ "$(val fine 1)" -lt $(( 20 * $(val fine 2) + 40000000 )) ]'
CM5_MODEL_CPU_SCALE=20 job "fine, 1.5 ms stretches" 60 1 shm prog_model fine 3 1500
check "fine, 3 stretches of >= 1.5 ms pass the default floor: charged 20 x CPU ($(val fine 2) ns of CPU, timer $(val fine 1) ns)" \
    '[ "$rc" -eq 0 ] && [ "$(val fine 2)" -ge 4500000 ] &&
     [ "$(val fine 1)" -ge $(( 20 * $(val fine 2) + 1000 )) ] &&
     [ "$(val fine 1)" -lt $(( 20 * $(val fine 2) + 10000000 )) ]'

# cm5_compute: the stated cost replaces the CPU time's (150 us of CPU at
# scale 20 would be 3 ms); refused when negative or not a number
CM5_MODEL_CPU_SCALE=20 job "compute" 60 1 shm prog_model compute
check "compute: 150 us of CPU then cm5_compute(0.002): the timer reads 2 ms and one clock read ($(val compute 1) ns)" \
    '[ "$rc" -eq 0 ] && [ "$(val compute 1)" = 2001000 ]'
check "compute: cm5_compute(-1) and cm5_compute(NAN) return CM5_ERR_INVALID" \
    '[ "$rc" -eq 0 ] && [ "$(val compute 2)" = 2 ]'

# RS_N's planning costs its counted steps (cm5_compute), not its CPU
# time: the comp column is the same at CPU scale 0 and 20, on every run,
# and more than 0.1 ms (8 nodes; RS_NH's heaps cost more)
rsn_comp() {
    CM5_MODEL_CPU_SCALE=$1 timeout 120 "$CM5RUN" -n 8 --model cm5 \
        "$abs_top_builddir/tools/cm5sched" --alg rsn,rsnh \
        --workload nonuniform:d=4 --sizes 16 --reps 1 --matrices 2 \
        --warmup 0 2>&1 | awk -F'|' '$1 ~ /^ *16 *$/ && $2 ~ /[0-9][.]/ {
            split($2, a, " "); split($3, b, " "); print a[2], b[2] }'
}
c0=$(rsn_comp 0) c20=$(rsn_comp 20) c0b=$(rsn_comp 0)
check "rsn, rsnh comp in virtual time from counted steps: '$c0' at scale 0 and 20 and again" \
    '[ -n "$c0" ] && [ "$c0" = "$c20" ] && [ "$c0" = "$c0b" ] &&
     echo "$c0" | awk "{ exit !(\$1 > 0.1 && \$2 > \$1) }"'

# The clock starts at main: the runtime's start-up (libfabric's, the
# exchange: about 100 ms of CPU, 35-42 s of CM-5 time at the default
# scale, different on every node and run) is not charged.  At the
# default CPU scale and synchronisation, on the rings, tcp and udp:
# every node reads 1 us (clk), and 7 us after a barrier (clk + bar + clk).
unset CM5_MODEL_CPU_SCALE CM5_MODEL_SYNC
CM5_MODEL=cm5
export CM5_MODEL
for prov in shm tcp udp; do
    job "start $prov" 60 4 $prov prog_model start
    expect_ok "start $prov: ran"
    k=$(grep -c '^prog_model: node [0-3] start 1000 7000$' out)
    check "start $prov: every node's clock 1000 ns as main begins, 7000 after a barrier ($k of 4)" \
        '[ "$k" = 4 ]'
    left_behind
done
CM5_MODEL_CPU_SCALE=0 CM5_MODEL_SYNC=off
export CM5_MODEL_CPU_SCALE CM5_MODEL_SYNC

# bad settings: one line from cm5run, exit 2, no node started
bad() {
    "$CM5RUN" -n 2 "$@" "$PROGS/prog_model" det >out 2>err
    rc=$?
}
unset CM5_MODEL
CM5_MODEL=cm6 bad
check "CM5_MODEL=cm6: one line naming it, exit 2" \
    '[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && ! [ -s out ] &&
     grep -q "^cm5run: CM5_MODEL=cm6: unknown model .cm6." err'
bad --model logp:L=x
check "--model logp:L=x: one line naming it, exit 2" \
    '[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
     grep -q "^cm5run: --model logp:L=x: .L=x. needs a number" err'
CM5_MODEL_CPU_SCALE=-2 bad --model cm5
check "CM5_MODEL_CPU_SCALE=-2: one line naming it, exit 2" \
    '[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
     grep -q "^cm5run: CM5_MODEL_CPU_SCALE=-2: not a number" err'
for f in -1 5us; do
    CM5_MODEL_CPU_FLOOR=$f bad --model cm5
    check "CM5_MODEL_CPU_FLOOR=$f: one line naming it, exit 2" \
        '[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
         grep -q "^cm5run: CM5_MODEL_CPU_FLOOR=$f: not a number of microseconds" err'
done
finish
