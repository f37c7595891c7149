#!/bin/bash
# am_vs_peers.sh: cm5fab active messages against the peers a user would
# otherwise pick, side by side in one run (doc/bench.md, issue 12):
#   am     cm5run -n 2 examples/am_pingpong on cm5run's default path
#          (shm: the same-host rings; tcp: --provider tcp)
#   amfab  the same over libfabric's shm provider (cm5run --provider shm;
#          shm only): the path am takes between hosts' processes when the
#          rings are off, for comparison with fi
#   fi     libfabric's fi_pingpong -e rdm on the same provider (raw floor)
#   ompi   bench/mpi_pingpong.c built with mpicc.openmpi, run by
#          mpirun.openmpi (pml ob1; btl self,vader or self,tcp)
#   mpich  bench/mpi_pingpong.c built with mpicc.mpich, run by mpirun.mpich
#          (ch4:ucx; its shared memory, or UCX's tcp with MPIR_CVAR_NOLOCAL)
# on two transports: shm (shared memory) and tcp (TCP over loopback).
# Each round runs every peer once, starting with a different peer each
# round (alternation); the table gives medians over the rounds and the
# spread (min..max) of the round trip (16 bytes, median of the iterations)
# and of the one-way rate (16-byte messages/s, rank 1 -> 0).
# A peer whose tools are not installed is skipped with one line.
# Every process runs under timeout(1) in a scratch directory removed at
# the end; processes still running on exit or on a signal are killed by pid.
# shellcheck disable=SC2317 # cleanup is called by trap
set -u

ROUNDS=5
ITERS=10000
MSGS=1000000
WINDOW=64
TRANSPORTS="shm tcp"
PEERS="am amfab fi ompi mpich"
RUN_TIMEOUT=60
BUDGET=1200
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

Round trip and one-way rate of 16-byte messages: cm5fab active messages
against fi_pingpong, Open MPI and MPICH, on shared memory and TCP loopback.

  --transports "shm tcp"  transports to measure (default: "$TRANSPORTS")
  --peers "am amfab fi ompi mpich"  what to run (default: "$PEERS")
  --rounds N           alternating rounds; medians reported (default: $ROUNDS)
  --iters N            ping-pong iterations per run (default: $ITERS)
  --msgs N             messages of the one-way flood (default: $MSGS)
  --window N           MPI flood: sends in flight per window (default: $WINDOW)
  --builddir DIR       cm5fab build tree (default: as am_vs_fi_pingpong.sh)
  --timeout S          limit for each process, in seconds (default: $RUN_TIMEOUT)
  --budget S           start no new round after S seconds (default: $BUDGET)
  --keep               keep the scratch directory with every run's output
  --quiet              print only the table
  -h, --help           this help

MPI peers need: apt-get install libopenmpi-dev openmpi-bin mpich libmpich-dev
Environment: FI_PINGPONG, MPICC_OPENMPI, MPIRUN_OPENMPI, MPICC_MPICH,
MPIRUN_MPICH (defaults: found in PATH).
Exit status: 0 measured, 2 usage error, 3 a measurement failed.
EOF
}

while [ $# -gt 0 ]; do
    opt=$1
    case $opt in
    --*=*) val=${opt#*=}; opt=${opt%%=*}; shift; set -- "$opt" "$val" "$@" ;;
    esac
    case $1 in
    --transports | --providers) [ $# -ge 2 ] || die_usage "$1 needs a value"
        TRANSPORTS=$(printf '%s' "$2" | tr ',' ' '); shift 2 ;;
    --peers) [ $# -ge 2 ] || die_usage "$1 needs a value"
        PEERS=$(printf '%s' "$2" | tr ',' ' '); shift 2 ;;
    --rounds) [ $# -ge 2 ] || die_usage "$1 needs a value"; ROUNDS=$2; shift 2 ;;
    --iters) [ $# -ge 2 ] || die_usage "$1 needs a value"; ITERS=$2; shift 2 ;;
    --msgs) [ $# -ge 2 ] || die_usage "$1 needs a value"; MSGS=$2; shift 2 ;;
    --window) [ $# -ge 2 ] || die_usage "$1 needs a value"; WINDOW=$2; shift 2 ;;
    --builddir) [ $# -ge 2 ] || die_usage "$1 needs a value"; BUILDDIR=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || die_usage "$1 needs a value"; RUN_TIMEOUT=$2; shift 2 ;;
    --budget) [ $# -ge 2 ] || die_usage "$1 needs a value"; BUDGET=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --quiet) QUIET=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die_usage "unknown option '$1'" ;;
    esac
done

x=
for v in ROUNDS ITERS MSGS WINDOW RUN_TIMEOUT BUDGET; do
    eval "x=\$$v"
    if ! is_uint "$x" || [ "$x" -eq 0 ]; then
        die_usage "$(echo "$v" | tr 'A-Z_' 'a-z-') must be a positive integer"
    fi
done
for t in $TRANSPORTS; do
    case $t in shm | tcp) ;; *) die_usage "unknown transport '$t'" ;; esac
done
for p in $PEERS; do
    case $p in am | amfab | fi | ompi | mpich) ;; *) die_usage "unknown peer '$p'" ;; esac
done

if [ -z "$BUILDDIR" ]; then
    for d in . "$here/../_build_bench" "$here/../_build" "$here/.."; do
        if [ -x "$d/tools/cm5run" ] && [ -x "$d/examples/am_pingpong" ]; then
            BUILDDIR=$d
            break
        fi
    done
    [ -n "$BUILDDIR" ] ||
        die_usage "no build tree found; build cm5fab and give --builddir"
fi
BUILDDIR=$(cd "$BUILDDIR" 2>/dev/null && pwd) ||
    die_usage "--builddir: no such directory"
CM5RUN=$BUILDDIR/tools/cm5run
AM_PINGPONG=$BUILDDIR/examples/am_pingpong
command -v timeout >/dev/null 2>&1 || die_usage "timeout(1) not found"

FI_TCP_IFACE=${FI_TCP_IFACE:-lo}
FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
export FI_TCP_IFACE FI_SOCKETS_IFACE

bench_scratch cm5peers

# run_bg OUT CMD...: run CMD under timeout(1), output to OUT; its status
run_bg() {
    out=$1
    shift
    timeout -k 3 "$RUN_TIMEOUT" "$@" >"$out" 2>&1 </dev/null &
    bpid=$!
    PIDS="$PIDS $bpid"
    wait "$bpid"
    brc=$?
    forget_pid "$bpid"
    return $brc
}

# stats: "median min max" of the numbers on stdin, "- - -" if none
stats() {
    tr ' ' '\n' | awk 'NF' | sort -g | awk '
        { v[NR] = $1 }
        END {
            if (NR == 0) { print "- - -"; exit }
            m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%.10g %.10g %.10g\n", m, v[1], v[NR]
        }'
}

# ------------------------------------------------------------ the peers

# Each run_PEER TRANSPORT ROUND sets OUT_RTT, OUT_RATE ("-" if it has
# none) or returns 1.

# run_am TRANSPORT ROUND [PROVIDER]: on shm cm5run's own choice (the
# same-host rings) unless PROVIDER forces libfabric's.
run_am() {
    out=$SCRATCH/am-$1-$2-${3:-}
    prov=${3:-$1}
    popt=("--provider=$prov")
    if [ "$prov" = shm ] && [ -z "${3:-}" ]; then
        prov="default path" popt=()
    fi
    run_bg "$out" "$CM5RUN" -n 2 "${popt[@]}" --timeout "$RUN_TIMEOUT" \
        "$AM_PINGPONG" -i "$ITERS" -m "$MSGS" ||
        { warn "am ($prov) failed ($brc): $(tail -n 1 "$out")"; return 1; }
    OUT_RTT=$(awk '/^rtt_us / { print $2 }' "$out")
    OUT_RATE=$(awk '/^one-way / { for (i = 1; i < NF; i++)
                   if ($(i + 1) == "messages/s") print $i }' "$out")
    [ -n "$OUT_RTT" ] && [ -n "$OUT_RATE" ] ||
        { warn "cannot parse $out"; return 1; }
}

run_amfab() { run_am "$1" "$2" shm; }

# fi_pingpong reports a mean one-way time: RTT = 2 x usec/xfer; no rate.
run_fi() {
    prov=$1
    out=$SCRATCH/fi-$1-$2
    port=$(pick_port 47593)
    timeout -k 2 "$RUN_TIMEOUT" "$FI_PINGPONG" -p "$prov" -e rdm -S 16 \
        -I "$ITERS" -B "$port" >"$out.srv" 2>&1 </dev/null &
    spid=$!
    PIDS="$PIDS $spid"
    sfi=$(child_of "$spid") && FI_PIDS="$FI_PIDS $sfi"
    k=0
    while ! port_listening "$port" && kill -0 "$spid" 2>/dev/null &&
        [ $k -lt 200 ]; do
        k=$((k + 1))
        sleep 0.05
    done
    timeout -k 2 "$RUN_TIMEOUT" "$FI_PINGPONG" -p "$prov" -e rdm -S 16 \
        -I "$ITERS" -P "$port" 127.0.0.1 >"$out" 2>&1 </dev/null &
    cpid=$!
    PIDS="$PIDS $cpid"
    cfi=$(child_of "$cpid") && FI_PIDS="$FI_PIDS $cfi"
    wait "$cpid"
    crc=$?
    forget_pid "$cpid"
    [ $crc -ne 0 ] && kill -TERM "$spid" 2>/dev/null
    wait "$spid"
    forget_pid "$spid"
    [ $crc -eq 0 ] ||
        { warn "fi_pingpong ($prov) failed ($crc): $(tail -n 1 "$out")"; return 1; }
    OUT_RTT=$(awk '$1 == 16 && NF == 8 { u = $7 }
        END { if (u != "") printf "%.3f\n", 2 * u }' "$out")
    OUT_RATE=-
    [ -n "$OUT_RTT" ] || { warn "cannot parse $out"; return 1; }
}

parse_mpi() {
    OUT_RTT=$(awk '/^rtt_us / { print $2 }' "$1")
    OUT_RATE=$(awk '/^oneway_msgs_per_s / { print $2 }' "$1")
    [ -n "$OUT_RTT" ] && [ -n "$OUT_RATE" ] ||
        { warn "cannot parse $1"; return 1; }
}

# Open MPI: pml ob1 so that the btl list decides (the default pml may be
# ucx); no binding, as cm5run does not bind its nodes.
run_ompi() {
    out=$SCRATCH/ompi-$1-$2
    case $1 in
    shm) btl="self,vader" ;;
    tcp) btl="self,tcp" ;;
    esac
    run_bg "$out" "$MPIRUN_OPENMPI" --oversubscribe --allow-run-as-root \
        --bind-to none -np 2 --mca pml ob1 --mca btl "$btl" \
        --mca btl_tcp_if_include lo \
        "$SCRATCH/mpi_pingpong.ompi" -i "$ITERS" -m "$MSGS" -w "$WINDOW" ||
        { warn "ompi ($1) failed ($brc): $(tail -n 1 "$out")"; return 1; }
    parse_mpi "$out"
}

# MPICH 4.0 (Debian: ch4:ucx): on one host its own POSIX shared-memory
# module carries the messages; MPIR_CVAR_NOLOCAL=1 makes every rank look
# remote, so they go through the netmod (UCX), limited to tcp on lo.
run_mpich() {
    out=$SCRATCH/mpich-$1-$2
    case $1 in
    shm) set -- env ;;
    tcp) set -- env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self UCX_NET_DEVICES=lo ;;
    esac
    run_bg "$out" "$@" "$MPIRUN_MPICH" -np 2 \
        "$SCRATCH/mpi_pingpong.mpich" -i "$ITERS" -m "$MSGS" -w "$WINDOW" ||
        { warn "mpich failed ($brc): $(tail -n 1 "$out")"; return 1; }
    parse_mpi "$out"
}

# ------------------------------------------------------------ what exists

ACTIVE=
skip() { say "# skip $1: $2"; }
for p in $PEERS; do
    case $p in
    am | amfab)
        if [ -x "$CM5RUN" ] && [ -x "$AM_PINGPONG" ]; then
            ACTIVE="${ACTIVE:+$ACTIVE }$p"
        else
            skip "$p" "$CM5RUN or $AM_PINGPONG missing (build cm5fab)"
        fi ;;
    fi)
        FI_PINGPONG=${FI_PINGPONG:-$(command -v fi_pingpong 2>/dev/null)}
        if [ -n "$FI_PINGPONG" ] && [ -x "$FI_PINGPONG" ]; then
            ACTIVE="${ACTIVE:+$ACTIVE }fi"
        else
            skip "fi" "fi_pingpong not found (apt-get install libfabric-bin)"
        fi ;;
    ompi)
        MPICC_OPENMPI=${MPICC_OPENMPI:-$(command -v mpicc.openmpi)}
        MPIRUN_OPENMPI=${MPIRUN_OPENMPI:-$(command -v mpirun.openmpi)}
        if [ -z "$MPICC_OPENMPI" ] || [ -z "$MPIRUN_OPENMPI" ]; then
            skip ompi "mpicc.openmpi/mpirun.openmpi not found (apt-get install libopenmpi-dev openmpi-bin)"
        elif ! "$MPICC_OPENMPI" -O2 -o "$SCRATCH/mpi_pingpong.ompi" \
            "$here/mpi_pingpong.c" >"$SCRATCH/cc-ompi" 2>&1; then
            skip ompi "mpicc.openmpi failed: $(grep -m 1 . "$SCRATCH/cc-ompi" || echo "exit status non-zero")"
        else
            ACTIVE="${ACTIVE:+$ACTIVE }ompi"
        fi ;;
    mpich)
        MPICC_MPICH=${MPICC_MPICH:-$(command -v mpicc.mpich)}
        MPIRUN_MPICH=${MPIRUN_MPICH:-$(command -v mpirun.mpich)}
        if [ -z "$MPICC_MPICH" ] || [ -z "$MPIRUN_MPICH" ]; then
            skip mpich "mpicc.mpich/mpirun.mpich not found (apt-get install mpich libmpich-dev)"
        elif ! "$MPICC_MPICH" -O2 -o "$SCRATCH/mpi_pingpong.mpich" \
            "$here/mpi_pingpong.c" >"$SCRATCH/cc-mpich" 2>&1; then
            skip mpich "mpicc.mpich failed: $(grep -m 1 . "$SCRATCH/cc-mpich" || echo "exit status non-zero")"
        else
            ACTIVE="${ACTIVE:+$ACTIVE }mpich"
        fi ;;
    esac
done
[ -n "$ACTIVE" ] || { warn "nothing to run"; exit 3; }

# ------------------------------------------------------------------ main

cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
say "# cm5fab active messages vs fi_pingpong, Open MPI, MPICH"
say "# host: $(nproc 2>/dev/null || echo ?) CPUs, ${cpu:-unknown CPU}; $(date -u '+%Y-%m-%d %H:%M UTC')"
say "# libfabric $(fi_info --version 2>/dev/null | awk '/^libfabric:/ { print $2 }')" \
    "$([ -n "${MPIRUN_OPENMPI:-}" ] && "$MPIRUN_OPENMPI" --version 2>/dev/null | head -n 1)" \
    "$([ -n "${MPIRUN_MPICH:-}" ] && command -v mpichversion >/dev/null && mpichversion | awk '/Version:|Device:/ { printf "MPICH %s ", $NF }')"
say "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
say "# $ROUNDS rounds of: $ACTIVE (rotated); $ITERS iterations, $MSGS flood messages"

failed=0
ALL=    # lines "transport peer round rtt rate"
n_active=$(echo $ACTIVE | wc -w)
r=1
while [ $r -le "$ROUNDS" ]; do
    if [ $(($(now) - T_START)) -ge "$BUDGET" ]; then
        warn "time budget of ${BUDGET}s spent: stopping before round $r"
        break
    fi
    for t in $TRANSPORTS; do
        # rotate: round r starts with peer number (r - 1) mod n
        # shellcheck disable=SC2086
        set -- $ACTIVE
        k=$(((r - 1) % n_active))
        order="$(echo $ACTIVE | cut -d' ' -f$((k + 1))-) $(
            [ $k -gt 0 ] && echo $ACTIVE | cut -d' ' -f1-$k)"
        line="# $t round $r:"
        for p in $order; do
            [ "$t/$p" = tcp/amfab ] && continue # am on tcp is libfabric's
            if "run_$p" "$t" "$r"; then
                ALL="$ALL
$t $p $r $OUT_RTT $OUT_RATE"
                line="$line $p $OUT_RTT us $OUT_RATE/s;"
            else
                failed=1
                line="$line $p fail;"
            fi
        done
        say "$line"
    done
    r=$((r + 1))
done
say "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg); $(($(now) - T_START)) s"
say ""

printf '%-9s %-6s %9s %21s %10s %17s %8s\n' transport peer "RTT us" \
    "RTT min..max" "msgs/s" "msgs/s min..max" "am/peer"
for t in $TRANSPORTS; do
    am_rtt=$(echo "$ALL" | awk -v t="$t" '$1 == t && $2 == "am" { print $4 }' |
            stats | cut -d' ' -f1)
    for p in $ACTIVE; do
        [ "$t/$p" = tcp/amfab ] && continue
        # shellcheck disable=SC2046
        set -- $(echo "$ALL" | awk -v t="$t" -v p="$p" \
            '$1 == t && $2 == p { print $4 }' | stats) \
            $(echo "$ALL" | awk -v t="$t" -v p="$p" \
                '$1 == t && $2 == p && $5 != "-" { print $5 }' | stats)
        ratio=-
        if [ "$1" != - ] && [ "$am_rtt" != - ]; then
            ratio=$(awk -v a="$am_rtt" -v b="$1" 'BEGIN { printf "%.2f", a / b }')
        fi
        rate=$4 rate_sp=-
        if [ "$4" != - ]; then
            rate=$(awk -v x="$4" 'BEGIN { printf "%.0f", x }')
            rate_sp=$(awk -v a="$5" -v b="$6" \
                'BEGIN { printf "%.2fM..%.2fM", a / 1e6, b / 1e6 }')
        fi
        printf '%-9s %-6s %9s %21s %10s %17s %8s\n' "$t" "$p" "$1" "$2..$3" \
            "$rate" "$rate_sp" "$ratio"
        echo "RESULT transport=$t peer=$p rtt_us=$1 rtt_min=$2 rtt_max=$3 msgs_per_s=$4 rate_min=$5 rate_max=$6" >>"$SCRATCH/results"
    done
done
echo "RTT: median of the per-run values (am, MPI: median of the iterations;" \
    "fi: 2 x fi_pingpong's mean usec/xfer); am/peer = am RTT / peer RTT."
echo
cat "$SCRATCH/results"
[ $failed -ne 0 ] && exit 3
exit 0
