#!/bin/sh
# am_vs_fi_pingpong.sh: compare cm5fab active messages with libfabric's own
# fi_pingpong on the same providers, in the same run.
#
# For each provider, ROUNDS times in alternation:
#   (a) fi_pingpong -e rdm -S 16 between two local processes: its usec/xfer
#       is the mean one-way time (elapsed / iterations / 2), so RTT = 2x;
#   (b) cm5run -n 2 --provider P examples/am_pingpong: median round trip of
#       a 16-byte active message (request + reply, handler to handler) and
#       the one-way flood rate 1 -> 0.
# The medians over the rounds are compared with the targets:
#   am RTT / fi RTT <= 1.25 on shm and tcp; >= 1.5 M messages/s on shm.
#
# Every process runs under a timeout, in a scratch directory that is removed
# at the end; processes still running on exit or on a signal are killed.
# See doc/bench.md.
# shellcheck disable=SC2317 # cleanup is called by trap
set -u

ROUNDS=5
ITERS=10000
MSGS=200000
PROVIDERS="shm tcp"
FI_SIZE=16
RUN_TIMEOUT=60
BUDGET=1200
BUILDDIR=
KEEP=0
STRICT=0
QUIET=0

RATIO_TARGET=1.25
RATE_TARGET=1500000

me=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

usage() {
    cat <<EOF
usage: $me [OPTIONS]

Compare the round trip of cm5fab active messages (examples/am_pingpong under
cm5run) with libfabric's fi_pingpong on the same providers.

  --providers "P1 P2"  providers to measure (default: "$PROVIDERS")
  --rounds N           alternating rounds of fi_pingpong then am_pingpong;
                       medians are reported (default: $ROUNDS)
  --iters N            ping-pong iterations per run, both tools
                       (default: $ITERS)
  --msgs N             messages of am_pingpong's one-way flood
                       (default: $MSGS)
  --builddir DIR       cm5fab build tree with tools/cm5run and
                       examples/am_pingpong (default: the current
                       directory if it has them, else ../_build_bench,
                       ../_build relative to this script)
  --fi-size BYTES      fi_pingpong message size (default: $FI_SIZE; active
                       messages are 48-byte packets on the wire)
  --timeout S          limit for each process, in seconds (default: $RUN_TIMEOUT)
  --budget S           stop starting new runs after S seconds in all
                       (default: $BUDGET)
  --strict             exit 1 when a target is not met
  --keep               keep the scratch directory with every run's output
  --quiet              print only the table
  -h, --help           this help

Environment: FI_PINGPONG (path of fi_pingpong; default: found in PATH).
Exit status: 0 measured (targets may be NOT MET unless --strict),
1 a target not met with --strict, 2 usage error, 3 a measurement failed.
EOF
}

while [ $# -gt 0 ]; do
    opt=$1
    case $opt in
    --*=*) val=${opt#*=}; opt=${opt%%=*}; shift; set -- "$opt" "$val" "$@" ;;
    esac
    case $1 in
    --providers) [ $# -ge 2 ] || die_usage "$1 needs a value"
        PROVIDERS=$(printf '%s' "$2" | tr ',' ' '); shift 2 ;;
    --rounds) [ $# -ge 2 ] || die_usage "$1 needs a value"; ROUNDS=$2; shift 2 ;;
    --iters) [ $# -ge 2 ] || die_usage "$1 needs a value"; ITERS=$2; shift 2 ;;
    --msgs) [ $# -ge 2 ] || die_usage "$1 needs a value"; MSGS=$2; shift 2 ;;
    --builddir) [ $# -ge 2 ] || die_usage "$1 needs a value"; BUILDDIR=$2; shift 2 ;;
    --fi-size) [ $# -ge 2 ] || die_usage "$1 needs a value"; FI_SIZE=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || die_usage "$1 needs a value"; RUN_TIMEOUT=$2; shift 2 ;;
    --budget) [ $# -ge 2 ] || die_usage "$1 needs a value"; BUDGET=$2; shift 2 ;;
    --strict) STRICT=1; shift ;;
    --keep) KEEP=1; shift ;;
    --quiet) QUIET=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die_usage "unknown option '$1'" ;;
    esac
done

for v in ROUNDS ITERS MSGS FI_SIZE RUN_TIMEOUT BUDGET; do
    eval "x=\$$v"
    if ! is_uint "$x" || [ "$x" -eq 0 ]; then
        die_usage "$(echo "$v" | tr 'A-Z_' 'a-z-') must be a positive integer"
    fi
done
[ -n "$PROVIDERS" ] || die_usage "no providers"

# ---------------------------------------------------------------- set-up

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
[ -x "$CM5RUN" ] || die_usage "$CM5RUN is missing: build cm5fab first"
[ -x "$AM_PINGPONG" ] || die_usage "$AM_PINGPONG is missing: build cm5fab first"

FI_PINGPONG=${FI_PINGPONG:-$(command -v fi_pingpong 2>/dev/null)}
[ -n "$FI_PINGPONG" ] && [ -x "$FI_PINGPONG" ] ||
    die_usage "fi_pingpong not found (Debian: apt-get install libfabric-bin)"
command -v timeout >/dev/null 2>&1 || die_usage "timeout(1) not found"

# cm5run gives its nodes the loopback interface; so does fi_pingpong here.
FI_TCP_IFACE=${FI_TCP_IFACE:-lo}
FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
export FI_TCP_IFACE FI_SOCKETS_IFACE

bench_scratch cm5bench

over_budget() {
    [ $(($(now) - T_START)) -ge "$BUDGET" ]
}

# start CMD... in the background under timeout(1); sets LASTPID
start_bg() {
    timeout -k 2 "$RUN_TIMEOUT" "$@" &
    LASTPID=$!
    PIDS="$PIDS $LASTPID"
}

# wait_bg PID: its exit status, 124 on timeout
wait_bg() {
    wait "$1"
    rc=$?
    forget_pid "$1"
    return $rc
}

median() {
    tr ' ' '\n' | awk 'NF' | sort -g | awk '
        { v[NR] = $1 }
        END {
            if (NR == 0) { print "-"; exit }
            if (NR % 2) print v[(NR + 1) / 2]
            else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2
        }'
}

# ------------------------------------------------------------ measurement

# The runs are shell functions, not $(...) subshells, so that the pids they
# start are known to cleanup.

# run_fi PROVIDER N: sets FI_RTT to the round trip in us (2 x usec/xfer)
run_fi() {
    FI_RTT=
    prov=$1
    n=$2
    out=$SCRATCH/fi-$(echo "$prov" | tr -c 'A-Za-z0-9\n' '_')-$n
    attempt=0
    while [ $attempt -lt 3 ]; do
        attempt=$((attempt + 1))
        port=$(pick_port)
        start_bg "$FI_PINGPONG" -p "$prov" -e rdm -S "$FI_SIZE" -I "$ITERS" \
            -B "$port" >"$out.srv" 2>&1 </dev/null
        spid=$LASTPID
        sfi=$(child_of "$spid") && FI_PIDS="$FI_PIDS $sfi"
        # wait for the control socket to listen
        k=0
        while ! port_listening "$port"; do
            if ! kill -0 "$spid" 2>/dev/null || [ $k -ge 200 ]; then
                break
            fi
            k=$((k + 1))
            sleep 0.05
        done
        if ! port_listening "$port"; then
            kill -TERM "$spid" 2>/dev/null
            wait_bg "$spid"
            warn "fi_pingpong server ($prov) did not listen on port $port" \
                "(attempt $attempt): $(tail -n 1 "$out.srv")"
            continue
        fi
        start_bg "$FI_PINGPONG" -p "$prov" -e rdm -S "$FI_SIZE" -I "$ITERS" \
            -P "$port" 127.0.0.1 >"$out.cli" 2>&1 </dev/null
        cpid=$LASTPID
        cfi=$(child_of "$cpid") && FI_PIDS="$FI_PIDS $cfi"
        wait_bg "$cpid"
        crc=$?
        wait_bg "$spid"
        src=$?
        if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
            [ $crc -eq 124 ] || [ $src -eq 124 ] &&
                warn "fi_pingpong ($prov) timed out after ${RUN_TIMEOUT}s"
            warn "fi_pingpong ($prov) failed: client $crc, server $src:" \
                "$(tail -n 1 "$out.cli")"
            return 1
        fi
        # bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec
        FI_RTT=$(awk -v s="$FI_SIZE" '$1 == s && NF == 8 { u = $7 }
            END { if (u == "") exit 1; printf "%.3f\n", 2 * u }' "$out.cli") ||
            { warn "cannot parse fi_pingpong's output ($out.cli)"; return 1; }
        return 0
    done
    return 1
}

# run_am PROVIDER N: sets AM_OUT to "RTT_US RATE PROVIDER_NAME MEAN_US"
# (MEAN_US "-" unless am_pingpong prints "rtt_mean_us X")
run_am() {
    AM_OUT=
    prov=$1
    n=$2
    out=$SCRATCH/am-$(echo "$prov" | tr -c 'A-Za-z0-9\n' '_')-$n
    # cm5run stops the job itself after --timeout; timeout(1) is a backstop
    timeout -k 3 $((RUN_TIMEOUT + 3)) "$CM5RUN" -n 2 --provider "$prov" \
        --timeout "$RUN_TIMEOUT" "$AM_PINGPONG" -i "$ITERS" -m "$MSGS" \
        >"$out" 2>&1 </dev/null &
    apid=$!
    PIDS="$PIDS $apid"
    wait_bg "$apid"
    arc=$?
    if [ $arc -ne 0 ]; then
        [ $arc -eq 124 ] && warn "am_pingpong ($prov) timed out"
        warn "am_pingpong ($prov) failed ($arc): $(tail -n 1 "$out")"
        return 1
    fi
    AM_OUT=$(awk '/^am_pingpong: .* provider / { sub(/.* provider /, ""); p = $0 }
         /^one-way / { for (i = 1; i < NF; i++)
                           if ($(i + 1) == "messages/s") r = $i }
         /^rtt_us / { t = $2 }
         /^rtt_mean_us / { m = $2 }
         END { if (t == "" || r == "") exit 1;
               gsub(/ /, "_", p);
               print t, r, (p == "" ? "?" : p), (m == "" ? "-" : m) }' "$out") ||
        { warn "cannot parse am_pingpong's output ($out)"; return 1; }
}

fi_provider_name() {
    command -v fi_info >/dev/null 2>&1 || { echo "?"; return; }
    timeout 20 fi_info -p "$1" -t FI_EP_RDM 2>/dev/null |
        awk '/provider:/ { print $2; exit }' | grep . || echo "?"
}

# ------------------------------------------------------------------ main

cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
fiver=$(fi_info --version 2>/dev/null | awk '/^libfabric:/ { print $2 }')
say "# cm5fab active messages vs fi_pingpong"
say "# host: $(nproc 2>/dev/null || echo ?) CPUs, ${cpu:-unknown CPU}; libfabric ${fiver:-?}"
say "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
if awk -v n="$(nproc 2>/dev/null || echo 1)" '{ exit !($1 > n / 2) }' \
    /proc/loadavg 2>/dev/null; then
    say "# WARNING: other work is running (load average above half the CPUs):" \
        "expect noisy numbers"
fi
say "# build: $BUILDDIR"
say "# $ROUNDS rounds x (fi_pingpong -e rdm -S $FI_SIZE -I $ITERS," \
    "am_pingpong -i $ITERS -m $MSGS); timeout ${RUN_TIMEOUT}s per process"
if [ "$QUIET" != 1 ]; then
    env | grep '^CM5_' | sed 's/^/# environment: /'
fi

failed=0
RESULTS=
for prov in $PROVIDERS; do
    fi_all=
    am_all=
    rate_all=
    mean_all=
    am_name='?'
    fi_name=$(fi_provider_name "$prov")
    r=1
    while [ $r -le "$ROUNDS" ]; do
        if over_budget; then
            warn "time budget of ${BUDGET}s spent: stopping after round" \
                "$((r - 1)) of $prov"
            failed=1
            break
        fi
        if run_fi "$prov" "$r"; then
            fi_all="$fi_all $FI_RTT"
            f="$FI_RTT us"
        else
            f=fail
            failed=1
        fi
        if run_am "$prov" "$r"; then
            # shellcheck disable=SC2086 # three words
            set -- $AM_OUT
            am_all="$am_all $1"
            rate_all="$rate_all $2"
            am_name=$3
            a="$1 us, $2 msgs/s"
            if [ "$4" != - ]; then
                mean_all="$mean_all $4"
                a="$1 us (mean $4 us), $2 msgs/s"
            fi
        else
            a=fail
            failed=1
        fi
        say "# $prov round $r: fi_pingpong RTT $f; am_pingpong RTT $a"
        r=$((r + 1))
    done
    fi_med=$(echo "$fi_all" | median)
    am_med=$(echo "$am_all" | median)
    rate_med=$(echo "$rate_all" | median)
    mean_med=$(echo "$mean_all" | median)
    RESULTS="$RESULTS
$prov $fi_name $am_name $fi_med $am_med $rate_med $mean_med"
    say "# $prov: fi RTT us [$fi_all ] am RTT us [$am_all ] am msgs/s [$rate_all ]"
done

say "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg); $(($(now) - T_START)) s"
say ""
echo "$RESULTS" | awk -v rt="$RATIO_TARGET" -v qt="$RATE_TARGET" \
    -v strict="$STRICT" '
    function verdict(ok) { return ok ? "MET" : "NOT MET" }
    BEGIN {
        printf "%-9s %-12s %-12s %10s %10s %7s %12s  %-16s %-16s\n",
               "provider", "fi provider", "am provider", "fi RTT us",
               "am RTT us", "am/fi", "am msgs/s", "RTT target", "rate target"
        unmet = 0
    }
    NF == 7 {
        ratio = ($4 != "-" && $5 != "-" && $4 > 0) ? $5 / $4 : -1
        rs = ratio < 0 ? "-" : sprintf("%.2f", ratio)
        if ($1 == "shm" || $1 == "tcp") {
            ok = ratio >= 0 && ratio <= rt
            t1 = sprintf("<=%s %s", rt, ratio < 0 ? "n/a" : verdict(ok))
            unmet += !ok
        } else
            t1 = "-"
        if ($1 == "shm") {
            ok = $6 != "-" && $6 >= qt
            t2 = sprintf(">=%.1fM %s", qt / 1e6, $6 == "-" ? "n/a" : verdict(ok))
            unmet += !ok
        } else
            t2 = "-"
        printf "%-9s %-12s %-12s %10s %10s %7s %12s  %-16s %-16s\n",
               $1, $2, $3, $4 == "-" ? "-" : sprintf("%.2f", $4),
               $5 == "-" ? "-" : sprintf("%.2f", $5), rs,
               $6 == "-" ? "-" : sprintf("%.0f", $6), t1, t2
        res[++nres] = sprintf("RESULT provider=%s fi_rtt_us=%s am_rtt_us=%s " \
                              "ratio=%s am_oneway_msgs_per_s=%s", $1, $4, $5,
                              rs, $6)
        if ($7 != "-" && $4 != "-" && $4 > 0)
            res[nres] = res[nres] sprintf(" am_mean_rtt_us=%s mean_ratio=%.2f",
                                          $7, $7 / $4)
    }
    END {
        print "fi RTT: 2 x fi_pingpong usec/xfer (a mean); am RTT: am_pingpong" \
              " rtt_us (a median); each the median over the rounds."
        print ""
        for (i = 1; i <= nres; i++)
            print res[i]
        exit (strict && unmet) ? 1 : 0
    }'
verdict=$?

[ $failed -ne 0 ] && exit 3
exit $verdict
