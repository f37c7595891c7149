#!/bin/sh
# cm5sched, the experiment driver: --help, bad arguments (one error line,
# non-zero exit, no hang, on 1 and 4 nodes), every algorithm once on 4
# nodes (an algorithm that is not built yet is a TAP SKIP), small runs on 4
# and 8 nodes over shm and tcp with the CSV checked column by column and
# row by row, a corrupted byte caught and named (also with a4_unordered=1,
# whose records cm5sched compares as multisets), and the plot when
# gnuplot is there.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/algos/cm5sched.sh

: "${abs_top_builddir:=$(pwd)}"
CM5RUN=$abs_top_builddir/tools/cm5run
SCHED=$abs_top_builddir/tools/cm5sched
ALGS="ac lp rsn rsnh drsn drsn+ two-stage a1 a2 a3 a4"
# One message per nonzero off-diagonal entry, nothing else on the wire.
DIRECT="ac lp rsn rsnh"

unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER \
    CM5SCHED_TEST_CORRUPT
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo

PLAN=$((4 + 11 + 13 + 4 * 3 + 1 + 3 + 2))
. "$(dirname "$0")/../tap.sh"
tap_begin cm5sched "$PLAN"

# run NODES PROVIDER ARGS...: NODES 1 runs the program alone (a 1-node
# partition); otherwise under cm5run, with the environment assignments in
# RUNENV.  Leaves rc, ms, out, err.
RUNENV=
run() {
    nodes=$1 prov=$2
    shift 2
    what="cm5sched $* on $nodes nodes, $prov"
    t0=$(now_ms)
    if [ "$nodes" = 1 ]; then
        timeout -k 2 30 "$SCHED" "$@" >out 2>err
    else
        # PROVIDER "rings": cm5run's default path (no --provider)
        timeout -k 2 70 env $RUNENV "$CM5RUN" -n "$nodes" \
            $([ "$prov" = rings ] || echo "--provider $prov") \
            --timeout 60 "$SCHED" "$@" >out 2>err
    fi
    rc=$?
    ms=$(($(now_ms) - t0))
}

# Exactly one line from cm5sched itself (cm5run adds its own line when it
# stops the job), a status of 2 and nothing on stdout.
one_error() {
    [ "$rc" -eq 2 ] && [ "$(grep -c '^cm5sched: ' err)" -eq 1 ] &&
        grep -q "^cm5sched: .*$1" err && [ ! -s out ]
}

# ---- --help ------------------------------------------------------------
run 1 - --help
help_ok=1
for a in $ALGS; do
    grep -q "^Algorithms:.* $a\( \|\$\)" out || help_ok=0
done
check "--help lists every algorithm" '[ "$rc" -eq 0 ] && [ "$help_ok" = 1 ]'
help_ok=1
for o in --alg --workload --sizes --reps --warmup --matrices --seed --stat \
    -o --recv --interrupts --csv --plot --progress --quiet --spread --help \
    --version; do
    grep -q "^  $o[ ,]" out || { help_ok=0; echo "# --help lacks $o"; }
done
# Every algorithm option and every workload kind, as the library lists them.
for o in lp_barrier rsn_row_order rsnh_cutoff drs_release drs_chunk_max \
    twostage_engine hdr_format a4_mode a4_unordered; do
    grep -q "^  $o " out || { help_ok=0; echo "# --help lacks -o $o"; }
done
grep -q '^Workloads' out || help_ok=0
check "--help documents every option, the -o options and the workloads" \
    '[ "$help_ok" = 1 ]'
check "--help fits in 80 columns" '[ "$(awk "length > 80" out | wc -l)" -eq 0 ]'
run 1 - --version
check "--version names cm5fab" \
    '[ "$rc" -eq 0 ] && grep -q "^cm5sched (cm5fab [0-9]" out'

# ---- bad arguments -------------------------------------------------------
run 1 - --alg lp,nosuch
check "unknown algorithm: one error line, exit 2" 'one_error "nosuch"'
run 1 - --sizes 3:16
check "--sizes 3:16 (not a power of two): one error line, exit 2" \
    'one_error "power of two"'
run 1 - --sizes 64:16
check "--sizes 64:16 (empty range): one error line, exit 2" \
    'one_error "larger"'
run 1 - --sizes 16,x
check "--sizes 16,x: one error line, exit 2" 'one_error "x"'
run 1 - --workload nosuch:d=3
check "unknown workload: one error line, exit 2" 'one_error "nosuch"'
run 1 - -o nosuch=1
check "unknown -o option: one error line, exit 2" 'one_error "nosuch"'
run 1 - -o drs_chunk_max=0
check "-o drs_chunk_max=0: one error line, exit 2" \
    'one_error "drs_chunk_max: .0. is not in 1..2147483647"'
run 1 - -o a4_unordered=2
check "-o a4_unordered=2: one error line, exit 2" \
    'one_error "a4_unordered: .2. is not 0 or 1"'
run 1 - --reps
check "--reps without a value: one error line, exit 2" 'one_error "reps"'
# Every node reaches the same verdict; node 0 alone prints it.
run 4 shm --alg lp,nosuch --sizes 16
check "unknown algorithm on 4 nodes: one error line, exit 2, no hang ($ms ms)" \
    'one_error "nosuch"'
# A workload error found by every node after the matrix's collective
# build: node 0's line comes before any node ends the job.
run 8 rings --workload nosuch:d=3 --sizes 16
check "unknown workload on 8 nodes: one error line, exit 2 ($ms ms)" \
    'one_error "nosuch"'
# One matrix per host: one node builds it in shared memory, the others
# map it (cm5sched_share.c); every byte still verified.
run 8 rings --alg lp,ac --workload density:d=4 --matrices 2 --sizes 64 \
    --reps 1 --warmup 0 --progress
check "one matrix per host: built by 1 node, mapped by 7, for each seed ($ms ms)" \
    '[ "$rc" -eq 0 ] && [ "$(grep -c "^\[matrix\] density:d=4, seed [12]: built by 1 node(s), mapped by 7, private copies 0\$" err)" -eq 3 ] && [ "$(grep -c "^\[matrix\]" err)" -eq 3 ]'
RUNENV="PATH=$scratch/nowhere"
run 4 shm --plot x.png --alg lp --workload density:d=2 --sizes 16
RUNENV=
check "--plot without gnuplot in PATH: one error line before any run" \
    'one_error "gnuplot" && [ ! -e x.png ]'

# ---- which algorithms are built: each once on 4 nodes --------------------
# density:d=2 on 4 nodes: every node sends 2 messages of 'size' bytes and
# receives 2.
have_density=1
run 1 - --alg lp --workload density:d=2 --sizes 16 --reps 1 --warmup 0 --quiet
grep -q "not built yet" err && have_density=0
built=
for a in $ALGS; do
    desc="$a on 4 nodes (shm), density:d=2, sizes 16 and 1000: every byte verified"
    if [ $have_density = 0 ]; then
        skip "$desc" "workload generators not built yet"
        continue
    fi
    run 4 shm --alg $a --workload density:d=2 --sizes 16,1000 --reps 1 \
        --warmup 0 --quiet --csv a.csv
    if grep -q "algorithm not built yet" err; then
        skip "$desc" "algorithm not built yet"
        continue
    fi
    exact=:
    case " $DIRECT " in
    *" $a "*)
        # msgs, bytes (sums over nodes) per size: 8 messages of size bytes.
        exact='[ "$(cut -d, -f7,18,19 a.csv | sed 1d | tr "\n" " ")" = "16,8,128 1000,8,8000 " ]'
        desc="$desc, 8 messages of size bytes"
        ;;
    esac
    if [ "$rc" -eq 0 ] && [ "$(wc -l <a.csv)" -eq 3 ] && eval "$exact"; then
        ok "$desc ($ms ms)"
        built="$built $a"
    else
        not_ok "$desc"
        sed 's/^/#   csv: /' a.csv 2>/dev/null
    fi
done
echo "# built:${built:- none}"

# ---- small runs: 4 and 8 nodes, shm and tcp --------------------------------
header="workload,matrix,matrix_seed,p,provider,alg,size,elem_size,msg_bytes_per_unit,rep,t_units,total_s,comm_s,sched_s,recv_s,phases,max_concurrent_in,msgs,bytes,msgs_recv,bytes_recv,inquiries,denials,nstages,stage1_steps,stage1_msgs,stage1_maxlen,stage2_steps,stage2_msgs,stage2_maxlen,stage3_steps,stage3_msgs,stage3_maxlen,stage4_steps,stage4_msgs,stage4_maxlen,gather_s,copy_s,sbuf_units,rbuf_units"
two=$(echo $built | cut -d' ' -f1-2 | tr ' ' ,)
nalg=$(echo "$two" | tr , '\n' | grep -c .)
for nodes in 4 8; do
    for prov in shm tcp; do
        d="$nodes nodes, $prov"
        if [ -z "$two" ]; then
            for k in 1 2 3; do
                skip "$d: small run ($k/3)" "no algorithm built yet"
            done
            continue
        fi
        plot=
        if [ $nodes = 8 ] && [ $prov = shm ] && command -v gnuplot >/dev/null; then
            plot="--plot r.png"
        fi
        rm -f r.csv r.png
        run $nodes $prov --alg "$two" --workload density:d=2 \
            --workload 'kl:k=2,l=1/2,t=64' --sizes 16:32 --reps 2 \
            --matrices 2 --warmup 0 --seed 5 --csv r.csv $plot
        check "$d: $two on two workloads, 2 sizes, 2 matrices, 2 reps: exit 0, a table per workload ($ms ms)" \
            '[ "$rc" -eq 0 ] && [ "$(grep -c "^# workload .* p=$nodes  provider=" out)" -eq 2 ] &&
             [ "$(grep -c "^      32 |" out)" -ge 2 ] && [ ! -s err ]'
        rows=$((2 * nalg * 2 * 2 * 2))
        check "$d: CSV has the expected header and $rows rows of 40 columns" \
            '[ "$(head -n 1 r.csv)" = "$header" ] &&
             [ "$(sed 1d r.csv | wc -l)" -eq $rows ] &&
             [ "$(sed 1d r.csv | sed "s/\"[^\"]*\"/X/g" | awk -F, "NF != 40" | wc -l)" -eq 0 ]'
        # density:d=2 rows: p, seeds 5 and 6, t = 2 units, bytes >= 2p size.
        check "$d: CSV rows name p, provider, seeds 5 and 6, and carry the traffic" \
            '[ "$(grep -c "^\"density:d=2\",[01],[56],$nodes,\"$(echo $prov | cut -c1-3)" r.csv)" -eq $((rows / 2)) ] &&
             [ "$(grep "^\"density:d=2\"" r.csv | awk -F, -v p=$nodes "\$11 != 2 || \$19 < 2 * p * \$7" | wc -l)" -eq 0 ]'
        if [ -n "$plot" ]; then
            check "$d: --plot wrote a PNG" \
                '[ "$(head -c 4 r.png | od -An -c | tr -d " ")" = "211PNG" ]'
        fi
    done
done
if [ -z "$two" ] || ! command -v gnuplot >/dev/null; then
    skip "--plot wrote a PNG" "${two:+gnuplot not installed}${two:-no algorithm built yet}"
fi

# ---- cost accounting (issue 10, item 3) -------------------------------------
# comm, comp (sched_s) and gather (recv_s + gather_s) apart: RS_N's
# concatenate and two-stage's global max and Generate_Recv are gather,
# not comp; LP gathers and plans nothing; recv=am is gather for everyone.
run 4 shm --alg lp,rsn,two-stage --workload density:d=2 --sizes 16 --reps 2 \
    --warmup 0 --csv acct.csv --spread
check "accounting: the table has comm (its min and max with --spread), comp, gather and total ($ms ms)" \
    '[ "$rc" -eq 0 ] && grep -q "^    size |      comm  comm min  comm max      comp    gather     total   perm    msgs |" out'
awk -F, 'NR > 1 {
    a = $6; tot = $12; comm = $13; comp = $14; rv = $15; g = $37; cp = $38; sb = $39; rb = $40
    if (comm > tot + 1e-9 || g > tot + 1e-9) print "over total: " $0
    if (a == "lp" && (g != 0 || comp != 0 || rv > 1e-5)) print "lp: " $0
    if ((a == "rsn" || a == "two-stage") && !(g > 0)) print "no gather: " $0
    if (a != "two-stage" && cp != 0) print "copies outside two-stage: " $0
    if (a == "two-stage" && !(cp > 0 && cp <= comm + 1e-9)) print "copy: " $0
    if (a == "rsn" && !(comp > 0)) print "rsn no comp: " $0
    if (a != "two-stage" && (sb != 0 || rb != 0)) print "buffers: " $0
    if (a == "two-stage" && !(sb > 0 && rb > 0)) print "no buffers: " $0
}' acct.csv >why 2>&1
check "accounting: rsn and two-stage gather, lp neither gathers nor plans, nothing above total; only two-stage copies, within its comm, and only it reports staging buffers (sbuf_units, rbuf_units)" \
    '[ "$rc" -eq 0 ] && [ ! -s why ] && [ "$(sed 1d acct.csv | wc -l)" -eq 6 ]'

# ---- a wrong byte is caught and named --------------------------------------
first=$(echo $built | cut -d' ' -f1)
if [ -n "$first" ]; then
    RUNENV=CM5SCHED_TEST_CORRUPT=2:5
    run 4 shm --alg $first --workload density:d=2 --sizes 16 --reps 1 \
        --warmup 0
    RUNENV=
    check "a corrupted byte stops the job naming algorithm, workload, size, source, destination and offset" \
        '[ "$rc" -ne 0 ] && [ "$(grep -c "cm5sched: $first, workload density:d=2, size 16, .*byte 5 from node [0-9] to node 2 is" err)" -eq 1 ]'
else
    skip "a corrupted byte stops the job" "no algorithm built yet"
fi
# a4_unordered=1: the records of each node checked as a multiset, and a
# corrupted one caught.
case " $built " in
*" a4 "*)
    run 5 shm --alg a4,lp --workload pattern2 --workload random --sizes 1,3 \
        --reps 1 --warmup 0 -o a4_unordered=1 -o a4_mode=n1
    check "a4 and lp with -o a4_unordered=1 on 5 nodes: every record verified ($ms ms)" \
        '[ "$rc" -eq 0 ] && [ "$(grep -c "^       3 |" out)" -ge 2 ] && [ ! -s err ]'
    RUNENV=CM5SCHED_TEST_CORRUPT=2:5
    run 4 shm --alg a4 --workload density:d=2 --sizes 16 --reps 1 \
        --warmup 0 -o a4_unordered=1
    RUNENV=
    check "a4_unordered=1: a corrupted byte stops the job naming the node" \
        '[ "$rc" -ne 0 ] && [ "$(grep -c "cm5sched: a4, workload density:d=2, size 16, .*node 2: the records received (a4_unordered=1) are not those sent to it" err)" -eq 1 ]'
    ;;
*)
    skip "a4 with -o a4_unordered=1" "a4 not built"
    skip "a4_unordered=1: a corrupted byte stops the job" "a4 not built"
    ;;
esac
echo "# $n tests in $(($(date +%s) - t_start)) s"
[ "$n" -eq "$PLAN" ] || echo "# planned $PLAN tests, ran $n"
