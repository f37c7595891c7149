#!/bin/sh
# cm5sched --bcast, the s-to-p broadcasting family in the experiment
# driver: --help lists it; bad input (an unknown algorithm, --alg with
# --bcast, a mesh that does not multiply to p, --mesh without --bcast,
# more sources than nodes, a source outside the partition, a negative
# length, a bad -o) gives one error line and exit 2 without a hang, on 1
# and 4 nodes; all eight algorithms and auto on a 4x4 mesh (shm) with the
# CSV checked (header, rows, columns, bytes = (p - 1) x the sources' bytes
# for br_* and xor, auto's pick), over tcp on a prime p (1x7), on a
# skewed 2x8 mesh with random lengths and discovered counts, a csv
# distribution, a corrupted byte caught and named, and the plot.  TAP.
#
#   abs_top_builddir=BUILD sh tests/algos/cm5sched_bcast.sh

: "${abs_top_builddir:=$(pwd)}"
CM5RUN=$abs_top_builddir/tools/cm5run
SCHED=$abs_top_builddir/tools/cm5sched
BALGS="br_lin br_xy_source br_xy_dim xor 2step repos part_lin part_xy_source"

unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER \
    CM5SCHED_TEST_CORRUPT
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo

PLAN=20
. "$(dirname "$0")/../tap.sh"
tap_begin cm5sched_bcast "$PLAN"

# run NODES PROVIDER ARGS...: as cm5sched.sh (NODES 1: the program alone).
RUNENV=
run() {
    nodes=$1 prov=$2
    shift 2
    what="cm5sched $* on $nodes nodes, $prov"
    t0=$(now_ms)
    if [ "$nodes" = 1 ]; then
        timeout -k 2 30 "$SCHED" "$@" >out 2>err
    else
        timeout -k 2 100 env $RUNENV "$CM5RUN" -n "$nodes" --provider "$prov" \
            --timeout 90 "$SCHED" "$@" >out 2>err
    fi
    rc=$?
    ms=$(($(now_ms) - t0))
}

one_error() {
    [ "$rc" -eq 2 ] && [ "$(grep -c '^cm5sched: ' err)" -eq 1 ] &&
        grep -q "^cm5sched: .*$1" err && [ ! -s out ]
}

# ---- --help ----------------------------------------------------------------
run 1 - --help
help_ok=1
# The list of algorithms wraps at 80 columns, as every line of --help's
# broadcast part does.
sed -n '/^Broadcast algorithms (--bcast):/,/^$/p' out >algs
for a in auto $BALGS; do
    grep -q " $a\( \|\$\)" algs || help_ok=0
done
[ "$(sed -n '/^Broadcast algorithms/,$p' out | awk 'length > 80' |
    wc -l)" -eq 0 ] || help_ok=0
for o in --bcast --mesh; do
    grep -q "^  $o " out || help_ok=0
done
grep -q "^Source distributions" out && grep -q "^  cross" out &&
    grep -q "^  br_lin_order=" out || help_ok=0
check "--help lists --bcast, --mesh, the broadcast algorithms, distributions and options in 80 columns" \
    '[ "$rc" -eq 0 ] && [ "$help_ok" = 1 ]'

# ---- bad input -------------------------------------------------------------
run 1 - --bcast br_lin,nosuch
check "--bcast nosuch: one error line, exit 2" 'one_error "unknown algorithm .nosuch."'
run 1 - --alg lp --bcast br_lin
check "--alg with --bcast: one error line, exit 2" 'one_error "do not mix"'
run 1 - --mesh 1x1
check "--mesh without --bcast: one error line, exit 2" 'one_error "for --bcast"'
run 1 - --bcast br_lin -o nosuch=1
check "--bcast -o nosuch=1: one error line, exit 2" 'one_error "nosuch"'
run 1 - --bcast br_lin -o mesh=1x1
check "--bcast -o mesh=: one error line pointing at --mesh" 'one_error "--mesh"'
run 4 shm --bcast all,auto --mesh 3x3 --sizes 16
check "--mesh 3x3 (not full) on 4 nodes, every algorithm: one error line, exit 2, no hang ($ms ms)" \
    'one_error "--mesh: mesh 3 x 3 = 9 does not match the 4 nodes (cm5sched --help lists the options)\$"'
run 4 shm --bcast br_lin --workload cross:s=9 --sizes 16
check "9 sources on 4 nodes: one error line, exit 2" 'one_error "s=9"'
run 4 shm --bcast br_lin --workload row:L=-3 --sizes 16
check "a negative length: one error line, exit 2" 'one_error "negative"'
printf '1,8\n7,2\n' >out.csv
run 4 shm --bcast br_lin --workload csv:out.csv --sizes 16
check "a csv source outside the partition: one error line, exit 2" \
    'one_error "outside the partition"'

# ---- 4x4, shm: every algorithm and auto, the CSV ---------------------------
header="workload,matrix,matrix_seed,p,provider,alg,size,elem_size,msg_bytes_per_unit,rep,t_units,total_s,comm_s,sched_s,recv_s,phases,max_concurrent_in,msgs,bytes,msgs_recv,bytes_recv,inquiries,denials,nstages,stage1_steps,stage1_msgs,stage1_maxlen,stage2_steps,stage2_msgs,stage2_maxlen,stage3_steps,stage3_msgs,stage3_maxlen,stage4_steps,stage4_msgs,stage4_maxlen,gather_s,copy_s,sbuf_units,rbuf_units,mesh,s,auto_picks"
run 16 shm --bcast all,auto --workload cross:s=7 --mesh 4x4 --sizes 32,1000 \
    --reps 2 --csv b.csv
check "4x4 shm: all and auto on cross:s=7, every byte verified, one table ($ms ms)" \
    '[ "$rc" -eq 0 ] && [ "$(grep -c "^# workload cross:s=7  p=16 .* mesh=4x4" out)" -eq 1 ] &&
     [ "$(grep -c "^    1000 |" out)" -ge 4 ] && [ ! -s err ]'
check "4x4 shm: the CSV has the shared header plus mesh,s,auto_picks and 36 rows of 43 columns" \
    '[ "$(head -n 1 b.csv)" = "$header" ] && [ "$(sed 1d b.csv | wc -l)" -eq 36 ] &&
     [ "$(sed 1d b.csv | sed "s/\"[^\"]*\"/X/g" | awk -F, "NF != 43" | wc -l)" -eq 0 ]'
# br_* and xor never send a node its own message: exactly (p - 1) x 7 x size
# bytes; the others at least that; t = 7 units; auto picks repos on 4x4.
sed 1d b.csv | awk -F, '{
    want = 15 * 7 * $7
    if ($6 ~ /^(br_|xor)/ && $19 != want) print "bytes: " $0
    if ($19 < want || $11 != 7 || $41 != "4x4" || $42 != 7) print "row: " $0
    if ($39 != 0 || $40 != 0) print "buffers: " $0
    if ($43 != "repos") print "auto: " $0
    seen[$6]++
} END { if (length(seen) != 9) print "algorithms: " length(seen) }' >why
check "4x4 shm: bytes = 15 x 7 x size for br_* and xor, at least that for all, t, mesh, s, auto's pick, no liu2002 buffers" \
    '[ ! -s why ]'

# ---- tcp, a prime p; a skewed mesh with random lengths, discovered -------
run 7 tcp --bcast all --workload equal:s=3 --sizes 16,1000 --reps 1 \
    --warmup 0 --csv t.csv
check "7 nodes (1x7) over tcp: all eight on equal:s=3, every byte verified ($ms ms)" \
    '[ "$rc" -eq 0 ] && grep -q "mesh=1x7" out && [ "$(sed 1d t.csv | wc -l)" -eq 16 ] &&
     [ ! -s err ]'
run 16 shm --bcast br_xy_source,br_xy_dim,part_xy_source,auto --mesh 2x8 \
    --workload 'random:s=5,L=1:4' --workload row --sizes 64 --reps 1 \
    --recv am --csv d.csv
check "2x8 shm: random lengths (L=1:4) and row, counts discovered (--recv am), verified ($ms ms)" \
    '[ "$rc" -eq 0 ] && [ "$(grep -c "recv=am  mesh=2x8" out)" -eq 2 ] &&
     [ "$(sed 1d d.csv | sed "s/\"[^\"]*\"/X/g" | awk -F, "\$41 != \"2x8\"" | wc -l)" -eq 0 ] &&
     [ "$(sed 1d d.csv | wc -l)" -eq 8 ] && [ ! -s err ]'
printf '# rank,length\n0,3\n5\n6,1\n' >dist.csv
run 8 shm --bcast br_lin,2step --workload csv:dist.csv --sizes 8 --reps 1 \
    --csv c.csv
check "a csv distribution (lengths 3, 1 by default, 1): t = 5 units, verified" \
    '[ "$rc" -eq 0 ] && [ "$(sed 1d c.csv | awk -F, "\$11 != 5 || \$42 != 3" | wc -l)" -eq 0 ] &&
     [ "$(sed 1d c.csv | wc -l)" -eq 2 ]'
run 4 tcp --bcast repos -o repos_alg=br_lin -o br_lin_order=rowmajor \
    --interrupts --workload dr --sizes 100 --reps 2
check "4 nodes tcp: repos with options and interrupts, verified ($ms ms)" \
    '[ "$rc" -eq 0 ] && grep -q "interrupts  mesh=2x2" out && [ ! -s err ]'

# ---- a wrong byte is caught and named; the plot -------------------------------
RUNENV=CM5SCHED_TEST_CORRUPT=2:5
run 4 shm --bcast xor --workload cross:s=2 --sizes 16 --reps 1 --warmup 0
RUNENV=
check "a corrupted byte stops the job naming algorithm, distribution, size, source and node" \
    '[ "$rc" -ne 0 ] && [ "$(grep -c "cm5sched: xor, distribution cross:s=2, size 16, rep 0: byte 5 of source [0-9]'"'"'s message on node 2 is" err)" -eq 1 ]'
if command -v gnuplot >/dev/null; then
    run 4 shm --bcast br_lin,xor --workload row --sizes 16:64 --reps 1 \
        --plot p.png --quiet
    check "--plot wrote a PNG" \
        '[ "$rc" -eq 0 ] && [ "$(head -c 4 p.png | od -An -c | tr -d " ")" = "211PNG" ]'
else
    skip "--plot wrote a PNG" "gnuplot not installed"
fi
run 1 - --bcast br_lin,auto --workload row --sizes 16 --reps 1
check "1 node: a 1x1 mesh, nothing on the wire, exit 0" \
    '[ "$rc" -eq 0 ] && grep -q "mesh=1x1" out'
echo "# $n tests in $(($(date +%s) - t_start)) s"
[ "$n" -eq "$PLAN" ] || echo "# planned $PLAN tests, ran $n"
