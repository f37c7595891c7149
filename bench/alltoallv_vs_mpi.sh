#!/bin/bash
# alltoallv_vs_mpi.sh: cm5sched's personalized-communication algorithms
# against MPI_Alltoallv of Open MPI and MPICH on identical matrices, in one
# run (doc/bench.md, issue 12).
#
# For each P and workload, bench/workload_dump prints the matrix that
# "cm5sched --workload SPEC --seed S" builds (cm5_workload_make(SPEC, P, S),
# the same call); bench/mpi_alltoallv.c (built with mpicc.openmpi and
# mpicc.mpich) runs MPI_Alltoallv on that file with entry x elem_size x
# unit bytes per message and checks every byte, as cm5sched does on its
# side.  Each run is REPS timed calls after one warm-up; a call's time is
# the slowest node's, from a barrier (cm5sched: total_s of its --csv, the
# whole call; MPI: MPI_Wtime around MPI_Alltoallv).  A round runs cm5sched
# (all the algorithms asked), Open MPI and MPICH on every case, starting
# with a different one each round; the table gives the median over rounds
# of each run's median, and the spread (min..max of the run medians).
# A peer whose tools are not installed is skipped with one line.
# shellcheck disable=SC2317 # cleanup is called by trap
set -u

ROUNDS=3
REPS=5
PS="8 16 32 64"
ALGS="ac,lp,rsn,rsnh,drsn,two-stage"
# SPEC@UNIT: unit = cm5sched --sizes (bytes = entry x elem_size x unit);
# d=P/2 becomes half the partition.
CASES="density:d=4@4096 density:d=P/2@4096 nonuniform:d=4@128 pattern1@1
pattern2@1 hotspot@16 mesh:airfoil2800@64"
PROVIDER=auto
PEERS="cm5 ompi mpich"
SEED=1
RUN_TIMEOUT=300
BUDGET=1800
BUILDDIR=
KEEP=0
QUIET=0

me=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

usage() {
    cat <<EOF
usage: $me [OPTIONS]

cm5sched's algorithms against MPI_Alltoallv (Open MPI, MPICH) on identical
matrices, every byte verified on both sides.

  --ps "8 16 32 64"    partition sizes (default: "$PS")
  --cases "SPEC@UNIT ..."  workloads and units (default:
                       "$(echo $CASES)"; d=P/2 is half of P)
  --algs LIST          cm5sched --alg (default: $ALGS)
  --peers "cm5 ompi mpich"  what to run (default: "$PEERS")
  --provider P         cm5run --provider (auto: cm5run's own choice, the
                       same-host rings on one host; a name forces
                       libfabric's path); MPI on shared memory whatever it
                       is unless P is tcp (default: $PROVIDER)
  --rounds N           alternating rounds (default: $ROUNDS)
  --reps N             timed calls per run, after one warm-up (default: $REPS)
  --seed S             matrix seed (default: $SEED)
  --builddir DIR       cm5fab build tree with tools/cm5run, tools/cm5sched,
                       bench/workload_dump (default: ../_build)
  --timeout S          limit for each run, in seconds (default: $RUN_TIMEOUT)
  --budget S           start no new round after S seconds (default: $BUDGET)
  --keep               keep the scratch directory (matrices, outputs)
  --quiet              print only the table
  -h, --help           this help

MPI peers need: apt-get install libopenmpi-dev openmpi-bin mpich libmpich-dev
Exit status: 0 measured and verified, 2 usage error, 3 a run failed.
EOF
}

while [ $# -gt 0 ]; do
    opt=$1
    case $opt in
    --*=*) val=${opt#*=}; opt=${opt%%=*}; shift; set -- "$opt" "$val" "$@" ;;
    esac
    [ $# -ge 2 ] || case $1 in --keep | --quiet | -h | --help) ;;
        *) die_usage "$1 needs a value" ;; esac
    case $1 in
    --ps) PS=$(printf '%s' "$2" | tr ',' ' '); shift 2 ;;
    --cases) CASES=$2; shift 2 ;;
    --algs) ALGS=$2; shift 2 ;;
    --peers) PEERS=$(printf '%s' "$2" | tr ',' ' '); shift 2 ;;
    --provider) PROVIDER=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --builddir) BUILDDIR=$2; shift 2 ;;
    --timeout) RUN_TIMEOUT=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --quiet) QUIET=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die_usage "unknown option '$1'" ;;
    esac
done
x=
for v in ROUNDS REPS SEED RUN_TIMEOUT BUDGET; do
    eval "x=\$$v"
    is_uint "$x" && [ "$x" -gt 0 ] ||
        die_usage "$(echo "$v" | tr 'A-Z_' 'a-z-') must be a positive integer"
done
for p in $PS; do
    is_uint "$p" && [ "$p" -ge 2 ] || die_usage "bad partition size '$p'"
done

if [ -z "$BUILDDIR" ]; then
    for d in . "$here/../_build_bench" "$here/../_build"; do
        if [ -x "$d/tools/cm5sched" ] && [ -x "$d/bench/workload_dump" ]; then
            BUILDDIR=$d
            break
        fi
    done
    [ -n "$BUILDDIR" ] || die_usage "no build tree found; give --builddir"
fi
BUILDDIR=$(cd "$BUILDDIR" 2>/dev/null && pwd) ||
    die_usage "--builddir: no such directory"
CM5RUN=$BUILDDIR/tools/cm5run
CM5SCHED=$BUILDDIR/tools/cm5sched
DUMP=$BUILDDIR/bench/workload_dump
[ -x "$DUMP" ] || die_usage "$DUMP missing (make bench/workload_dump)"
command -v timeout >/dev/null 2>&1 || die_usage "timeout(1) not found"
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo}

bench_scratch cm5a2a

# run_bg OUT CMD...: CMD under timeout(1); its status in brc
run_bg() {
    out=$1
    shift
    timeout -k 5 "$RUN_TIMEOUT" "$@" >"$out" 2>&1 </dev/null &
    bpid=$!
    PIDS="$PIDS $bpid"
    wait "$bpid"
    brc=$?
    np=
    for q in $PIDS; do [ "$q" = "$bpid" ] || np="$np $q"; done
    PIDS=$np
    return $brc
}

# "median min max" of the numbers on stdin
stats() {
    tr ' ' '\n' | awk 'NF' | sort -g | awk '
        { v[NR] = $1 }
        END {
            if (NR == 0) { print "- - -"; exit }
            m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%.4g %.4g %.4g\n", m, v[1], v[NR]
        }'
}

# ------------------------------------------------------------ what exists

ACTIVE=
skip() { say "# skip $1: $2"; }
build_mpi() { # NAME CC
    if ! "$2" -O2 -o "$SCRATCH/mpi_alltoallv.$1" "$here/mpi_alltoallv.c" \
        >"$SCRATCH/cc-$1" 2>&1; then
        skip "$1" "$2 failed: $(grep -m 1 . "$SCRATCH/cc-$1" ||
            echo "exit status non-zero")"
        return 1
    fi
}
for p in $PEERS; do
    case $p in
    cm5)
        if [ -x "$CM5RUN" ] && [ -x "$CM5SCHED" ]; then
            ACTIVE="${ACTIVE:+$ACTIVE }cm5"
        else
            skip cm5 "$CM5RUN or $CM5SCHED missing (build cm5fab)"
        fi ;;
    ompi)
        MPICC_OPENMPI=${MPICC_OPENMPI:-$(command -v mpicc.openmpi)}
        MPIRUN_OPENMPI=${MPIRUN_OPENMPI:-$(command -v mpirun.openmpi)}
        if [ -z "$MPICC_OPENMPI" ] || [ -z "$MPIRUN_OPENMPI" ]; then
            skip ompi "mpicc.openmpi/mpirun.openmpi not found (apt-get install libopenmpi-dev openmpi-bin)"
        elif build_mpi ompi "$MPICC_OPENMPI"; then
            ACTIVE="${ACTIVE:+$ACTIVE }ompi"
        fi ;;
    mpich)
        MPICC_MPICH=${MPICC_MPICH:-$(command -v mpicc.mpich)}
        MPIRUN_MPICH=${MPIRUN_MPICH:-$(command -v mpirun.mpich)}
        if [ -z "$MPICC_MPICH" ] || [ -z "$MPIRUN_MPICH" ]; then
            skip mpich "mpicc.mpich/mpirun.mpich not found (apt-get install mpich libmpich-dev)"
        elif build_mpi mpich "$MPICC_MPICH"; then
            ACTIVE="${ACTIVE:+$ACTIVE }mpich"
        fi ;;
    *) die_usage "unknown peer '$p'" ;;
    esac
done
[ -n "$ACTIVE" ] || { warn "nothing to run"; exit 3; }

# ------------------------------------------------------------ the runs

# Each run_PEER P SPEC UNIT MATRIX ROUND appends "peer alg median_ms" lines
# to $SCRATCH/rows.ID (ID = the case) or returns 1.

run_cm5() {
    out=$SCRATCH/cm5-$ID-$5
    run_bg "$out" "$CM5RUN" -n "$1" \
        $([ "$PROVIDER" = auto ] || echo "--provider $PROVIDER") --timeout "$RUN_TIMEOUT" "$CM5SCHED" --alg "$ALGS" --workload "$2" \
        --sizes "$3" --reps "$REPS" --warmup 1 --seed "$SEED" \
        --csv "$out.csv" --quiet ||
        { warn "cm5sched P=$1 $2 failed ($brc): $(tail -n 1 "$out")"; return 1; }
    # the workload name is quoted and holds commas: drop it first
    sed 1d "$out.csv" | sed 's/^"[^"]*",//' | awk -F, '
        { t[$5] = t[$5] " " $11 * 1e3; b[$5] = $18 }
        END { for (a in t) print a, b[a], t[a] }' |
        while read -r alg bytes times; do
            echo "cm5 $alg $(echo "$times" | stats | cut -d' ' -f1) $bytes"
        done >>"$SCRATCH/rows.$ID"
}

mpi_rows() { # PEER OUT
    awk -v p="$1" '/^median_ms / { print p, "alltoallv", $2 }' "$2" |
        grep . >>"$SCRATCH/rows.$ID" ||
        { warn "$1: no median in $2: $(tail -n 1 "$2")"; return 1; }
}

run_ompi() {
    out=$SCRATCH/ompi-$ID-$5
    if [ "$PROVIDER" = tcp ]; then btl=self,tcp; else btl=self,vader; fi
    run_bg "$out" "$MPIRUN_OPENMPI" --oversubscribe --allow-run-as-root \
        --bind-to none -np "$1" --mca pml ob1 --mca btl "$btl" \
        --mca btl_tcp_if_include lo "$SCRATCH/mpi_alltoallv.ompi" -f "$4" \
        -u "$3" -r "$REPS" -w 1 ||
        { warn "ompi P=$1 $2 failed ($brc): $(tail -n 1 "$out")"; return 1; }
    mpi_rows ompi "$out"
}

run_mpich() {
    out=$SCRATCH/mpich-$ID-$5
    if [ "$PROVIDER" = tcp ]; then
        set -- "$@" env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self UCX_NET_DEVICES=lo
    else
        set -- "$@" env
    fi
    run_bg "$out" "${@:6}" "$MPIRUN_MPICH" -np "$1" \
        "$SCRATCH/mpi_alltoallv.mpich" -f "$4" -u "$3" -r "$REPS" -w 1 ||
        { warn "mpich P=$1 $2 failed ($brc): $(tail -n 1 "$out")"; return 1; }
    mpi_rows mpich "$out"
}

# ------------------------------------------------------------------ main

cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
say "# cm5sched vs MPI_Alltoallv on identical matrices"
say "# host: $(nproc 2>/dev/null || echo ?) CPUs, ${cpu:-unknown CPU}; $(date -u '+%Y-%m-%d %H:%M UTC')"
say "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
say "# provider $PROVIDER; $ROUNDS rounds of: $ACTIVE (rotated);" \
    "$REPS timed calls + 1 warm-up per run; algorithms $ALGS"

# The cases: ID P SPEC UNIT MATRIX, matrices dumped once.
: >"$SCRATCH/cases"
i=0
for P in $PS; do
    for c in $CASES; do
        spec=${c%@*}
        unit=${c##*@}
        spec=$(echo "$spec" | sed "s|P/2|$((P / 2))|")
        # (d=P/2 is d=4 at P = 8: once is enough)
        awk -v p="$P" -v s="$spec" '$2 == p && $3 == s { f = 1 }
            END { exit !f }' "$SCRATCH/cases" && continue
        i=$((i + 1))
        m=$SCRATCH/matrix.$i.csv
        if ! "$DUMP" "$spec" "$P" "$SEED" >"$m" 2>"$m.err"; then
            say "# skip P=$P $spec: $(head -n 1 "$m.err")"
            continue
        fi
        esz=$(sed -n '1s/.*elem_size=//p' "$m")
        echo "$i $P $spec $unit $m $((esz * unit))" >>"$SCRATCH/cases"
    done
done

failed=0
n_active=$(echo "$ACTIVE" | wc -w)
r=1
while [ $r -le "$ROUNDS" ]; do
    if [ $(($(now) - T_START)) -ge "$BUDGET" ]; then
        warn "time budget of ${BUDGET}s spent: stopping before round $r"
        break
    fi
    k=$(((r - 1) % n_active))
    # shellcheck disable=SC2086
    order="$(echo $ACTIVE | cut -d' ' -f$((k + 1))-) $(
        [ $k -gt 0 ] && echo $ACTIVE | cut -d' ' -f1-$k)"
    while read -r ID P spec unit m bpu; do
        for p in $order; do
            if [ "$p" = cm5 ]; then
                "run_$p" "$P" "$spec" "$unit" "$m" "$r" || failed=1
            else
                "run_$p" "$P" "$spec" "$bpu" "$m" "$r" || failed=1
            fi
        done
        say "# round $r P=$P $spec: done ($(($(now) - T_START)) s," \
            "load $(cut -d' ' -f1 /proc/loadavg))"
    done <"$SCRATCH/cases"
    r=$((r + 1))
done
say "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg); $(($(now) - T_START)) s"
say ""

# Table: per case, each implementation's median over rounds (ms) and
# spread; the best cm5 algorithm; ratios to Open MPI.
printf '%-3s %-22s %9s  %-10s %8s %17s\n' P workload "bytes" impl "ms" \
    "min..max"
while read -r ID P spec unit m bpu; do
    [ -f "$SCRATCH/rows.$ID" ] || continue
    # identical matrix check: cm5sched's bytes (ac) = the matrix's
    # off-diagonal sum x bytes per unit
    want=$(awk -F, -v b="$bpu" '/^#/ { next }
        { r++; for (j = 1; j <= NF; j++) if (j != r) s += $j }
        END { printf "%.0f", s * b }' "$m")
    got=$(awk '$1 == "cm5" && $2 == "ac" { print $4; exit }' "$SCRATCH/rows.$ID")
    if [ -n "$got" ] && [ "$got" != "$want" ]; then
        warn "P=$P $spec: cm5sched sent $got bytes, the matrix says $want"
        failed=1
    fi
    awk '{ print $1 "/" $2 }' "$SCRATCH/rows.$ID" | sort -u | while read -r key; do
        s=$(awk -v k="$key" '$1 "/" $2 == k { print $3 }' "$SCRATCH/rows.$ID" |
            stats)
        echo "$key $s"
    done >"$SCRATCH/sum.$ID"
    ompi=$(awk '$1 == "ompi/alltoallv" { print $2 }' "$SCRATCH/sum.$ID")
    best=$(awk '$1 ~ /^cm5\// { if (b == "" || $2 < b) { b = $2; n = $1 } }
        END { print n }' "$SCRATCH/sum.$ID")
    while read -r key med lo hi; do
        mark=
        [ "$key" = "$best" ] && mark="*"
        ratio=
        if [ -n "$ompi" ]; then
            ratio=$(awk -v a="$med" -v b="$ompi" 'BEGIN { printf "x%.2f of ompi", a / b }')
        fi
        printf '%-3s %-22s %9s  %-10s %8s %17s %s %s\n' "$P" "$spec" \
            "$want" "${key#*/}$mark" "$med" "$lo..$hi" "${key%/*}" "$ratio"
        echo "RESULT p=$P workload=$spec bytes=$want impl=$key ms=$med min=$lo max=$hi" >>"$SCRATCH/results"
    done <"$SCRATCH/sum.$ID"
done <"$SCRATCH/cases"
echo "ms: median over rounds of each run's median call (slowest node);" \
    "* = fastest cm5sched algorithm; bytes = the whole exchange, diagonal excluded."
echo
[ -f "$SCRATCH/results" ] && cat "$SCRATCH/results"
[ $failed -ne 0 ] && exit 3
exit 0
