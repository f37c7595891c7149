#!/bin/bash
# soak.sh: a long run (default 30 minutes) of the two-way active-message
# flood and of "cm5sched --alg all" on one provider, checking that nothing
# is lost or duplicated and that resident memory and open file descriptors
# of the node processes stay flat.  Not part of "make check" (it takes as
# long as you ask); results of a run are in doc/reliability.md, "Soak".
#
#   bench/soak.sh [--minutes N] [--provider shm|tcp|udp] [--nodes N]
#                 [--builddir DIR] [--out DIR] [--sample SECONDS]
#
# The time is spent in three phases, every job under cm5run --timeout:
#   1. one long-lived am_flood -p all -t S (35% of the time): rounds of the
#      two-way flood, each round checked (every request and reply in
#      order, per pair, and the round's totals on node 0);
#   2. one long-lived cm5sched --alg all (25%): --matrices M, with M
#      calibrated by a first short cm5sched run so that it lasts about that
#      long; cm5sched checks every byte of every call;
#   3. until the time is up, short runs alternating am_flood -t 15 and
#      cm5sched --alg all (one matrix, a new seed each run).
# While a job runs, every SAMPLE seconds (default 5) the script records
# VmRSS (/proc/PID/status) and the open file descriptors (/proc/PID/fd) of
# cm5run and of each node process, and the load average.  For each
# long-lived job it reports, per process, the mean RSS of the first and of
# the last minute and the growth between them (the first minute starts
# after 10 s of start-up, the last ends 10 s before the end), and the fd
# counts at the start of that first minute, at the last sample, and the
# largest seen, then the mean node RSS minute by minute (start-up fills
# buffers during the first minute or two; a leak keeps growing).  Any
# job that exits non-zero counts as a failure (its output is kept in the
# output directory); the exit status is 1 if there was one.
# "make soak SOAK_FLAGS='...'" runs it against a build tree.
#
# Messages checked: am_flood's "N requests and N replies" lines (2N
# messages of 16 bytes); cm5sched's --csv rows (msgs_recv, bytes_recv,
# summed over every call).
set -u

minutes=30
provider=shm
nodes=8
builddir=
out=
sample=5
workload='density:d=4'
sizes='256:4096'

usage() {
    sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit "${1:-0}"
}

while [ $# -gt 0 ]; do
    case $1 in
    --minutes) minutes=$2; shift ;;
    --provider) provider=$2; shift ;;
    --nodes) nodes=$2; shift ;;
    --builddir) builddir=$2; shift ;;
    --out) out=$2; shift ;;
    --sample) sample=$2; shift ;;
    -h|--help) usage 0 ;;
    *) echo "soak.sh: unknown option '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done

here=$(cd "$(dirname "$0")" && pwd)
[ -n "$builddir" ] || builddir=$here/../_build
cm5run=$builddir/tools/cm5run
flood=$builddir/examples/am_flood
sched=$builddir/tools/cm5sched
for f in "$cm5run" "$flood" "$sched"; do
    [ -x "$f" ] || { echo "soak.sh: $f not built" >&2; exit 2; }
done
[ -n "$out" ] || out=soak-$provider-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || exit 2

total_s=$((minutes * 60))
t_start=$(date +%s)
deadline=$((t_start + total_s))
runs=0 failures=0 msgs=0 bytes=0
flood_runs=0 sched_runs=0
summary=$out/summary.txt
: >"$summary"

say() { echo "$*" | tee -a "$summary"; }
now() { date +%s; }

# sampler CM5RUN_PID FILE: "seconds pid name rss_kB fds load1" lines until
# cm5run exits.  The processes are cm5run and its children (the nodes).
sampler() {
    local top=$1 file=$2 t pids p rss fds load
    while kill -0 "$top" 2>/dev/null; do
        t=$(date +%s.%N)
        read -r load _ </proc/loadavg
        pids="$top $(pgrep -P "$top" | tr '\n' ' ')"
        for p in $pids; do
            rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
            fds=$(ls "/proc/$p/fd" 2>/dev/null | wc -l)
            [ -n "$rss" ] || continue
            echo "$t $p $([ "$p" = "$top" ] && echo cm5run || echo node)" \
                "$rss $fds $load"
        done >>"$file"
        sleep "$sample"
    done
}

# run_job NAME TIMEOUT ARGS...: runs cm5run with a timeout, sampled; output
# in $out/NAME.out, samples in $out/NAME.samples.  Returns the exit status.
run_job() {
    local name=$1 timeout=$2 pid spid rc
    shift 2
    "$cm5run" -n "$nodes" --provider "$provider" --timeout "$timeout" "$@" \
        >"$out/$name.out" 2>&1 &
    pid=$!
    sampler "$pid" "$out/$name.samples" &
    spid=$!
    wait "$pid"
    rc=$?
    wait "$spid"
    runs=$((runs + 1))
    if [ "$rc" -ne 0 ]; then
        failures=$((failures + 1))
        say "FAILED: $name (exit $rc):" \
            "$(tail -n 3 "$out/$name.out" | tr '\n' ' ')"
    fi
    return "$rc"
}

# Messages checked by an am_flood run, from node 0's output.
count_flood() {
    local n
    n=$(sed -n 's/^ *\([0-9]*\) requests and .* replies.*/\1/p' "$1")
    [ -n "$n" ] || return
    msgs=$((msgs + 2 * n))
    bytes=$((bytes + 32 * n))
}

# Messages and bytes received (and checked) in a cm5sched --csv file.
count_sched() {
    local m b
    [ -s "$1" ] || return
    read -r m b < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i;
                                      next }
                             { m += $col["msgs_recv"]; b += $col["bytes_recv"] }
                             END { printf "%d %d\n", m, b }' "$1")
    msgs=$((msgs + m))
    bytes=$((bytes + b))
}

# Growth report of a long-lived job's samples.
report_growth() {
    awk -v name="$1" '
        { t = $1; if (NR == 1) t0 = t; t1 = t;
          T[NR] = t; P[NR] = $2; K[$2] = $3; R[NR] = $4; F[NR] = $5;
          L[NR] = $6; n = NR }
        END {
            for (i = 1; i <= n; i++) {
                p = P[i]
                # Minutes: after 10 s of start-up, before 10 s of finalize.
                if (T[i] >= t0 + 10 && T[i] < t0 + 70) {
                    fs[p] += R[i]; fc[p]++
                    if (!(p in fd0)) fd0[p] = F[i]
                }
                if (T[i] > t1 - 70 && T[i] <= t1 - 10) {
                    ls[p] += R[i]; lc[p]++
                }
                fd1[p] = F[i]
                if (!(p in fdmax) || F[i] > fdmax[p]) fdmax[p] = F[i]
                load += L[i]; if (L[i] > lmax) lmax = L[i]
            }
            printf "%s: %.0f s sampled, load average (1 min) mean %.1f " \
                   "max %.1f\n", name, t1 - t0, load / n, lmax
            printf "  %-7s %-6s %12s %12s %8s %9s\n", "pid", "what",
                   "RSS first", "RSS last", "growth", "fds f/l/max"
            for (p in K) {
                if (!fc[p] || !lc[p]) continue
                a = fs[p] / fc[p]; b = ls[p] / lc[p]
                printf "  %-7s %-6s %9.0f kB %9.0f kB %+6.0f kB %3d/%d/%d\n",
                       p, K[p], a, b, b - a, fd0[p], fd1[p], fdmax[p] \
                       | "sort -k2,2 -k1,1n"
                if (K[p] == "node") {
                    sa += a; sb += b
                    if (b - a > gmax) gmax = b - a
                    if (fd1[p] != fd0[p]) fdch++
                }
            }
            close("sort -k2,2 -k1,1n")
            printf "  nodes: RSS %.0f kB -> %.0f kB (%+.0f kB, %+.2f%%), " \
                   "largest growth of one node %+.0f kB, fd changes %d\n",
                   sa, sb, sb - sa, sa ? 100 * (sb - sa) / sa : 0, gmax, fdch
        }' "$out/$1.samples" | tee -a "$summary"
    # Mean node RSS and the most fds of a node, minute by minute: tells
    # start-up (the first minute or two) from steady growth.
    awk '$3 == "node" { if (!t0) t0 = $1; m = int(($1 - t0) / 60)
                        s[m] += $4; c[m]++; if ($5 > f[m]) f[m] = $5 }
         END { printf "  node RSS (kB, mean) / fds (max) per minute:"
               for (m = 0; m in c; m++)
                   printf "%s %.0f/%d", m % 8 ? "" : "\n   ", s[m] / c[m], f[m]
               printf "\n" }' "$out/$1.samples" | tee -a "$summary"
}

say "soak: provider $provider, $nodes nodes, $minutes min, $(nproc) cores," \
    "started $(date -d @"$t_start" '+%F %T'), output in $out"

# Calibration: one short cm5sched run (1 matrix).
t=$(now)
if run_job sched-calib 600 "$sched" --alg all --workload "$workload" \
        --sizes "$sizes" --quiet --csv "$out/sched-calib.csv"; then
    sched_runs=$((sched_runs + 1))
    count_sched "$out/sched-calib.csv"
fi
per_matrix=$(( $(now) - t ))
[ "$per_matrix" -ge 1 ] || per_matrix=1
say "calibration: one cm5sched run (1 matrix) took ${per_matrix} s"

# Phase 1: long-lived flood.
flood_s=$((total_s * 35 / 100))
say "phase 1: am_flood -p all -t $flood_s"
if run_job flood-long $((flood_s + 600)) "$flood" -p all -m 2000 \
        -t "$flood_s"; then
    flood_runs=$((flood_runs + 1))
fi
count_flood "$out/flood-long.out"
sed -n '2,$p' "$out/flood-long.out" | tee -a "$summary"
report_growth flood-long

# Phase 2: long-lived cm5sched, sized to 25% of the time.
matrices=$((total_s * 25 / 100 / per_matrix))
[ "$matrices" -ge 1 ] || matrices=1
say "phase 2: cm5sched --alg all --matrices $matrices"
t=$(now)
if run_job sched-long $((total_s + 600)) "$sched" --alg all \
        --workload "$workload" --sizes "$sizes" --matrices "$matrices" \
        --seed 100 --quiet --csv "$out/sched-long.csv"; then
    sched_runs=$((sched_runs + 1))
fi
count_sched "$out/sched-long.csv"
say "  took $(( $(now) - t )) s"
report_growth sched-long

# Phase 3: short runs until the time is up.
say "phase 3: short runs, alternating am_flood -t 15 and cm5sched"
i=0
while [ $(( $(now) + 2 * per_matrix + 20 )) -lt "$deadline" ]; do
    if [ $((i % 2)) -eq 0 ]; then
        if run_job "flood-$i" 600 "$flood" -p all -m 20000 -t 15; then
            flood_runs=$((flood_runs + 1))
        fi
        count_flood "$out/flood-$i.out"
    else
        if run_job "sched-$i" 600 "$sched" --alg all --workload "$workload" \
                --sizes "$sizes" --seed $((1000 + i)) --quiet \
                --csv "$out/sched-$i.csv"; then
            sched_runs=$((sched_runs + 1))
        fi
        count_sched "$out/sched-$i.csv"
    fi
    i=$((i + 1))
done
# Peak RSS of node processes per short run: a trend here would show a leak
# that outlives processes (e.g. in /dev/shm); sampled, so noisy.
for f in "$out"/flood-[0-9]*.samples "$out"/sched-[0-9]*.samples; do
    [ -e "$f" ] || continue
    awk -v f="$(basename "$f" .samples)" '$3 == "node" && $4 > m { m = $4 }
        $3 == "node" && $5 > fd { fd = $5 }
        END { printf "%s %d %d\n", f, m, fd }' "$f"
done | sort -t- -k2n >"$out/short-peaks.txt"
awk '{ k = ($1 ~ /^flood/) ? "flood" : "sched"
       if (!(k in lo) || $2 < lo[k]) lo[k] = $2; if ($2 > hi[k]) hi[k] = $2
       if ($3 > fd[k]) fd[k] = $3; n[k]++ }
     END { for (k in n) printf "  short %s runs: %d, peak node RSS %d..%d kB,"\
           " max fds %d\n", k, n[k], lo[k], hi[k], fd[k] }' \
    "$out/short-peaks.txt" | tee -a "$summary"

t_end=$(now)
say "soak: provider $provider: $((t_end - t_start)) s, $runs runs" \
    "($flood_runs am_flood, $sched_runs cm5sched), $msgs messages and" \
    "$bytes bytes checked, $failures failures"
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$failures" -eq 0 ]
