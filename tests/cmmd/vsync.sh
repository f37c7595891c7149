#!/bin/sh
# Virtual time's synchronisation (CM5_MODEL_SYNC=on, doc/model.md,
# "Synchronisation"): programs whose virtual times depend on the order in
# which active messages, messages and scopies meet (prog_vsync: a storm
# of requests, a hot spot, a token ring polled with clock reads, all
# three kinds together) and the papers' algorithms (cm5sched --alg all:
# DRS_N, A1-A4, the two-stage algorithm; Generate_Recv) give
# bit-identical virtual times on every run (with interrupts on too): twice, beside two CPU hogs,
# on one CPU, and on every path (same-host rings, libfabric shm, tcp,
# udp); no node reports a broken bound; a virtual-time
# deadlock is reported by cm5run's check.  Computation is free
# (CM5_MODEL_CPU_SCALE=0).  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/vsync.sh

PLAN=63
. "$(dirname "$0")/lib.sh"

CM5_MODEL=cm5
CM5_MODEL_SYNC=on
CM5_MODEL_CPU_SCALE=0
export CM5_MODEL CM5_MODEL_SYNC CM5_MODEL_CPU_SCALE

# the per-node lines of a run, in node order
lines() { grep '^prog_vsync: node [0-9]* clock' out | sort -k3,3n; }
# (each broken bound's first line goes to the log: a rare fault under
# load, seen 2026-12-01 over tcp beside another test suite)
broken() {
    grep 'synchronisation:' err | head -n 2 | sed 's/^/# broken bound: /' >&2
    grep -c 'synchronisation:' err
}

# same A B: A and B are the same file; if not, the first lines of their
# difference go to the log
same() {
    cmp -s "$1" "$2" && return 0
    diff "$1" "$2" | head -n 12 | sed 's/^/# differs: /' >&2
    return 1
}

trap 'hogs_off; cd / && rm -rf "$scratch"' EXIT

for m in "storm 40" "hot 16" "token 16" "mixed 8"; do
    set -- $m
    mode=$1
    job "$mode run 1" 120 8 shm prog_vsync "$@"
    lines >"$mode.1"
    expect_ok "$mode: ran on 8 nodes"
    job "$mode run 2" 120 8 shm prog_vsync "$@"
    lines >"$mode.2"
    hogs_on
    job "$mode beside hogs" 120 8 shm prog_vsync "$@"
    hogs_off
    lines >"$mode.3"
    check "$mode: identical virtual times and handler orders twice and beside two CPU hogs ($(wc -l <"$mode.1") lines, no broken bound)" \
        '[ "$(wc -l <"$mode.1")" -eq 8 ] && cmp -s "$mode.1" "$mode.2" &&
         cmp -s "$mode.1" "$mode.3" && [ "$(broken)" -eq 0 ]'
    left_behind
done

# every path gives the same times as the same-host rings
for p in tcp udp; do
    job "mixed $p" 120 8 $p prog_vsync mixed 8
    lines >mixed.$p
    check "mixed on $p: the rings' virtual times" \
        '[ "$rc" -eq 0 ] && cmp -s mixed.1 mixed.$p'
done
CM5_SHM=off
export CM5_SHM
job "mixed libfabric shm" 120 8 shm prog_vsync mixed 8
unset CM5_SHM
lines >mixed.fshm
check "mixed on libfabric shm (CM5_SHM=off): the rings' virtual times" \
    '[ "$rc" -eq 0 ] && cmp -s mixed.1 mixed.fshm'

# jittered (CM5_MODEL_JITTER, doc/model.md "Determinism, stressed"):
# every node yields or sleeps up to 0.5 ms at random points of the
# synchronisation (publishing its bound, taking a packet, waiting), so
# the nodes meet in real-time orders a quiet run rarely shows; the
# virtual times stay those of the plain run, on the rings and over udp
for m in "hot 16 1" "mixed 8 2" "token 16 3"; do
    set -- $m
    mode=$1
    CM5_MODEL_JITTER=$3
    export CM5_MODEL_JITTER
    job "$mode jittered" 180 8 shm prog_vsync "$mode" "$2"
    lines >"$mode.jit"
    check "$mode, jittered (seed $3): the plain run's virtual times ($(broken) broken bounds)" \
        '[ "$rc" -eq 0 ] && cmp -s "$mode.1" "$mode.jit" && [ "$(broken)" -eq 0 ]'
    unset CM5_MODEL_JITTER
done
CM5_MODEL_JITTER=4
export CM5_MODEL_JITTER
job "mixed jittered udp" 180 8 udp prog_vsync mixed 8
unset CM5_MODEL_JITTER
lines >mixed.judp
check "mixed over udp, jittered (seed 4): the rings' virtual times" \
    '[ "$rc" -eq 0 ] && cmp -s mixed.1 mixed.judp'
left_behind
CM5_MODEL_JITTER=seven
export CM5_MODEL_JITTER
job "bad jitter" 30 2 shm prog_vsync storm 4
unset CM5_MODEL_JITTER
check "CM5_MODEL_JITTER=seven: cm5run refuses it in one line, exit 2" \
    '[ "$rc" -eq 2 ] && [ "$(grep -c "CM5_MODEL_JITTER=seven" err)" -eq 1 ]'

# held senders: 7 senders of 4 KiB (256 packets) to node 0 at once; with
# cm5:il=0 node 0's processor takes one message after the other (1.7 us
# a packet, 4.3 us a message: mr), and each sender is held until its data
# is taken: sender k returns exactly 256 x 1.7 + 4.3 = 439.5 us after
# sender k - 1.
# With interleaved receipt (the default, il=1; doc/model.md): node 0's processor
# takes a message that comes
# while it is idle alone, and the messages that came while it was busy
# together, one packet of each in turn, each ending with its 4.3 us
# (mr); a sender is held until its last packet is taken.  A packet costs
# 1.7 us (or) alone, and or + sw floor(log2 c) = 1.7 + 0.19 x (2 for
# c = 4-7 open receipts, 1 for 2-3) while c >= 2 are interleaved
# (doc/model.md, "Switching between pushes"): 2.08 or 1.89 us.
#   one after another (sender k starts 1000 us after sender k - 1, more
#   than a receipt): each alone, returning exactly 1000 us apart;
#   at once: all 7 together, the first 255 x (7 x 2.08 - 1.7) us later
#   than alone (each round waits for six others' packets); each next one
#   the q + mr of the one before's last packet later, one fewer open
#   each time: 2.08 + 4.3 after those taken at c = 7, 6, 5, 4, 1.89 +
#   4.3 after c = 3, 2;
#   100 us apart: sender 1 alone; senders 2-5 came meanwhile: together,
#   sender 2 returns 4 x 255 x 2.08 + 1.7 + 4.3 + 2 x 6 us after sender 1
#   (node 0 answers their announcements once sender 1's data is in, L to
#   the sender and L back), then 3, 4, 5 after 2, 3, 4's last packets at
#   c = 4, 3, 2; senders 6 and 7 came during that: together, 2 x 255 x
#   1.89 + 1.7 + 4.3 + 12 us after sender 5 (its last packet alone), then
#   1.89 + 4.3 apart.
held_times() { grep '^prog_vsync: node [0-9]* held' out | sort -k3n | awk '{print $5}'; }
held_gaps() { held_times | awk 'NR > 1 { printf "%s ", $1 - prev } { prev = $1 }'; }
CM5_MODEL=cm5:il=0
job "held" 120 8 shm prog_vsync held 4096
held_gaps >held.serial
check "held senders, one after another (il=0): 7 senders to one node finish 439.5 us apart ($(cat held.serial))" \
    '[ "$rc" -eq 0 ] && [ "$(cat held.serial)" = "439500 439500 439500 439500 439500 439500 " ]'
CM5_MODEL=cm5:il=1
job "held apart" 120 8 shm prog_vsync held 4096 1000
h_apart=$(held_gaps) h_alone=$(held_times | head -1)
job "held" 120 8 shm prog_vsync held 4096
held_gaps >held.1
h_first=$(held_times | head -1)
held_times >held.t1
job "held again" 120 8 shm prog_vsync held 4096
held_times >held.t2
check "held senders one after another: each alone, 1000 us apart ($h_apart)" \
    '[ "$h_apart" = "1000000 1000000 1000000 1000000 1000000 1000000 " ]'
check "held senders at once: taken together, their last packets' q + mr apart ($(cat held.1)), the first 255 x (7 x 2.08 - 1.7) us after one alone ($h_alone -> $h_first), the same twice" \
    '[ "$rc" -eq 0 ] && [ "$(cat held.1)" = "6380 6380 6380 6380 6190 6190 " ] &&
     [ $((h_first - h_alone)) -eq 3279300 ] &&
     [ "$(wc -l <held.t1)" -eq 7 ] && cmp -s held.t1 held.t2 &&
     [ "$(grep -c "^prog_vsync: node [0-9]* of 8 ok$" out)" -eq 8 ]'
want_st="2139600 6380 6190 6190 981900 6190 "
st_ok=1 st_got=
for p in shm tcp udp; do
    job "held 100 us apart $p" 120 8 $p prog_vsync held 4096 100
    g=$(held_gaps)
    st_got="$st_got $p: $g;"
    [ "$rc" -eq 0 ] && [ "$g" = "$want_st" ] || st_ok=
done
CM5_MODEL=cm5
check "held senders 100 us apart: 1 alone, then 2-5 together, then 6-7 together, on rings, tcp and udp ($st_got)" \
    '[ -n "$st_ok" ]'

# Receipt beside the clock (cm5:bc=1, doc/model.md): node 0 answers an
# announcement between two packets of the receipt under way, and a
# notice that comes meanwhile joins it; a message is acknowledged when
# its last packet is taken, L on (interleaved receipt: L back), so a
# sender returns 2 L = 12 us later than with il=1 wherever nothing
# joins: the senders at once (taken together either way) and 1000 us
# apart (each alone).  100 us apart each joins as it comes and leaves
# in the order it came, exactly the same on the rings, tcp, udp and
# beside two CPU hogs, no node reporting a broken bound.
plus12() { awk '{ printf "%s ", $1 + 12000 }'; }
CM5_MODEL=cm5:bc=1
job "bc held" 120 8 shm prog_vsync held 4096
bc_once=$(held_times | tr '\n' ' ') il_once=$(plus12 <held.t1)
job "bc held apart" 120 8 shm prog_vsync held 4096 1000
bc_apart=$(held_times | head -1)
check "bc=1: senders at once or 1000 us apart: as interleaved receipt, each 12 us (2 L) later ($bc_once; first of 1000 us apart $h_alone -> $bc_apart)" \
    '[ "$bc_once" = "$il_once" ] && [ $((bc_apart - h_alone)) -eq 12000 ] &&
     [ "$(held_gaps)" = "1000000 1000000 1000000 1000000 1000000 1000000 " ]'
# (cm5:bc=1,sw=0,ms=19.6,mr=13, the parameters before "Switching between
# pushes": 626700 261200 150700 86100 55500 31700, and a2a naive below
# 19753700, as pinned until 2026-11-30)
want_bc="755180 276780 156140 74420 40210 19790 "
bc_ok=1 bc_got=
for p in shm tcp udp hogs; do
    if [ $p = hogs ]; then
        hogs_on
        job "bc held 100 us apart beside hogs" 120 8 shm prog_vsync held 4096 100
        hogs_off
    else
        job "bc held 100 us apart $p" 120 8 $p prog_vsync held 4096 100
    fi
    g=$(held_gaps)
    bc_got="$bc_got $p: $g;"
    [ "$rc" -eq 0 ] && [ "$g" = "$want_bc" ] && [ "$(broken)" -eq 0 ] || bc_ok=
done
check "bc=1, senders 100 us apart: each joins the receipt under way, returning $want_bc ns apart on rings, tcp, udp and beside hogs ($bc_got)" \
    '[ -n "$bc_ok" ]'
bc_ok=1 bc_got=
for p in shm tcp udp; do
    job "bc a2a $p" 120 8 $p prog_model a2a 4096
    grep '^prog_model: ' out | sort >"bc_a2a.$p"
    bc_got="$bc_got $p: $(grep -c . "bc_a2a.$p") lines;"
    [ "$rc" -eq 0 ] && [ "$(broken)" -eq 0 ] && cmp -s bc_a2a.shm "bc_a2a.$p" || bc_ok=
done
check "bc=1, prog_model a2a 4096 (8 nodes, every receive posted, then every send): the same times on rings, tcp and udp ($bc_got $(grep 'a2a naive' bc_a2a.shm))" \
    '[ -n "$bc_ok" ] && grep -q "^prog_model: a2a naive 24282990$" bc_a2a.shm'
CM5_MODEL=cm5

# the counter-pattern of one lane per sender: messages received in the
# other order than sent (tag 2 before tag 1) with an scopy between them
# complete, every byte right, with the same times on every path, beside
# hogs too (the lane is taken when the receiver is ready, not in order
# of posting)
order_lines() { grep '^prog_vsync: node [0-9]* order' out | sort; }
job "order" 120 8 shm prog_vsync order 8192
order_lines >order.1
ord_ok=$([ "$rc" -eq 0 ] && [ "$(wc -l <order.1)" -eq 8 ] && echo 1)
for p in tcp udp; do
    job "order $p" 120 8 $p prog_vsync order 8192
    order_lines >order.$p
    cmp -s order.1 order.$p || ord_ok=
done
CM5_SHM=off
export CM5_SHM
job "order libfabric shm" 120 8 shm prog_vsync order 8192
unset CM5_SHM
order_lines >order.fshm
hogs_on
job "order beside hogs" 120 8 shm prog_vsync order 8192
hogs_off
order_lines >order.hogs
check "receives in the other order than the sends, an scopy between: complete and the same on rings, tcp, udp, libfabric shm and beside hogs" \
    '[ -n "$ord_ok" ] && cmp -s order.1 order.fshm && cmp -s order.1 order.hogs &&
     [ "$rc" -eq 0 ] && [ "$(broken)" -eq 0 ]'

# a split-phase reduction polled (CMMD_reduce_done), in turn: node N
# enters 10 (7 - N) us before the last, whose entry plus red (5 us) is
# the end; each poll costs 1 us, so in 5 rounds node N counts exactly
# 5 x (4 + 10 (7 - N)) polls that said "not yet"
splitred_polls() {
    grep '^prog_vsync: node [0-9]* splitred' out |
        awk '{ if ($7 != 5 * (4 + 10 * (7 - $3))) bad++ } END { print NR, bad + 0 }'
}
job "splitred" 120 8 shm prog_vsync splitred 5
grep '^prog_vsync: node [0-9]* splitred' out | sort >splitred.1
sp=$(splitred_polls)
hogs_on
job "splitred beside hogs" 120 8 shm prog_vsync splitred 5
hogs_off
grep '^prog_vsync: node [0-9]* splitred' out | sort >splitred.2
sp_ok=$([ "$rc" -eq 0 ] && [ "$(broken)" -eq 0 ] && echo 1)
for p in tcp udp; do
    job "splitred $p" 120 8 $p prog_vsync splitred 5
    grep '^prog_vsync: node [0-9]* splitred' out | sort >splitred.$p
    cmp -s splitred.1 splitred.$p || sp_ok=
done
check "split-phase reduction polled: every node's polls as the arithmetic says ($sp: nodes, wrong), the same beside two CPU hogs, over tcp and over udp" \
    '[ -n "$sp_ok" ] && [ "$sp" = "8 0" ] && cmp -s splitred.1 splitred.2'

# loops of probes (doc/model.md, "Loops of probes"): after 64 empty
# probes a probe takes up to pj = 64 polls at once, to its next packet's
# poll tick.  Node 0 polls until node 1's request (sent after 5000 us of
# stated computation) has run: the same clock with pj=0; then 1000 polls
# with nothing to come, a delay counted in passes: 64 x 1 + 936 x 64 us
# (+ 1 us, the clock read) against 1000 + 1 us with pj=0.
spin_of() { sed -n "s/^prog_vsync: node 0 $1 //p" out; }
job "spin" 60 4 shm prog_vsync spin 1000 5000
w1=$(spin_of woke) s1=$(spin_of spun)
hogs_on
job "spin beside hogs" 60 4 shm prog_vsync spin 1000 5000
hogs_off
w2=$(spin_of woke) s2=$(spin_of spun)
CM5_MODEL=cm5:pj=0
job "spin, pj=0" 60 4 shm prog_vsync spin 1000 5000
CM5_MODEL=cm5
w0=$(spin_of woke) s0=$(spin_of spun)
check "a loop of probes: woken at the same clock with pj=0 ($w1, $w0 ns), beside hogs too; 1000 empty polls 59 969 us with pj=64 ($s1 - $w1), 1001 with pj=0" \
    '[ "$rc" -eq 0 ] && [ -n "$w1" ] && [ "$w1" = "$w0" ] && [ "$w1" = "$w2" ] &&
     [ "$s1" = "$s2" ] && [ $((s1 - w1)) -eq 59969000 ] &&
     [ $((s0 - w0)) -eq 1001000 ]'
left_behind

# the kernel refusing single copy (CM5_CMA=off, as between hosts): the
# data goes as tagged transfers, each taken in its sender's notice's turn
# (an scopy's: its announcement's, as a single copy's): the times of the
# single copies
CM5_CMA=off
export CM5_CMA
job "mixed tagged 1" 120 8 tcp prog_vsync mixed 8
lines >tagged.1
job "mixed tagged 2" 120 8 tcp prog_vsync mixed 8
lines >tagged.2
unset CM5_CMA
check "mixed over tcp without single copy (tagged data): the single copies' times, twice, no broken bound" \
    '[ "$rc" -eq 0 ] && [ "$(wc -l <tagged.1)" -eq 8 ] &&
     cmp -s tagged.1 mixed.1 && cmp -s tagged.1 tagged.2 &&
     [ "$(broken)" -eq 0 ]'

# interrupts (doc/model.md, "Interrupts"): handlers that loops without
# any runtime call wait for run in turn once the loop has computed for
# the CPU floor (it waits by rule).  Node 0 takes the 7 x 8 requests in
# the order of their due times, round by round, each for or + os (a
# handler and its reply, 3.3 us): node k's last reply comes 3.3 us after
# node k - 1's
# (the handlers' order alone: the interrupt's own cost, irq, is 0 here)
irq_steps() {
    lines | awk -v step="${1:-3300}" '
        NR > 2 { if ($5 - prev != step) bad++ } NR > 1 { prev = $5 }
        END { print bad + 0 }'
}
CM5_MODEL=cm5:irq=0
job "irq" 120 8 shm prog_vsync irq 8
lines >irq.1
irq_ok=$([ "$rc" -eq 0 ] && [ "$(wc -l <irq.1)" -eq 8 ] &&
    [ "$(irq_steps)" -eq 0 ] && grep -q 'node 0 clock .* got 56$' irq.1 &&
    [ "$(broken)" -eq 0 ] && echo 1)
job "irq run 2" 120 8 shm prog_vsync irq 8
lines >irq.2
hogs_on
job "irq beside hogs" 120 8 shm prog_vsync irq 8
hogs_off
lines >irq.3
check "interrupts: loops without a runtime call get their handlers in turn, node k 3.3 us after node k - 1, the same twice and beside two CPU hogs" \
    '[ -n "$irq_ok" ] && cmp -s irq.1 irq.2 && cmp -s irq.1 irq.3'
irq_paths=1
for p in tcp udp; do
    job "irq $p" 120 8 $p prog_vsync irq 8
    lines >irq.$p
    [ "$rc" -eq 0 ] && cmp -s irq.1 irq.$p || irq_paths=
done
CM5_SHM=off
export CM5_SHM
job "irq libfabric shm" 120 8 shm prog_vsync irq 8
unset CM5_SHM
lines >irq.fshm
check "interrupts: the same virtual times over tcp, udp and libfabric shm" \
    '[ -n "$irq_paths" ] && [ "$rc" -eq 0 ] && cmp -s irq.1 irq.fshm'
# its counter-pattern: a computation is not a wait for an interrupt.
# Node 1 computes 20 ms of CPU with no call while the others storm among
# themselves: its clock stays where it was (1 us enabling interrupts, a
# 5 us barrier, a 1 us clock read: 7 us), not what the others reached in
# real time meanwhile (until 2026-11-29 a wait by rule began after 1 ms
# of CPU: 234-265 us, a different figure each run)
computed() { sed -n 's/^prog_vsync: node 1 computed //p' out; }
job "irqcomp" 120 8 shm prog_vsync irqcomp 200 20
lines >irqcomp.1
comp1=$(computed)
hogs_on
job "irqcomp beside hogs" 120 8 shm prog_vsync irqcomp 200 20
hogs_off
lines >irqcomp.2
check "interrupts: a computation of 20 ms with no call is not a wait (node 1 computed at $comp1 ns, the others' times the same twice, once beside two CPU hogs)" \
    '[ "$rc" -eq 0 ] && [ "$comp1" = 7000 ] && [ "$(computed)" = 7000 ] &&
     [ "$(wc -l <irqcomp.1)" -eq 8 ] && cmp -s irqcomp.1 irqcomp.2 &&
     [ "$(broken)" -eq 0 ]'
# its counter-pattern, the storm itself (node 1 computes nothing): nodes
# that poll between their requests with interrupts on take what came due
# during a call at their next call, never by the interrupt thread as the
# two threads happen to meet (that was 1 us, a poll, later or not: 3 of
# 25 runs differed)
irqstorm_ok=1
for r in 1 2 hogs tcp udp fshm; do
    p=shm
    case $r in
    hogs) hogs_on ;;
    tcp | udp) p=$r ;;
    fshm) CM5_SHM=off && export CM5_SHM ;;
    esac
    job "irqcomp 0 $r" 120 8 $p prog_vsync irqcomp 200 0
    [ "$r" = hogs ] && hogs_off
    unset CM5_SHM
    lines >irqstorm.$r
    [ "$rc" -eq 0 ] && [ "$(wc -l <irqstorm.$r)" -eq 8 ] &&
        cmp -s irqstorm.1 irqstorm.$r && [ "$(broken)" -eq 0 ] ||
        irqstorm_ok="$irqstorm_ok $r"
done
irqstorm_bad=${irqstorm_ok#1}
check "interrupts on, polled storm: the same virtual times twice, beside two CPU hogs, over tcp, udp and libfabric shm${irqstorm_bad:+ (differed:$irqstorm_bad)}" \
    '[ "$irqstorm_ok" = 1 ]'
CM5_MODEL=cm5
# the CM-5's interrupt (cm5:irq=20; the preset's is 23): every handler
# run while interrupts are on costs 20 us more, node 0's 56 (node k 23.3
# us after node k - 1) and each node's replies
CM5_MODEL=cm5:irq=20
job "irq cost" 120 8 shm prog_vsync irq 8
CM5_MODEL=cm5
lines >irq.cost
node0() { awk '$3 == 0 { print $5 }' "$1"; }
check "interrupts cost irq each: node k 23.3 us after node k - 1, node 0 56 x 20 us later" \
    '[ "$rc" -eq 0 ] && [ "$(irq_steps 23300)" -eq 0 ] &&
     [ "$(node0 irq.cost)" -eq $(($(node0 irq.1) + 56 * 20000)) ] &&
     [ "$(broken)" -eq 0 ]'
# the interrupt tests of irq.sh and irqmsg.sh, synchronised: handlers
# during pure computation, polling with interrupts off, critical
# sections (a loop that enables interrupts: a probe), completions and
# scopies by interrupt, malloc beside interrupts, peers that spin, no
# interrupt without a message
irq_modes=
for m in basic free malloc quiet peers; do
    job "prog_irq $m" 60 3 shm prog_irq $m
    [ "$rc" -eq 0 ] && [ "$(broken)" -eq 0 ] || irq_modes="$irq_modes $m"
done
check "prog_irq basic, free, malloc, quiet and peers complete synchronised${irq_modes:+ (failed:$irq_modes)}" \
    '[ -z "$irq_modes" ]'

# mx (doc/model.md, "Both ways"): a CMMD message costs mx more on each
# side whose node has messages the other way open.  The XOR exchange of
# 16-byte blocks on 4 nodes (3 steps, CMMD_send_and_receive: the send
# while its receive is posted, the receipt while its send is open) is
# exactly 3 x 2 x mx slower; one-way traffic (held senders, taken one
# after another: il=0) does not change
xor_of() { sed -n 's/^prog_model: a2a xor \([0-9]*\)$/\1/p' out; }
CM5_MODEL=cm5:clk=0,mx=0
job "mx 0" 60 4 shm prog_model a2a 16
x0=$(xor_of)
CM5_MODEL=cm5:clk=0,mx=100
job "mx 100" 60 4 shm prog_model a2a 16
x1=$(xor_of)
CM5_MODEL=cm5:clk=0,mx=100,il=0
job "mx 100 held" 120 8 shm prog_vsync held 4096
held_gaps >held.mx
CM5_MODEL=cm5
check "mx=100: the XOR exchange on 4 nodes 600 us slower ($x0 -> $x1 ns), held senders still 439.5 us apart" \
    '[ "$rc" -eq 0 ] && [ -n "$x0" ] && [ -n "$x1" ] &&
     [ $((x1 - x0)) -eq 600000 ] &&
     [ "$(cat held.mx)" = "439500 439500 439500 439500 439500 439500 " ]'

# one CPU
job_cpu1() {
    taskset -c 0 env CM5TEST_KEYFILE="$scratch/key" timeout -k 2 130 \
        "$CM5RUN" -n 8 --timeout 120 "$PROGS/prog_vsync" storm 40 \
        >out 2>err
    rc=$?
}
if command -v taskset >/dev/null 2>&1; then
    job_cpu1
    lines >storm.cpu1
    check "storm on one CPU (taskset -c 0): the same virtual times" \
        '[ "$rc" -eq 0 ] && cmp -s storm.1 storm.cpu1'
else
    skip "storm on one CPU" "no taskset"
fi

# the papers' algorithms, all of them: DRS_N's inquiries are active
# messages, A1 waits in a split-phase barrier, Generate_Recv (--recv am)
# counts by active messages
sched() {
    timeout -k 2 300 "$CM5RUN" -n 16 --timeout 290 $1 \
        "$abs_top_builddir/tools/cm5sched" --alg all \
        --workload density:d=4 --sizes 512,4096 --reps 1 --warmup 0 $3 \
        >out 2>err
    rc=$?
    grep -v '^#' out >"$2"
}
sched "" drs.1
check "cm5sched --alg all on 16 nodes: ran, no broken bound" \
    '[ "$rc" -eq 0 ] && grep -q "drsn" drs.1 && grep -q "a4" drs.1 &&
     [ "$(broken)" -eq 0 ]'
sched "" drs.2
check "cm5sched: the same table twice" 'same drs.1 drs.2'
hogs_on
sched "" drs.3
hogs_off
check "cm5sched: the same table beside two CPU hogs" 'same drs.1 drs.3'
sched "--provider tcp" drs.tcp
check "cm5sched over tcp: the same table (exit $rc; $(broken) broken bounds)" \
    '[ "$rc" -eq 0 ] && same drs.1 drs.tcp && [ "$(broken)" -eq 0 ]'
sched "--provider udp" drs.udp
check "cm5sched over udp: the same table (exit $rc; $(broken) broken bounds)" \
    '[ "$rc" -eq 0 ] && same drs.1 drs.udp && [ "$(broken)" -eq 0 ]'
sched "" recv.1 "--recv am"
sched "" recv.2 "--recv am"
check "cm5sched --recv am (Generate_Recv by active messages): the same table twice" \
    '[ "$rc" -eq 0 ] && cmp -s recv.1 recv.2 && [ "$(broken)" -eq 0 ]'
# wang1993's DRS_N ran with interrupts on: all of them, interrupts on
sched "" irqs.1 "--recv am --interrupts"
irqs_rc=$rc
hogs_on
sched "" irqs.2 "--recv am --interrupts"
hogs_off
check "cm5sched --alg all --recv am --interrupts: the same table twice, once beside two CPU hogs" \
    '[ "$irqs_rc" -eq 0 ] && [ "$rc" -eq 0 ] && grep -q "drsn" irqs.1 &&
     cmp -s irqs.1 irqs.2 && [ "$(broken)" -eq 0 ]'
# as bench/reproduce.sh --model runs wang1993's tables: interrupts
# costing irq, CMMD's mx, DRS_N's data as CMMD messages
CM5_MODEL=cm5:mx=125,irq=23
sched "" wang.1 "--recv am --interrupts -o drs_data=cmmd"
wang_rc=$rc
hogs_on
sched "" wang.2 "--recv am --interrupts -o drs_data=cmmd"
hogs_off
CM5_MODEL=cm5
[ "$wang_rc" -eq 0 ] && [ "$rc" -eq 0 ] && ! cmp -s wang.1 wang.2 &&
    diff wang.1 wang.2 | head -n 8 | sed 's/^/# /'
check "cm5sched --alg all as wang1993 ran (interrupts, irq, mx, DRS_N's data by CMMD): the same table twice, once beside two CPU hogs (exit $wang_rc, $rc; $(broken) broken bounds)" \
    '[ "$wang_rc" -eq 0 ] && [ "$rc" -eq 0 ] && grep -q "drsn" wang.1 &&
     cmp -s wang.1 wang.2 && ! cmp -s wang.1 irqs.1 &&
     [ "$(broken)" -eq 0 ]'
# the same, jittered, on the rings and on libfabric shm (the nodes
# meeting in other real-time orders: DRS_N's inquiries, the interrupts)
CM5_MODEL=cm5:mx=125,irq=23
for j in 5 6; do
    CM5_MODEL_JITTER=$j
    export CM5_MODEL_JITTER
    [ $j -eq 6 ] && CM5_SHM=off && export CM5_SHM
    sched "" wang.j$j "--recv am --interrupts -o drs_data=cmmd"
    unset CM5_MODEL_JITTER CM5_SHM
    [ "$rc" -eq 0 ] && ! cmp -s wang.1 wang.j$j &&
        diff wang.1 wang.j$j | head -n 8 | sed 's/^/# /'
    check "cm5sched --alg all as wang1993 ran, jittered (seed $j$([ $j -eq 6 ] && echo ', libfabric shm')): the same table (exit $rc; $(broken) broken bounds)" \
        '[ "$rc" -eq 0 ] && cmp -s wang.1 wang.j$j && [ "$(broken)" -eq 0 ]'
done
# the same, while a random node of the job is stopped (SIGSTOP) for
# 10-30 ms at a time, again and again, as a host under heavy load
# deschedules processes: the same table
timeout -k 2 300 "$CM5RUN" -n 16 --timeout 290 \
    "$abs_top_builddir/tools/cm5sched" --alg all \
    --workload density:d=4 --sizes 512,4096 --reps 1 --warmup 0 \
    --recv am --interrupts -o drs_data=cmmd >out 2>err &
spid=$!
stops=0
while kill -0 "$spid" 2>/dev/null; do
    runner=$(pgrep -P "$spid" | head -n 1)
    p=$([ -n "$runner" ] && pgrep -P "$runner" | shuf -n 1)
    if [ -z "$p" ]; then
        sleep 0.02
        continue
    fi
    kill -STOP "$p" 2>/dev/null && stops=$((stops + 1))
    sleep 0.0$(shuf -i 10-30 -n 1)
    kill -CONT "$p" 2>/dev/null
done
wait "$spid"
rc=$?
grep -v '^#' out >wang.stop
check "cm5sched --alg all as wang1993 ran, a random node stopped for 10-30 ms at a time throughout ($stops stops): the same table (exit $rc; $(broken) broken bounds)" \
    '[ "$rc" -eq 0 ] && [ "$stops" -ge 10 ] && cmp -s wang.1 wang.stop &&
     [ "$(broken)" -eq 0 ]'
CM5_MODEL=cm5

# DRS_N's receipt callback reads the clock (its transfer estimate) inside
# the wait that took the packet which completed it: that wait must not
# take the next packet from inside the callback (it did when the packet
# happened to be known in real time: 4 tables in 6 runs of this one, in
# which node 2 granted node 7 or node 0 as it happened; doc/model.md,
# "Interrupts")
# drsn OUT NODES WORKLOAD SIZES 'CM5RUN OPTIONS' [CM5SCHED OPTIONS]:
# DRS_N as wang1993 ran it (interrupts, CMMD data); the table in OUT.
drsn() {
    out=$1 nodes=$2 wl=$3 sizes=$4 ropts=$5
    shift 5
    timeout -k 2 300 "$CM5RUN" -n "$nodes" --timeout 290 $ropts \
        "$abs_top_builddir/tools/cm5sched" --alg drsn --workload "$wl" \
        --sizes "$sizes" --reps 1 --warmup 0 --seed 1 --interrupts \
        -o drs_data=cmmd "$@" >out 2>err
    rc=$?
    grep -v '^#' out >"$out"
}
drs8() { drsn "$1" 16 density:d=8 128,256 "$2"; }
# three FN P: FN P.1 plain, P.2 beside two CPU hogs, P.3 over tcp; their
# exit statuses in r1, r2, r3.
three() {
    three_fn=$1
    "$three_fn" "$2.1"
    r1=$rc
    hogs_on
    "$three_fn" "$2.2"
    hogs_off
    r2=$rc
    "$three_fn" "$2.3" "--provider tcp"
    r3=$rc
}
drs8 cb.0
r0=$rc
three drs8 cb
check "DRS_N, 16 nodes, d = 8, interrupts and CMMD data: the same table four times, once beside two CPU hogs, once over tcp (exit $r0, $r1, $r2, $r3)" \
    '[ "$r0" -eq 0 ] && [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] &&
     [ "$r3" -eq 0 ] && grep -q "drsn" cb.0 && cmp -s cb.0 cb.1 &&
     cmp -s cb.0 cb.2 && cmp -s cb.0 cb.3 && [ "$(broken)" -eq 0 ]'

# A node flooded with inquiries (DRS_N on 32 nodes, Table 6's 9428-point
# mesh cut by greedy growing, schedule seed 1): three senders ask node 29
# again as soon as it denies them, each answer an interrupt dearer than
# their pace, so its clock never catches up with what comes due.  Its
# pass ran their packets forever and never the step that sends node 2
# the go-ahead of the message node 29 had granted (its lock stayed busy:
# a livelock, found 2026-11-30); now a packet's deferred steps run right
# after it.
flood() { drsn "$1" 32 mesh:airfoil9428,part=grow 16 "$2" -o seed=1; }
three flood fl
flood fl.4 "--provider udp"
r4=$rc
CM5_SHM=off
export CM5_SHM
flood fl.5 ""
r5=$rc
unset CM5_SHM
check "DRS_N, 32 nodes, a node flooded with inquiries: ends, the same table twice, once beside two CPU hogs, over tcp, udp and libfabric shm (exit $r1, $r2, $r3, $r4, $r5)" \
    '[ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] && [ "$r3" -eq 0 ] &&
     [ "$r4" -eq 0 ] && [ "$r5" -eq 0 ] && grep -q "drsn" fl.1 &&
     cmp -s fl.1 fl.2 && cmp -s fl.1 fl.3 && cmp -s fl.1 fl.4 &&
     cmp -s fl.1 fl.5 && [ "$(broken)" -eq 0 ]'

# receipt beside the clock under every algorithm (its lookahead of a
# message: doc/model.md): the same table twice, beside two CPU hogs and
# over udp
CM5_MODEL=cm5:bc=1
sched "" bcall.1 "--interrupts -o drs_data=cmmd"
bc_rc=$rc bc_broken=$(broken)
hogs_on
sched "" bcall.2 "--interrupts -o drs_data=cmmd"
hogs_off
bc_rc2=$rc
sched "--provider udp" bcall.3 "--interrupts -o drs_data=cmmd"
CM5_MODEL=cm5
check "bc=1: cm5sched --alg all (interrupts, DRS_N's data by CMMD): the same table twice, once beside two CPU hogs, and over udp (exit $bc_rc, $bc_rc2, $rc; $bc_broken, $(broken) broken bounds)" \
    '[ "$bc_rc" -eq 0 ] && [ "$bc_rc2" -eq 0 ] && [ "$rc" -eq 0 ] &&
     grep -q "drsn" bcall.1 && cmp -s bcall.1 bcall.2 &&
     cmp -s bcall.1 bcall.3 && [ "$bc_broken" -eq 0 ] && [ "$(broken)" -eq 0 ]'

# bc=1 as wang1993 Table 4 runs it (32 nodes, d = 16, every algorithm,
# sizes in one job): DRS_N's senders poll their inquiries at a node whose
# receipt is under way; a receipt's packets that came first go first.
# (Handlers due by the packet's time going first, the inquiries kept
# that receipt from ever ending: virtual clocks ran to 24 s at 2048 B
# and the job never finished.)
timeout -k 2 400 "$CM5RUN" -n 32 --model cm5:bc=1 --timeout 390 \
    "$abs_top_builddir/tools/cm5sched" --alg ac,lp,rsn,drsn \
    --workload density:d=16 --sizes 16,512,1024,2048 --matrices 1 --reps 1 \
    --seed 1 --spread --interrupts -o drs_data=cmmd >out 2>err
rc=$?
drs2k=$(awk '$1 == "2048" && $2 == "|" && $3 ~ /^[0-9.]+$/ { v = $3 } END { print v + 0 }' out)
check "bc=1, Table 4's d = 16 on 32 nodes, DRS_N beside receipts: ends, DRS_N 2048 B in $drs2k ms (under 40), no broken bound (exit $rc)" \
    '[ "$rc" -eq 0 ] && grep -q "drsn" out &&
     awk -v v="$drs2k" "BEGIN { exit !(v > 0 && v < 40) }" &&
     [ "$(broken)" -eq 0 ]'

# quickstart.sh demo's virtual-time table (wang1993 Table 4, d = 31, as
# the paper ran it): LP best at 16 and 4096 B, the order of the CM-5's
# 16-B row (LP < RS_N < AC < DRS_N)
timeout -k 2 300 "$CM5RUN" -n 32 --timeout 290 \
    "$abs_top_builddir/tools/cm5sched" --alg drsn,lp,rsn,ac \
    --workload density:d=31 --sizes 16,4096 --reps 1 --warmup 0 \
    --interrupts -o drs_data=cmmd >out 2>err
rc=$?
# comm of ALG at SIZE, in microseconds
comm_us() {
    awk -v a="$1" -v s="$2" '
        $1 == "|" { n = 0; for (i = 2; i <= NF; i++) if ($i != "|") col[++n] = $i }
        $1 == s && $2 == "|" && $3 ~ /^[0-9.]+$/ { k = 0
            for (i = 3; i <= NF; i += 7) { k++; if (col[k] == a) printf "%d", $i * 1000 } }' out
}
order16="$(comm_us lp 16) $(comm_us rsn 16) $(comm_us ac 16) $(comm_us drsn 16)"
# (a broken bound here is a known fault, seen once in CI under load: an
# eager message sent while its node published no bound; the other
# checks fail on one, this one says so)
[ "$(broken)" -eq 0 ] ||
    echo "# the demo's run: $(broken) broken bound(s): $(grep -m1 'synchronisation:' err | cut -c1-200)"
check "the demo's dense table in virtual time: LP best at 16 and 4096 B, at 16 B LP < RS_N < AC < DRS_N as on the CM-5 ($order16 us)" \
    '[ "$rc" -eq 0 ] && grep -q "^ *16 | lp  *lp" out &&
     grep -q "^ *4096 | lp  *lp" out &&
     echo $order16 | awk "{ exit !(\$1 < \$2 && \$2 < \$3 && \$3 < \$4) }"'

# every node waits for a message none sends: cm5run's check says so
CM5_DEADLOCK=1
export CM5_DEADLOCK
job "deadlock" 60 4 shm prog_deadlock recv
unset CM5_DEADLOCK
check "a virtual-time deadlock: cm5run stops the job with its one line" \
    '[ "$rc" -ne 0 ] && grep -q "cm5run: deadlock:" err'
left_behind

# a bad value: one line, the job refused
CM5_MODEL_SYNC=maybe
job "bad value" 30 2 shm prog_vsync storm 4
CM5_MODEL_SYNC=on
check "CM5_MODEL_SYNC=maybe: cm5run refuses it in one line, exit 2" \
    '[ "$rc" -eq 2 ] && [ "$(grep -c "CM5_MODEL_SYNC=maybe" err)" -eq 1 ]'
left_behind

# The default (auto) synchronises a cm5run job: the storm's times are the
# same as with on (unsynchronised they differ from run to run).
unset CM5_MODEL_SYNC
job "storm, the default" 120 8 shm prog_vsync storm 40
CM5_MODEL_SYNC=on
export CM5_MODEL_SYNC
lines >storm.default
check "CM5_MODEL_SYNC unset (auto, the default): synchronised, the storm's times as with on, nothing on stderr" \
    '[ "$rc" -eq 0 ] && cmp -s storm.1 storm.default && [ ! -s err ]'
left_behind
