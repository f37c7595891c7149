#!/bin/sh
# The fat tree's shared links (CM5_MODEL=cm5:lk=1, doc/model.md, "Shared
# links"): the up- and down-link of every cluster of 4 nodes and group of
# 16 carry at most their capacity (10 and 5 MB/s a node below them: 20
# and 40 packets in each 8 us bucket), the receivers placing their packets
# on them in one order, the same on every run.  On 32 nodes:
#   - 16 messages of 4 KiB across the root at once (node N to N + 16): a
#     receiver takes a packet every 2 us (4 a bucket), so ten of them fill
#     group 0's up-link and group 1's down-link.  Nodes 16-25 (first in
#     the order: the same clock, then node number) take theirs as without
#     links (the first packet at 48.9 us, the last 255 x 2 us later, then
#     q and mr: 565.2 us); 26-31 fit what room the first bucket leaves,
#     then follow the ten once they end: 26-30 end 502.1 us later, 31 one
#     bucket (8 us) later still (the arithmetic:
#     tests/unit/am/test_model.c); each sender is held until its last
#     packet is taken (that packet's time less L: 552.9 us without).  The same twice,
#     beside two CPU hogs, jittered, on every path;
#   - the counter-patterns, where no link binds, give the times without
#     links exactly (one of them over tcp and udp and beside hogs too): 4 streams from each cluster to another of its group
#     (16 packets a bucket on a cluster's link, under 20), pairs inside
#     the clusters, a hot spot (15 senders to one node, whose processor
#     takes a packet at a time), and wang1993's cm5sched --alg all job
#     (interrupts, irq, mx, DRS_N's data by CMMD) at d = 8, plain and
#     jittered, with no broken bound (the order of the placements is
#     checked at each);
#   - a cluster's links binding, at a capacity set low (lk2=2.5);
#   - lk=1 refused in one line where it cannot work.
# Computation is free (CM5_MODEL_CPU_SCALE=0).  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/links.sh

PLAN=24
. "$(dirname "$0")/lib.sh"

CM5_MODEL_SYNC=on
CM5_MODEL_CPU_SCALE=0
export CM5_MODEL_SYNC CM5_MODEL_CPU_SCALE

trap 'hogs_off; cd / && rm -rf "$scratch"' EXIT

# the permutation's times, node by node: "N got|sent NS"
ptimes() { grep '^prog_vsync: node [0-9]* \(got\|sent\) ' out | sort -k3,3n | awk '{print $3, $4, $5}'; }
col() { ptimes | awk -v w="$1" '$2 == w {printf "%s ", $3}'; }
broken() {
    grep 'synchronisation:' err | head -n 2 | sed 's/^/# broken bound: /' >&2
    grep -c 'synchronisation:' err
}

CM5_MODEL=cm5:lk=0
export CM5_MODEL
job "across the root, no links" 120 32 shm prog_vsync perm 4096 16
ptimes >perm.0
check "16 messages of 4 KiB across the root, no links: every receiver at 565.2 us, every sender at 552.9 ($ms ms)" \
    '[ "$rc" -eq 0 ] && [ "$(col got)" = "$(printf "565200 %.0s" $(seq 16))" ] &&
     [ "$(col sent)" = "$(printf "552900 %.0s" $(seq 16))" ]'

CM5_MODEL=cm5:lk=1
job "across the root" 120 32 shm prog_vsync perm 4096 16
ptimes >perm.1
expect_ok "16 messages of 4 KiB across the root, links shared: ran"
want_got="$(printf "565200 %.0s" $(seq 10))1067300 1067300 1067300 1067300 1067300 1075300 "
want_sent="$(printf "552900 %.0s" $(seq 10))1055000 1055000 1055000 1055000 1055000 1063000 "
check "links shared: receivers 16-25 as without links, 26-30 at 1067.3 us, 31 at 1075.3; senders 10-14 held until 1055.0, 15 until 1063.0 (got: $(col got); sent: $(col sent); $(broken) broken bounds)" \
    '[ "$(col got)" = "$want_got" ] && [ "$(col sent)" = "$want_sent" ] &&
     [ "$(broken)" -eq 0 ]'
job "across the root again" 120 32 shm prog_vsync perm 4096 16
ptimes >perm.2
check "links shared: the same times twice" '[ "$rc" -eq 0 ] && cmp -s perm.1 perm.2'
hogs_on
job "across the root beside hogs" 120 32 shm prog_vsync perm 4096 16
hogs_off
ptimes >perm.3
check "links shared: the same times beside two CPU hogs" \
    '[ "$rc" -eq 0 ] && cmp -s perm.1 perm.3 && [ "$(broken)" -eq 0 ]'
CM5_MODEL_JITTER=3
export CM5_MODEL_JITTER
job "across the root jittered" 180 32 shm prog_vsync perm 4096 16
unset CM5_MODEL_JITTER
ptimes >perm.j
check "links shared, jittered (seed 3): the same times ($(broken) broken bounds)" \
    '[ "$rc" -eq 0 ] && cmp -s perm.1 perm.j && [ "$(broken)" -eq 0 ]'
for p in tcp udp; do
    job "across the root $p" 180 32 $p prog_vsync perm 4096 16
    ptimes >perm.$p
    check "links shared over $p: the same times" \
        '[ "$rc" -eq 0 ] && cmp -s perm.1 perm.$p'
done
CM5_SHM=off
export CM5_SHM
job "across the root libfabric shm" 180 32 shm prog_vsync perm 4096 16
unset CM5_SHM
ptimes >perm.fshm
check "links shared over libfabric shm (CM5_SHM=off): the same times" \
    '[ "$rc" -eq 0 ] && cmp -s perm.1 perm.fshm'
left_behind

# counter-patterns: no link binds, the times without links
for s in 8 1; do
    CM5_MODEL=cm5:lk=0
    job "shift $s, no links" 120 32 shm prog_vsync perm 4096 $s
    ptimes >shift$s.0
    CM5_MODEL=cm5:lk=1
    job "shift $s" 120 32 shm prog_vsync perm 4096 $s
    ptimes >shift$s.1
    check "node N to N + $s (every N with N / $s even): links shared, the times without ($(sed -n 1p shift$s.1))" \
        '[ "$rc" -eq 0 ] && [ -s shift$s.0 ] && cmp -s shift$s.0 shift$s.1 &&
         [ "$(broken)" -eq 0 ]'
done
# ... on the other paths and beside hogs too (shift 8: every receipt
# crosses a cluster's links, none binds)
for p in tcp udp; do
    job "shift 8 $p" 180 32 $p prog_vsync perm 4096 8
    ptimes >shift8.$p
    check "node N to N + 8 over $p, links shared: the times without links on the rings" \
        '[ "$rc" -eq 0 ] && cmp -s shift8.0 shift8.$p'
done
hogs_on
job "shift 8 beside hogs" 120 32 shm prog_vsync perm 4096 8
hogs_off
ptimes >shift8.h
check "node N to N + 8 beside two CPU hogs, links shared: the times without links" \
    '[ "$rc" -eq 0 ] && cmp -s shift8.0 shift8.h && [ "$(broken)" -eq 0 ]'
left_behind
# a cluster's links binding: at lk2 = 2.5 MB/s a node a cluster of 4's
# up- and down-link carry 5 packets a bucket, about what one receiver
# takes (8 / 1.7 us): the four streams from cluster 0 to cluster 1 pass
# one after another, node 4's as without links, the last 1024 packets
# after the first at 5 a bucket (at least 1638 us) later
CM5_MODEL=cm5:lk=1,lk2=2.5
job "a cluster's links" 120 8 shm prog_vsync perm 4096 4
ptimes >cl.1
job "a cluster's links again" 120 8 shm prog_vsync perm 4096 4
ptimes >cl.2
check "cluster 0 to cluster 1 at lk2 = 2.5: receivers at $(col got)ns, one after another, the same twice" \
    '[ "$rc" -eq 0 ] && [ "$(col got)" = "488400 891900 1299900 1709600 " ] &&
     [ "$(col sent)" = "476400 879900 1287900 1697600 " ] && cmp -s cl.1 cl.2 &&
     [ "$(broken)" -eq 0 ]'
held_times() { grep '^prog_vsync: node [0-9]* held' out | sort -k3n | awk '{print $5}'; }
CM5_MODEL=cm5:lk=0
job "hot spot, no links" 120 16 shm prog_vsync held 4096
held_times >held.0
CM5_MODEL=cm5:lk=1
job "hot spot" 120 16 shm prog_vsync held 4096
held_times >held.1
check "hot spot (15 senders of 4 KiB to node 0): links shared, the times without ($(tail -n 1 held.1) ns the last)" \
    '[ "$rc" -eq 0 ] && [ "$(wc -l <held.1)" -eq 15 ] && cmp -s held.0 held.1'

# wang1993's job: every algorithm, interrupts on, DRS_N's data by CMMD
sched() {
    timeout -k 2 300 "$CM5RUN" -n 32 --timeout 290 \
        "$abs_top_builddir/tools/cm5sched" --alg all \
        --workload density:d=8 --sizes 512,4096 --reps 1 --warmup 0 \
        --recv am --interrupts -o drs_data=cmmd >out 2>err
    rc=$?
    grep -v '^#' out >"$1"
}
CM5_MODEL=cm5:mx=125,irq=23,lk=0
sched wang.0
CM5_MODEL=cm5:mx=125,irq=23,lk=1
sched wang.1
check "cm5sched --alg all as wang1993 ran, 32 nodes, d = 8: links shared, the table without (exit $rc; $(broken) broken bounds)" \
    '[ "$rc" -eq 0 ] && grep -q drsn wang.1 && cmp -s wang.0 wang.1 &&
     [ "$(broken)" -eq 0 ]'
CM5_MODEL_JITTER=13
export CM5_MODEL_JITTER
sched wang.j
unset CM5_MODEL_JITTER
check "the same, jittered (seed 13): the same table, every placement in order (exit $rc; $(broken) broken bounds)" \
    '[ "$rc" -eq 0 ] && cmp -s wang.0 wang.j && [ "$(broken)" -eq 0 ]'

# refused where it cannot work
CM5_MODEL=cm5:lk=1
CM5_MODEL_SYNC=off
job "links unsynchronised" 30 8 shm prog_vsync storm 4
check "lk=1 with CM5_MODEL_SYNC=off: one line, the job fails" \
    '[ "$rc" -ne 0 ] && [ "$(grep -c "shared links (lk=1) need the nodes synchronised" err)" -ge 1 ]'
CM5_MODEL_SYNC=net
job "links as messages" 30 8 shm prog_vsync storm 4
check "lk=1 with CM5_MODEL_SYNC=net: one line, the job fails" \
    '[ "$rc" -ne 0 ] && [ "$(grep -c "shared links (lk=1) need the nodes. shared memory" err)" -ge 1 ]'
CM5_MODEL_SYNC=on
CM5_MODEL=cm5:lk=1,bc=1
job "links with bc" 30 8 shm prog_vsync storm 4
check "lk=1 with bc=1: cm5run refuses it in one line, exit 2" \
    '[ "$rc" -eq 2 ] && [ "$(grep -c "lk=1 with bc=1 is not built" err)" -eq 1 ]'
left_behind
