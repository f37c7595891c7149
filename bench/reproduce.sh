#!/bin/sh
# reproduce.sh: rerun the papers' experiments with cm5sched and write
# doc/reproduction.md from the real runs (PAPER_RESULTS.md gives the
# papers' tables to compare with):
#   wang1993 Table 2 (node contention: k senders into one node), Table 3
#   (recvl: Generate_Recv against concatenate), Tables 4-6
#   (test sets 1-3: density, non-uniform sizes, airfoil meshes);
#   ranka1995 best and worst k/l cases at fixed traffic;
#   liu2002 Pattern1 / Pattern2 with A1-A4, P varied (Figs 15/17), M_max
#   varied in blocking, n1 and n2 modes (Figs 16/18-22) and A3 against
#   A4-n2 on square P (Fig 23);
#   hambrusch1995 Figs 2-7 and the tables of Figs 8 and 9, hambrusch1996
#   Figs 8/9 (s-to-p broadcasting, cm5sched --bcast), on meshes scaled by
#   --hb-scale (sources scaled with p, message lengths as the papers),
#   with Open MPI's MPI_Allgatherv and the algorithms' MPI port
#   (hambrusch1996 section 6, bench/mpi_bcast_port.c) on the same inputs.
# The document starts with the status of every table and figure of the
# five papers and the verdict on each checkable claim of PAPER_RESULTS.md,
# both computed from this run's CSV files by bench/verdicts.py.
# Algorithms and workloads the library does not provide yet are detected
# by a quick run and listed as missing; every other run goes into the
# document with its command line, table and CSV.  --quick makes a small
# version (8 nodes, two sizes, one matrix, one rep) in a few minutes.
# shellcheck disable=SC2317 # cleanup is called by trap
set -u

me=${0##*/}
# How long the run takes and how busy the machine was: the real-clock
# verdicts depend on it (both go into the document).
run_t0=$(date +%s)
run_load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
run_args=" $*" # for the document's first line (build and output paths too)
[ "$run_args" = " " ] && run_args=
srcdir=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=
NODES=32
PROVIDER=auto
OUT=
QUICK=0
MATRICES=5
REPS=3
SEED=1
TIMEOUT=1800
T3_NODES="64 128 256"
T3_PROVIDER=
RECV_MODES="given am"
SECTIONS="t2 t3 t3n t4 t5 t6 kl liu liup lium liusq hb"
HB_SCALE=1
LIU_NODES="8 16 32 64"
KL_T=
LIU_P=64
LIU_SQUARE="16 25 36 49 64"
MODEL=
WANG_FLAGS=-

usage() {
    cat <<EOF
usage: $me [OPTIONS]

Rerun the papers' experiments with cm5sched and write doc/reproduction.md.

  --quick            8 nodes, two sizes per table, 1 matrix, 1 rep
  --nodes P          nodes of every job (default: $NODES, as the papers)
  --provider NAME    cm5run --provider (default: auto, cm5run's own
                     choice: on one host the same-host rings, what a user
                     gets; a name forces libfabric's path for every
                     packet, and libfabric's shm then takes at most 128
                     nodes)
  --model SPEC       run every job in virtual time (cm5run --model SPEC,
                     e.g. cm5 or logp:L=6,o=2.2,g=4; doc/model.md) with
                     computation free (CM5_MODEL_CPU_SCALE=0 unless set):
                     times are the modelled CM-5's, the same on an idle
                     and a busy machine; the MPI reference rows are left
                     out (MPI has no virtual clock); the nodes are
                     synchronised (CM5_MODEL_SYNC=on unless set), so the
                     document is the same on every run
  --matrices M       matrices per point (default: $MATRICES; wang1993 used 50)
  --reps N           timed runs per point (default: $REPS)
  --seed S           first matrix seed (default: $SEED)
  --table3-nodes L   larger partitions for wang1993 Table 3, its rows
                     d = 4, 8, 16, ... and n - 1 (concatenate at d = 4
                     and 16) (default: "$T3_NODES"; "" for none; --quick:
                     none)
  --t3-provider NAME provider of those jobs (default: --provider's; on
                     one host auto takes up to 1024 nodes)
  --recv-modes L     recvcounts of Tables 4-6: given (recv=given) and/or am
                     (discovered by Generate_Recv, wang1993 Fig. 5 step 1)
                     (default: "$RECV_MODES"; --quick: given)
  --wang-flags F     cm5sched flags of wang1993's Tables 3-6 (default with
                     --model: "--interrupts -o drs_data=cmmd", as the
                     paper ran them: handlers by interrupt, DRS_N's data
                     as CMMD messages into buffers posted at the start;
                     on the real clock: none; doc/model.md)
  --sections LIST    run only these, comma-separated (default: all):
                     t2 (wang1993 Table 2), t3 (Table 3), t3n (Table 3 on
                     --table3-nodes), t4, t5,
                     t6 (wang1993 Tables 4-6), kl (ranka1995), liu (liu2002
                     at --nodes), liup (liu2002 Figs 15/17: P varied), lium
                     (Figs 16/18-22: M_max varied, modes b, n1, n2), liusq
                     (Fig 23: A3 vs A4-n2 on square P), hb
                     (hambrusch1995/1996)
  --kl-t L           traffic t per node of section kl (default: "4096 16384
                     65536 262144 1048576"; --quick: 4096)
  --liu-nodes L      P of section liup (default: "$LIU_NODES"; --quick: "4 8")
  --liu-p P          P of section lium, a square (default: $LIU_P; --quick: 16)
  --liu-square L     square P of section liusq (default: "$LIU_SQUARE";
                     --quick: "4 9")
  --hb-scale K       hambrusch meshes divided by K on each side (1: the
                     papers' 10x10, 15x16, 8x8 and 16x16; 2: 5x5, 8x8, 4x4,
                     8x8; --quick: 3), sources scaled with p; Fig. 7's
                     p = 120 becomes the largest p <= 120 / K^2 (>= 12)
                     with two shapes (2: 30, 3: 12)
  --timeout S        limit for each cm5sched job (default: $TIMEOUT)
  --builddir DIR     build tree with tools/cm5run and tools/cm5sched
                     (default: the current directory if it has them, else
                     ../_build relative to this script)
  --out FILE         the Markdown written (default: SRCDIR/doc/reproduction.md;
                     CSV files go beside it in reproduction/)
  --help
EOF
}

need() {
    [ $# -ge 2 ] || { echo "$me: $1 needs a value" >&2; exit 2; }
}
while [ $# -gt 0 ]; do
    case $1 in
    --nodes | --provider | --model | --matrices | --reps | --seed | --timeout | \
        --builddir | --out | --table3-nodes | --sections | --recv-modes | \
        --t3-provider | --wang-flags | \
        --hb-scale | --liu-nodes | --liu-p | --liu-square | --kl-t)
        need "$@" ;;
    esac
    case $1 in
    --quick) QUICK=1 ;;
    --nodes) NODES=$2; shift ;;
    --provider) PROVIDER=$2; shift ;;
    --model) MODEL=$2; shift ;;
    --matrices) MATRICES=$2; shift ;;
    --reps) REPS=$2; shift ;;
    --seed) SEED=$2; shift ;;
    --table3-nodes) T3_NODES=$2; shift ;;
    --t3-provider) T3_PROVIDER=$2; shift ;;
    --recv-modes) RECV_MODES=$2; shift ;;
    --wang-flags) WANG_FLAGS=$2; shift ;;
    --hb-scale) HB_SCALE=$2; shift ;;
    --liu-nodes) LIU_NODES=$2; shift ;;
    --kl-t) KL_T=$2; shift ;;
    --liu-p) LIU_P=$2; shift ;;
    --liu-square) LIU_SQUARE=$2; shift ;;
    --sections) SECTIONS=$(echo "$2" | tr ',' ' '); shift ;;
    --timeout) TIMEOUT=$2; shift ;;
    --builddir) BUILDDIR=$2; shift ;;
    --out) OUT=$2; shift ;;
    --help | -h) usage; exit 0 ;;
    *) echo "$me: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    esac
    shift
done
if [ $QUICK = 1 ]; then
    NODES=8 MATRICES=1 REPS=1 T3_NODES= RECV_MODES=given HB_SCALE=3
    LIU_NODES="4 8" LIU_P=16 LIU_SQUARE="4 9"
fi
# is_square N: N is a perfect square.
is_square() {
    r=0
    while [ $((r * r)) -lt "$1" ]; do r=$((r + 1)); done
    [ $((r * r)) -eq "$1" ]
}
for x in $LIU_P $LIU_SQUARE; do
    case $x in
    *[!0-9]* | '') echo "$me: '$x' is not a node count" >&2; exit 2 ;;
    esac
    is_square "$x" || { echo "$me: --liu-p/--liu-square: $x is not a square" >&2; exit 2; }
done
for x in $LIU_NODES; do
    case $x in
    *[!0-9]* | '') echo "$me: --liu-nodes: '$x' is not a node count" >&2; exit 2 ;;
    esac
done
for x in $KL_T; do
    case $x in
    *[!0-9]* | '') echo "$me: --kl-t: '$x' is not a byte count" >&2; exit 2 ;;
    esac
done
for x in $RECV_MODES; do
    case $x in
    given | am) ;;
    *) echo "$me: --recv-modes: '$x' is neither given nor am" >&2; exit 2 ;;
    esac
done
for x in $SECTIONS; do
    case $x in
    t2 | t3 | t3n | t4 | t5 | t6 | kl | liu | liup | lium | liusq | hb) ;;
    *) echo "$me: --sections: unknown section '$x' (--help lists them)" >&2; exit 2 ;;
    esac
done
# want SECTION: it is among --sections.
want() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }
if [ -z "$BUILDDIR" ]; then
    if [ -x tools/cm5sched ]; then BUILDDIR=$(pwd); else BUILDDIR=$srcdir/_build; fi
fi
CM5RUN=$BUILDDIR/tools/cm5run
SCHED=$BUILDDIR/tools/cm5sched
for f in "$CM5RUN" "$SCHED"; do
    [ -x "$f" ] || { echo "$me: $f not found (build first, or --builddir)" >&2; exit 2; }
done
if [ "$WANG_FLAGS" = - ]; then
    WANG_FLAGS=
    [ -n "$MODEL" ] && WANG_FLAGS="--interrupts -o drs_data=cmmd"
fi
if [ -n "$MODEL" ]; then
    # cm5run says in one line what is wrong with a model spec.
    "$CM5RUN" -n 1 --model "$MODEL" "$SCHED" --version >/dev/null || exit 2
    # Computation free by default: virtual times then do not depend on
    # the host's load (doc/model.md, "Stable under load").
    : "${CM5_MODEL_CPU_SCALE:=0}"
    export CM5_MODEL_CPU_SCALE
    # Synchronised by default: the nodes' handlers and messages meet in
    # virtual-time order, so that the document is the same on every run
    # (doc/model.md, "Synchronisation"); its date, duration and load go
    # to reproduction/run.txt instead.
    : "${CM5_MODEL_SYNC:=on}"
    export CM5_MODEL_SYNC
fi
: "${OUT:=$srcdir/doc/reproduction.md}"
# The jobs run in a scratch directory: a relative --out names a file here.
case $OUT in /*) ;; *) OUT=$(pwd)/$OUT ;; esac
csvdir=$(dirname "$OUT")/reproduction
mkdir -p "$csvdir" || exit 1
# The verdicts read every CSV there: none may be left from another run.
rm -f "$csvdir"/*.csv

scratch=$(mktemp -d "${TMPDIR:-/tmp}/cm5repro.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 1' HUP INT TERM
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo

# sched NODES ARGS...: one cm5sched job; output in $scratch/out, err.
sched() {
    n=$1
    shift
    (cd "$scratch" && timeout -k 5 $((TIMEOUT + 10)) "$CM5RUN" -n "$n" \
        $([ "$PROVIDER" = auto ] || echo "--provider $PROVIDER") \
        ${MODEL:+--model "$MODEL"} \
        --timeout "$TIMEOUT" "$SCHED" "$@" >out 2>err)
}

# What the library provides: each algorithm and workload once, on 4 nodes.
built=
missing=
for a in ac lp rsn rsnh drsn drsn+ two-stage a1 a2 a3 a4; do
    if sched 4 --alg $a --workload density:d=2 --sizes 16 --reps 1 \
        --warmup 0 --quiet; then
        built="$built $a"
    else
        why=$(grep -m1 -o 'not built yet\|error.*' "$scratch/err" | cut -c1-120)
        missing="$missing $a (${why:-failed})"
        echo "$me: $a: ${why:-failed}" >&2
    fi
done
wl_missing=
for w in contention:k=2 density:d=2 nonuniform:d=2 mesh:airfoil2800,part=grow kl:k=2,l=1/2 pattern1 pattern2; do
    if ! sched 4 --alg lp --workload "$w" --sizes 1 --reps 1 --warmup 0 \
        --quiet; then
        wl_missing="$wl_missing $w"
        echo "$me: $w: $(grep -m1 '^cm5sched' "$scratch/err" | cut -c1-160)" >&2
    fi
done
# keep ALGS...: the algorithms of ALGS that work, comma-separated.
keep() {
    r=
    for a in "$@"; do
        case " $built " in *" $a "*) r="$r${r:+,}$a" ;; esac
    done
    echo "$r"
}
has_wl() { case " $wl_missing " in *" $1 "*) return 1 ;; esac; }

exec 3>"$OUT.tmp" || exit 1
cat >"$scratch/head" <<EOF
# Reproduction of the papers' experiments on cm5fab

Generated by \`bench/reproduce.sh$run_args\` on
$([ -z "$MODEL" ] && date -u '+%Y-%m-%d %H:%M UTC, ')$(uname -srm), $(nproc 2>/dev/null || echo '?') cores;
$("$SCHED" --version 2>/dev/null | head -n 1).
$NODES nodes$(want hb && echo " (each hambrusch section: its mesh's)"), provider $([ "$PROVIDER" = auto ] && echo "auto (cm5run's default: the same-host rings, libfabric shm for bulk)" || echo "$PROVIDER"), seeds from $SEED, $MATRICES matrices and
$REPS reps per point (mean shown).$([ -n "$MODEL" ] && printf '\n**Virtual time**: every job ran with `cm5run --model %s`\n(CM5_MODEL_CPU_SCALE=%s; RS_N'"'"'s and RS_NH'"'"'s planning costs its\ncounted steps): the times are the modelled CM-5'"'"'s\n(doc/model.md), not this machine'"'"'s, and the MPI reference rows are\nleft out; CM5_MODEL_SYNC=%s%s (its date and duration:\nreproduction/run.txt).' "$MODEL" "$CM5_MODEL_CPU_SCALE" "$CM5_MODEL_SYNC" "$([ "$CM5_MODEL_SYNC" = on ] && printf ': the nodes were synchronised, and with the\nsame options this document is the same on every run' || printf ': not synchronised, DRS_N'"'"'s times move from run to\nrun')") Compare **orderings, ratios and
crossovers** with /work/shared/PAPER_RESULTS.md (absolute times will not
compare: see its section A.5). Every run below verified every byte.
The CSV of every table is in \`reproduction/\`.

Algorithms run:${built:- none}.
EOF
[ -n "$missing" ] && echo "Not available yet:$missing." >>"$scratch/head"
[ -n "$wl_missing" ] && echo "Workloads not available yet:$wl_missing." >>"$scratch/head"
# The hand-written reading of a full run (it names the run it read).
# Beside the output, named after it: doc/reproduction-notes.md for the
# default doc/reproduction.md.
notes=${OUT%.md}-notes.md
if [ $QUICK = 0 ] && [ -f "$notes" ]; then
    printf '\n' >&3
    cat "$notes" >&3
fi

# section TITLE NOTE CSVNAME NODES ARGS...: run one table into the document.
section() {
    title=$1 note=$2 csv=$3 n=$4
    shift 4
    printf '\n## %s\n\n%s\n\n' "$title" "$note" >&3
    printf '```\ncm5run -n %s%s%s cm5sched %s\n```\n\n' "$n" \
        "$([ "$PROVIDER" = auto ] || echo " --provider $PROVIDER")" \
        "${MODEL:+ --model $MODEL}" "$*" >&3
    echo "$me: $title ..." >&2
    if sched "$n" "$@" --csv "$csvdir/$csv.csv" --seed "$SEED" \
        --matrices "$MATRICES" --reps "$REPS" --spread; then
        printf '```\n' >&3
        sed '/^$/d' "$scratch/out" >&3
        printf '```\n' >&3
        # The time to obtain recvcounts (column recv_s), when discovered.
        case " $* " in
        *" --recv "*)
            sed 1d "$csvdir/$csv.csv" | sed 's/"[^"]*"/X/g' | awk -F, '
                { s += $15; n++ }
                END { if (n) printf "\nrecvl: %.3f ms (mean of %d runs, max over nodes)\n", 1e3 * s / n, n }' >&3
            ;;
        esac
    else
        printf 'Failed:\n\n```\n' >&3
        tail -n 5 "$scratch/err" | cut -c1-200 >&3
        printf '```\n' >&3
    fi
}

if [ $QUICK = 1 ]; then
    T4_SIZES=16,4096 T5_UNITS=16,1024 T6_UNITS=16,256 DENS="4"
    : "${KL_T:=4096}"
    LIU_M=256 LIU_MS="64 1024"
else
    T4_SIZES=16,128,256,512,1024,2048,4096,16384,32768,131072
    T5_UNITS=16:4096 T6_UNITS=16:2048 DENS="4 16 $((NODES - 1))"
    : "${KL_T:=4096 16384 65536 262144 1048576}"
    LIU_M=1024 LIU_MS="64 256 1024 4096"
fi

# Tables 4-6 with recvcounts given, or discovered by Generate_Recv (am):
# the title, CSV suffix and cm5sched flag of each.
rtitle() { [ "$1" = given ] || echo ", recvl by Generate_Recv"; }
rsuffix() { [ "$1" = given ] || echo "_$1"; }
rflag() { [ "$1" = given ] || echo "--recv $1"; }

# wang1993 Table 2: k nodes send one message each to the last node at
# once (AC: no schedule), 256 and 4096 bytes.
algs=$(keep ac)
if want t2 && [ -n "$algs" ] && has_wl contention:k=2; then
    for k in 1 4 16 $((NODES - 1)); do
        [ "$k" -lt "$NODES" ] || continue
        section "wang1993 Table 2: node contention, k = $k" \
            "Paper: for 4096 B the receiver's time grows linearly in k (x4.24 at 4, x19.1 at 16, x37.8 at 31 against k = 1)." \
            "t2_k$k" "$NODES" --alg "$algs" --workload "contention:k=$k" \
            --sizes 256,4096
    done
fi

# wang1993 Table 3: recvl generation (recv_s in the CSV).
# Its densities: 4, 8, 16, ... as the paper's rows, the last one n - 1 (the
# paper's row "d = n", every other node); concatenate is flat in d, so the
# larger partitions run it at d = 4 and 16 only.
t3_dens() {
    if [ $QUICK = 1 ]; then
        echo "$DENS"
        return
    fi
    td=4
    while [ "$td" -lt "$1" ]; do
        echo "$td"
        td=$((td * 2))
    done
    echo $(($1 - 1))
}
algs=$(keep lp)
if [ -n "$algs" ] && has_wl density:d=2; then
    want t3 && for d in $(t3_dens "$NODES"); do
        [ "$d" -lt "$NODES" ] || continue
        for r in am concat; do
            section "wang1993 Table 3: recvl by $r, d = $d" \
                "wang1993 Table 3: the AM method (Generate_Recv) grows with d, concatenate with n^2; AM wins at every point." \
                "t3_${r}_d$d" "$NODES" --alg "$algs" \
                --workload "density:d=$d" --sizes 16 --recv $r $WANG_FLAGS
        done
    done
    # The paper's larger n (128, 256): concatenate grows with n^2.
    main_provider=$PROVIDER
    PROVIDER=${T3_PROVIDER:-$PROVIDER}
    want t3n && for n in $T3_NODES; do
        for d in $(t3_dens "$n"); do
            [ "$d" -lt "$n" ] || continue
            for r in am concat; do
                [ $r = am ] || [ "$d" = 4 ] || [ "$d" = 16 ] || continue
                section "wang1993 Table 3 at n = $n: recvl by $r, d = $d" \
                    "wang1993 Table 3 (concatenate 106.8 / 424.8 ms at n = 128 / 256; AM 1.40 -> 5.12 ms at n = 128, 2.67 -> 11.64 at n = 256, d = 4 -> n - 1)." \
                    "t3_n${n}_${r}_d$d" "$n" --alg "$algs" \
                    --workload "density:d=$d" --sizes 16 --recv $r $WANG_FLAGS
            done
        done
    done
    PROVIDER=$main_provider
fi

# wang1993 Table 4: test set 1, uniform sizes.
algs=$(keep ac lp rsn drsn)
if want t4 && [ -n "$algs" ] && has_wl density:d=2; then
    for rv in $RECV_MODES; do
        for d in $DENS; do
            [ "$d" -lt "$NODES" ] || continue
            section "wang1993 Table 4: test set 1, d = $d$(rtitle $rv)" \
                "Paper: sparse (d = 4) RS_N < DRS_N < LP ~ AC for large messages; dense (d = 31) LP best at every size; AC/LP grows with d." \
                "t4_d$d$(rsuffix $rv)" "$NODES" --alg "$algs" \
                --workload "density:d=$d" --sizes "$T4_SIZES" $(rflag $rv) $WANG_FLAGS
        done
    done
fi

# wang1993 Table 5: test set 2, non-uniform sizes.
algs=$(keep ac lp rsn drsn rsnh)
if want t5 && [ -n "$algs" ] && has_wl nonuniform:d=2; then
    for rv in $RECV_MODES; do
        for d in $DENS; do
            [ "$d" -lt "$NODES" ] || continue
            section "wang1993 Table 5: test set 2, d = $d$(rtitle $rv)" \
                "Paper: RS_NH lowest comm in almost every row (it pays in comp); DRS_N best once at d = 4 for units >= 256." \
                "t5_d$d$(rsuffix $rv)" "$NODES" --alg "$algs" \
                --workload "nonuniform:d=$d" --sizes "$T5_UNITS" $(rflag $rv) $WANG_FLAGS
        done
    done
fi

# wang1993 Table 6: test set 3, airfoil meshes, cut by greedy growing
# (part=grow): its halo traffic is within 7 % of the paper's partitions', METIS's
# 30-38 % short (workloads(7)).
if want t6 && [ -n "$algs" ]; then
    for rv in $RECV_MODES; do
        for m in airfoil2800 airfoil9428 airfoil53961; do
            has_wl mesh:airfoil2800,part=grow || break
            section "wang1993 Table 6: mesh $m$(rtitle $rv)" \
                "Paper: DRS_N overtakes LP once the average message passes about 3-4 KB on the CM-5 (express the crossover in units of n1/2)." \
                "t6_$m$(rsuffix $rv)" "$NODES" --alg "$algs" \
                --workload "mesh:$m,part=grow" --sizes "$T6_UNITS" $(rflag $rv) $WANG_FLAGS
        done
    done
fi

# ranka1995: best (k = p, l = 1/p) and worst (k = 2, l = 1/2) cases.
algs=$(keep drsn drsn+ two-stage)
if want kl && [ -n "$algs" ] && has_wl kl:k=2,l=1/2; then
    for t in $KL_T; do
        section "ranka1995: k/l cases at t = $t" \
            "Paper: two-stage time nearly the same in both cases (within ~10%); at (2, 1/2) DRS+ < two-stage <= 1.5 x DRS+; at (p, 1/p) two-stage ~ DRS+ < DRS." \
            "kl_t$t" "$NODES" --alg "$algs" \
            --workload "kl:k=$NODES,l=1/$NODES,t=$t" \
            --workload "kl:k=2,l=1/2,t=$t" --sizes 1
    done
fi

# liu2002: Pattern1 and Pattern2 (elements of 48 bytes).
# A3 needs a square number of nodes.
r=0
while [ $((r * r)) -lt "$NODES" ]; do r=$((r + 1)); done
if [ $((r * r)) -eq "$NODES" ]; then algs=$(keep a1 a2 a3 a4); else algs=$(keep a1 a2 a4); fi
if want liu && [ -n "$algs" ] && has_wl pattern1; then
    section "liu2002: Pattern1 and Pattern2, M_max = $LIU_M" \
        "Paper (blocking mode): A4 < A1 and A2; A3 beats A4 for small M_max on the T3D, A4 beats A3 on Pattern2 for M_max >= 1K (A3's diagonal hot spots). Stage counters are in the CSV." \
        "liu_m$LIU_M" "$NODES" --alg "$algs" \
        --workload "pattern1:m=$LIU_M" --workload "pattern2:m=$LIU_M" \
        --sizes 1
fi

# liu2002 Figs 15/17: Pattern1, M_max = 1024, P varied (blocking mode).
algs=$(keep a1 a2 a4)
if want liup && [ -n "$algs" ] && has_wl pattern1; then
    for n in $LIU_NODES; do
        section "liu2002 Figs 15/17: Pattern1, M_max = $LIU_M, P = $n" \
            "Paper (T3D and SP2, blocking mode): A4 < A1 and A2 at every P." \
            "liup_p$n" "$n" --alg "$algs" --workload "pattern1:m=$LIU_M" \
            --sizes 1
    done
fi

# liu2002 Figs 16/18-22: P = LIU_P, M_max varied, Pattern1 and Pattern2;
# A4 in blocking (b), single-buffer (n1) and dual-buffer (n2) mode.
algs=$(keep a1 a2 a3 a4)
if want lium && [ -n "$algs" ] && has_wl pattern1; then
    for mode in b n1 n2; do
        wl=
        for m in $LIU_MS; do
            wl="$wl --workload pattern1:m=$m --workload pattern2:m=$m"
        done
        [ $mode = b ] || algs=$(keep a4)
        # shellcheck disable=SC2086 # $wl is a list of options
        section "liu2002 Figs 16/18-22: P = $LIU_P, M_max varied, A4 mode $mode" \
            "Paper: A4 lowest in blocking mode (Figs 16/18); on the T3D A3 beats A4 for M_max <= 1K (Fig 19) and A4 beats A3 on Pattern2 for M_max >= 1K (Fig 20); A4-n2 beats A4-n1 (Figs 21/22)." \
            "lium_$mode" "$LIU_P" --alg "$algs" $wl --sizes 1 \
            -o "a4_mode=$mode"
    done
fi

# liu2002 Fig 23: A3 against A4-n2 on square P, M_max = 4096.
algs=$(keep a3 a4)
if want liusq && [ "$algs" = a3,a4 ] && has_wl pattern1; then
    for n in $LIU_SQUARE; do
        section "liu2002 Fig 23: A3 and A4-n2, M_max = 4096, P = $n" \
            "Paper (SP2): A4-n2 beats A3-n1 at every P from 25 to 100." \
            "liusq_p$n" "$n" --alg a3,a4 --workload pattern1:m=4096 \
            --workload pattern2:m=4096 --sizes 1 -o a4_mode=n2
    done
fi

# hambrusch1995/1996: s-to-p broadcasting.  hbmesh R C: the paper's
# R x C mesh divided by HB_SCALE on each side (at least 2 x 2); hbs S P:
# the paper's S sources of P nodes scaled to the mesh's p (at least 1).
hbmesh() {
    r=$(($1 / HB_SCALE)) c=$(($2 / HB_SCALE))
    [ $r -ge 2 ] || r=2
    [ $c -ge 2 ] || c=2
    echo "${r}x$c"
}
hbs() {
    s=$(($1 * hbp / $2))
    [ $s -ge 1 ] || s=1
    echo $s
}
hbsec() {
    m=$1 title=$2 note=$3 csv=$4
    shift 4
    hbp=$((${m%x*} * ${m#*x}))
    section "$title (mesh $m)" "$note" "$csv" "$hbp" --mesh "$m" "$@"
}
BR="br_lin,br_xy_source,br_xy_dim"
# hbmpi CSV MESH UNIT SPEC...: the reference row, Open MPI's
# MPI_Allgatherv on the same distributions (bench/mpi_allgatherv.c, built
# here with mpicc), into the document and CSV_mpi.csv; one line when
# there is no mpicc or mpirun.
# mpibuild NAME SOURCE...: build an MPI program against this build tree's
# libraries into the scratch directory with mpicc; print its path, or
# "none" when there is no mpicc or mpirun or it does not build.
mpibuild() {
    bin=$scratch/$1
    shift
    if command -v mpicc >/dev/null && command -v mpirun >/dev/null &&
        mpicc -O2 -std=c11 -D_GNU_SOURCE -I"$srcdir/algos" \
            -I"$srcdir/algos/api" -I"$srcdir/am/api" -I"$BUILDDIR" "$@" \
            -o "$bin" -L"$BUILDDIR/.libs" -lcm5sched -lcm5fab -lm \
            -Wl,-rpath,"$BUILDDIR/.libs" 2>>"$scratch/mpicc.err"; then
        echo "$bin"
    else
        echo none
    fi
}
MPIBIN=
hbmpi() {
    csv=$1 m=$2 unit=$3
    shift 3
    [ -z "$MODEL" ] || return 0 # MPI runs on the real clock
    [ -n "$MPIBIN" ] || MPIBIN=$(mpibuild mpi_allgatherv \
        "$srcdir/bench/mpi_allgatherv.c")
    if [ "$MPIBIN" = none ]; then
        printf '\nMPI_Allgatherv reference: not run (no mpicc/mpirun or it failed to build).\n' >&3
        return
    fi
    np=$((${m%x*} * ${m#*x}))
    printf '\nReference, Open MPI MPI_Allgatherv on the same distributions (%s ranks, every byte checked, mean of %s runs of the slowest rank):\n\n| distribution | ms |\n|---|---|\n' "$np" "$REPS" >&3
    echo "workload,p,mesh,alg,size,comm_s,sched_s,total_s" >"$csvdir/${csv}_mpi.csv"
    for w in "$@"; do
        t=$(timeout -k 5 "$TIMEOUT" mpirun --oversubscribe --allow-run-as-root \
            -np "$np" "$MPIBIN" -w "$w" -m "$m" -u "$unit" -r "$REPS" \
            -s "$SEED" 2>"$scratch/mpi.err" | sed -n 's/^mean_ms //p')
        printf '| %s | %s |\n' "$w" "${t:-failed}" >&3
        [ -n "$t" ] && echo "\"$w\",$np,$m,mpi_allgatherv,$unit,$(echo "$t" | awk '{ printf "%.9f,0,%.9f", $1 / 1e3, $1 / 1e3 }')" \
            >>"$csvdir/${csv}_mpi.csv"
    done
}
# hbport CSV MESH ALGS SIZES SPEC...: the MPI port (hambrusch1996 section
# 6): the same plans run with Open MPI point-to-point messages
# (bench/mpi_bcast_port.c, built here with mpicc, the planners compiled
# in) on the inputs of the native section CSV, as many runs, into
# CSV_port.csv, and the table of both side by side (bench/verdicts.py
# --port); one line when there is no mpicc or mpirun.
PORTBIN=
hbport() {
    csv=$1 m=$2 algs=$3 sizes=$4
    shift 4
    [ -z "$MODEL" ] || return 0 # MPI runs on the real clock
    [ -n "$PORTBIN" ] || PORTBIN=$(mpibuild mpi_bcast_port \
        "$srcdir/bench/mpi_bcast_port.c" "$srcdir/algos/plan_bcast.c" \
        "$srcdir/algos/plan_bcast_dist.c")
    if [ "$PORTBIN" = none ]; then
        printf '\nMPI port: not run (no mpicc/mpirun or it failed to build).\n' >&3
        return
    fi
    np=$((${m%x*} * ${m#*x}))
    # shellcheck disable=SC2016 # the backquotes are Markdown
    printf '\nMPI port (hambrusch1996 section 6): the same plans with Open MPI point-to-point messages over its own shared memory, %s ranks (--oversubscribe), every byte checked, as many runs; comm + comp of the slowest rank as the native rows:\n\n```\nmpirun -np %s mpi_bcast_port -a %s%s -m %s -z %s -r %s -W 1 -M %s -s %s\n```\n\n' \
        "$np" "$np" "$algs" "$(printf ' -w %s' "$@")" "$m" "$sizes" "$REPS" \
        "$MATRICES" "$SEED" >&3
    echo "$me: MPI port of $csv ..." >&2
    # shellcheck disable=SC2046 # one -w per distribution
    if timeout -k 5 "$TIMEOUT" mpirun --oversubscribe --allow-run-as-root \
        -np "$np" "$PORTBIN" -a "$algs" $(printf -- '-w %s ' "$@") -m "$m" \
        -z "$sizes" -r "$REPS" -W 1 -M "$MATRICES" -s "$SEED" \
        >"$csvdir/${csv}_port.csv" 2>"$scratch/port.err"; then
        python3 "$srcdir/bench/verdicts.py" --port "$csvdir" "$csv" >&3
    else
        rm -f "$csvdir/${csv}_port.csv"
        printf 'Failed:\n\n```\n' >&3
        tail -n 5 "$scratch/port.err" | cut -c1-200 >&3
        printf '```\n' >&3
    fi
}
if want hb; then
    m=$(hbmesh 10 10) hbp=$((${m%x*} * ${m#*x}))
    w=
    for s in 1 2 4 8 16 32 64 100; do
        s=$(hbs $s 100)
        case " $w " in *" equal:s=$s "*) ;; *) w="$w equal:s=$s" ;; esac
    done
    # shellcheck disable=SC2046 # one --workload per word
    hbsec "$m" "hambrusch1995 Fig. 2: equal distribution, L = 4 KB, s varied" \
        "Paper (10x10): 2-Step and Xor far slower than the Br_* for s > 4; 2-Step grows faster than linearly in s; the Br_* grow linearly and lie close together." \
        hb_fig2 --bcast "$BR,xor,2step" $(printf -- '--workload %s ' $w) \
        --sizes 4096
    hbsec "$m" "hambrusch1995 Fig. 3: right diagonal, s = 30 of 100, L varied" \
        "Paper (10x10): the Br_* flat up to L ~ 512 B, then linear; Xor flat up to 1 KB." \
        hb_fig3 --bcast "$BR,xor" --workload "dr:s=$(hbs 30 100)" \
        --sizes 32:16384
    hbsec "$m" "hambrusch1995 Fig. 5: s = 30 of 100, L = 2 KB, by distribution" \
        "Paper (10x10): Br_xy_source about the same on row, column, diagonal and equal, much worse on block and cross; Br_Lin best on block and cross; Br_xy_dim degrades badly on row." \
        hb_fig5 --bcast "$BR" --sizes 2048 \
        $(for d in row col dr dl equal cross block band; do
            printf -- '--workload %s:s=%s ' $d "$(hbs 30 100)"; done)
    # Fig. 6: the same 80 KB total spread over s sources (L = 80 KB / s,
    # in 1-byte units: --sizes 1 and L= in the distribution).
    w=
    for s in 5 10 20 40; do
        s=$(hbs $s 100)
        case " $w " in *" dr:s=$s,"*) ;; *) w="$w dr:s=$s,L=$((81920 / s))" ;; esac
    done
    # shellcheck disable=SC2046
    hbsec "$m" "hambrusch1995 Fig. 6: right diagonal, a fixed total of 80 KB over s sources" \
        "Paper (10x10): for a fixed total, more sources is faster: Br_xy_source 11.4 ms at s = 5, 7.3 ms at s = 40 (1.56x)." \
        hb_fig6 --bcast "$BR" $(printf -- '--workload %s ' $w) --sizes 1
    # Fig. 7: Br_Lin on every shape of p = 120 from 4x30 to 10x12; scaled:
    # the largest p <= 120 / K^2 (at least 12) with two shapes r x c,
    # 2 <= r <= c, and all of them.  s = 8, 15 (the text's) and 30 (ours:
    # the third is not named), scaled with p.
    hb7shapes() {
        r=$2 out=
        while [ $((r * r)) -le "$1" ]; do
            [ $(($1 % r)) = 0 ] && out="$out ${r}x$(($1 / r))"
            r=$((r + 1))
        done
        echo $out
    }
    if [ "$HB_SCALE" = 1 ]; then
        p7=120 shapes=$(hb7shapes 120 4)
    else
        p7=$((120 / (HB_SCALE * HB_SCALE)))
        [ $p7 -ge 12 ] || p7=12
        while [ "$(hb7shapes $p7 2 | wc -w)" -lt 2 ]; do p7=$((p7 - 1)); done
        shapes=$(hb7shapes $p7 2)
    fi
    hbp=$p7 w=
    for s in 8 15 30; do
        s=$(hbs $s 120)
        case " $w " in *" equal:s=$s "*) ;; *) w="$w equal:s=$s" ;; esac
    done
    for m in $shapes; do
        # shellcheck disable=SC2046
        hbsec "$m" "hambrusch1995 Fig. 7: Br_Lin, p = $p7 as $m, equal distribution, L = 4 KB" \
            "Paper (p = 120, 4x30 ... 10x12): the shape matters for large s, hardly for s = 8; s = 15 faster than s = 8 (equal puts 8 sources in columns, 15 on diagonals, except on 4x30)." \
            "hb_fig7_$m" --bcast br_lin $(printf -- '--workload %s ' $w) \
            --sizes 4096
    done
    for mm in "10 10 20" "15 16 58"; do
        # shellcheck disable=SC2086
        set -- $mm
        m=$(hbmesh $1 $2) hbp=$((${m%x*} * ${m#*x}))
        s=$(hbs $3 $(($1 * $2)))
        hbsec "$m" "hambrusch1995 Fig. 8: Br_xy_source by distribution, s = $3 of $(($1 * $2)), L = 2 KB" \
            "Paper (ms, $1x$2): Repos $([ $1 = 10 ] && echo 5.0 || echo 8.5), Row $([ $1 = 10 ] && echo 4.5 || echo 7.5), Column $([ $1 = 10 ] && echo 4.5 || echo 9.3), Equal $([ $1 = 10 ] && echo 5.2 || echo 9.1), Right diagonal $([ $1 = 10 ] && echo 5.1 || echo 8.3), Cross $([ $1 = 10 ] && echo 7.3 || echo 12.0); repos within ~13% of row, ~30% better than cross." \
            "hb_fig8_$1x$2" --bcast br_xy_source,repos --sizes 2048 \
            $(for d in row col equal dr cross; do
                printf -- '--workload %s:s=%s ' $d "$s"; done)
        # shellcheck disable=SC2046
        hbmpi "hb_fig8_$1x$2" "$m" 2048 $(for d in row col equal dr cross; do
            echo "$d:s=$s"; done)
        # shellcheck disable=SC2046
        hbport "hb_fig8_$1x$2" "$m" br_xy_source,repos 2048 \
            $(for d in row col equal dr cross; do echo "$d:s=$s"; done)
    done
    m=$(hbmesh 8 8) hbp=$((${m%x*} * ${m#*x}))
    hbsec "$m" "hambrusch1995 Fig. 9: cross, s = 15 of 64, L = 2 KB" \
        "Paper (8x8): Repos 0.4 + 3.7 = 4.1 ms < direct 4.5 ms < Part_xy_source 0.4 + 1.9 + 2.5 = 4.8 ms." \
        hb_fig9 --bcast br_xy_source,repos,part_xy_source \
        --workload "cross:s=$(hbs 15 64)" --sizes 2048
    hbmpi hb_fig9 "$m" 2048 "cross:s=$(hbs 15 64)"
    hbport hb_fig9 "$m" br_xy_source,repos,part_xy_source 2048 \
        "cross:s=$(hbs 15 64)"
    # hambrusch1996 section 6: every algorithm, native and MPI port, on
    # Fig. 9's mesh, cross and equal, L = 2 KB.
    hbsec "$m" "hambrusch1996 section 6: every algorithm, native and its MPI port, s = 15 of 64, L = 2 KB" \
        "Paper (Paragon): the programs ported to MPI point-to-point lost 2-5 % for every implementation, on the same network.  Here the native rows run on cm5fab and the port on Open MPI's shared memory: the ratio measures the transports as much as the port." \
        hb_port --bcast all --workload "cross:s=$(hbs 15 64)" \
        --workload "equal:s=$(hbs 15 64)" --sizes 2048
    hbmpi hb_port "$m" 2048 "cross:s=$(hbs 15 64)" "equal:s=$(hbs 15 64)"
    hbport hb_port "$m" all 2048 "cross:s=$(hbs 15 64)" "equal:s=$(hbs 15 64)"
    m=$(hbmesh 16 16) hbp=$((${m%x*} * ${m#*x}))
    w=
    for s in 16 32 64 128 192; do
        s=$(hbs $s 256)
        for d in equal cross block band; do
            case " $w " in *" $d:s=$s "*) ;; *) w="$w $d:s=$s" ;; esac
        done
    done
    # shellcheck disable=SC2046
    hbsec "$m" "hambrusch1996 Fig. 8: repositioning and partitioning, L = 6 KB, s varied" \
        "Paper (16x16): repositioning pays for equal, cross and square block, not band; not when s > p/2 or p <= 16; partitioning hardly ever beats repositioning alone." \
        hb96_fig8 --bcast br_xy_source,repos,part_xy_source \
        $(printf -- '--workload %s ' $w) --sizes 6144
    # shellcheck disable=SC2046,SC2086
    hbport hb96_fig8 "$m" br_xy_source,repos,part_xy_source 6144 $w
    hbsec "$m" "hambrusch1996 Fig. 9: s = 75 of 256, L varied" \
        "Paper (16x16): no gain below L = 1 KB except for cross; the benefit grows with L, then tapers for some distributions." \
        hb96_fig9 --bcast br_xy_source,repos,part_xy_source \
        $(for d in equal cross block band; do
            printf -- '--workload %s:s=%s ' $d "$(hbs 75 256)"; done) \
        --sizes 256:16384
    # Fig. 4: p varied, about sqrt(p) sources, L = 1 KB.
    for pp in 4 16 64 256; do
        [ $pp -le $((256 / (HB_SCALE * HB_SCALE))) ] || [ $pp -le 16 ] || continue
        r=1
        while [ $((r * r * 4)) -le $pp ]; do r=$((r * 2)); done
        hbsec "$r"x$((pp / r)) "hambrusch1995 Fig. 4: p = $pp, s = sqrt(p), L = 1 KB" \
            "Paper: Xor is as good as any for p <= 16." \
            "hb_fig4_p$pp" --bcast "$BR,xor,2step" --workload equal --sizes 1024
    done
fi

exec 3>&-
run_info() {
    printf '\nThe run took %s s; load average (1, 5, 15 min) %s at its start\nand %s at its end%s.\n' \
        "$(($(date +%s) - run_t0))" "${run_load0:-?}" \
        "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" \
        "$([ -n "$MODEL" ] && date -u '+, %Y-%m-%d %H:%M UTC')"
}
# The status and the verdicts first, computed from this run's CSVs.
{
    cat "$scratch/head"
    if [ -z "$MODEL" ]; then
        run_info
    else
        run_info >"$csvdir/run.txt"
    fi
    printf '\n## Status of every table and figure\n\n'
    python3 "$srcdir/bench/verdicts.py" --status "$csvdir"
    printf '\n## Verdicts, computed from the CSVs of this run\n\n'
    printf 'Each row is computed by bench/verdicts.py from the CSVs in\n'
    printf '`reproduction/`; the text after the table only explains.\n\n'
    python3 "$srcdir/bench/verdicts.py" "$csvdir"
    if [ -n "$MODEL" ]; then
        printf '\n## The modelled CM-5 against the CM-5, cell by cell\n\n'
        printf 'wang1993 Tables 2-6: the CM-5'"'"'s time, this run'"'"'s, the error\n'
        printf '(bench/verdicts.py --cells; calibration cells, on which the\n'
        printf 'model'"'"'s parameters were fitted, are shown apart; doc/model.md).\n\n'
        python3 "$srcdir/bench/verdicts.py" --cells "$csvdir"
    fi
    cat "$OUT.tmp"
} >"$OUT.new" && rm -f "$OUT.tmp" && mv "$OUT.new" "$OUT" &&
    echo "$me: wrote $OUT" >&2
