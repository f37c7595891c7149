#!/bin/bash
# scale.sh: start-up time and resident memory per node of a trivial job,
# cm5run -n N bench/cm5_hello against mpirun -np N of bench/mpi_hello.c
# (Open MPI, MPICH), for N = 8 .. 256 (doc/bench.md "Scale", issue 12).
#
# Per run: t0 = the wall clock just before the launcher starts; every node
# prints its wall clock after the first barrier and its /proc/self/status
# memory (bench/scale_rss.h).  Reported: start-up = the earliest node's
# clock after that barrier - t0 (launch, library start, wire-up, one
# barrier); total = the launcher's exit - t0; per node the mean VmRSS and
# its parts (RssAnon private, RssFile, RssShmem shared mappings, counted by
# every process that touches them), PSS (shared pages divided among the
# processes that map them: what a node costs the machine), the largest
# VmHWM; the launcher's own peak RSS (GNU time's %M, when /usr/bin/time
# exists).  Sizes past 256 (512, 1024: --ns "512 1024") take minutes each
# on a small machine.
# shellcheck disable=SC2317 # cleanup is called by trap
set -u

NS="8 16 32 64 128 256"
ROUNDS=1
PEERS="cm5 ompi mpich"
PROVIDER=auto
RUN_TIMEOUT=300
BUILDDIR=
KEEP=0

me=${0##*/}

usage() {
    cat <<EOF
usage: $me [OPTIONS]

Start-up time and resident memory per node: cm5run -n N against mpirun -np N.

  --ns "8 16 ..."      job sizes (default: "$NS")
  --peers LIST         cm5 ompi mpich (default: "$PEERS")
  --provider P         cm5run --provider P, or auto: none, the one-host
                       default (same-host rings beside libfabric's shm; shm
                       alone holds 128 nodes, the rings 1024) (default:
                       $PROVIDER; Open MPI uses btl self,vader, MPICH its
                       default)
  --rounds N           runs of each size, alternating (default: $ROUNDS)
  --builddir DIR       build tree with tools/cm5run and bench/cm5_hello
  --timeout S          limit for each job (default: $RUN_TIMEOUT)
  --keep               keep the scratch directory
EOF
}

die_usage() {
    echo "$me: $*" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    --ns) NS=$(printf '%s' "$2" | tr ',' ' '); shift 2 ;;
    --peers) PEERS=$(printf '%s' "$2" | tr ',' ' '); shift 2 ;;
    --provider) PROVIDER=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --builddir) BUILDDIR=$2; shift 2 ;;
    --timeout) RUN_TIMEOUT=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die_usage "unknown option '$1'" ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
BUILDDIR=${BUILDDIR:-$here/../_build}
BUILDDIR=$(cd "$BUILDDIR" 2>/dev/null && pwd) || die_usage "no build tree"
CM5RUN=$BUILDDIR/tools/cm5run
HELLO=$BUILDDIR/bench/cm5_hello
TIME=
[ -x /usr/bin/time ] && TIME=/usr/bin/time

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/cm5scale.XXXXXX") || exit 3
cd "$SCRATCH" || exit 3
PIDS=
cleanup() {
    for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
    cd / || :
    if [ "$KEEP" = 1 ]; then echo "# outputs kept in $SCRATCH"
    else rm -rf "$SCRATCH"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

ACTIVE=
for p in $PEERS; do
    case $p in
    cm5) if [ -x "$CM5RUN" ] && [ -x "$HELLO" ]; then ACTIVE="$ACTIVE cm5"
         else echo "# skip cm5: $CM5RUN or $HELLO missing (make bench/cm5_hello)"; fi ;;
    ompi) if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null &&
              mpicc.openmpi -O2 -I"$here" -o mpi_hello.ompi "$here/mpi_hello.c"; then
              ACTIVE="$ACTIVE ompi"
          else echo "# skip ompi: Open MPI not installed (libopenmpi-dev openmpi-bin)"; fi ;;
    mpich) if command -v mpicc.mpich >/dev/null && command -v mpirun.mpich >/dev/null &&
               mpicc.mpich -O2 -I"$here" -o mpi_hello.mpich "$here/mpi_hello.c"; then
               ACTIVE="$ACTIVE mpich"
           else echo "# skip mpich: MPICH not installed (mpich libmpich-dev)"; fi ;;
    *) die_usage "unknown peer '$p'" ;;
    esac
done

launch() { # PEER N
    case $1 in
    cm5) popt="--provider $PROVIDER"
         [ "$PROVIDER" = auto ] && popt=
         echo "$CM5RUN -n $2 $popt --timeout $RUN_TIMEOUT $HELLO" ;;
    ompi) echo "mpirun.openmpi --oversubscribe --allow-run-as-root --bind-to none -np $2 --mca pml ob1 --mca btl self,vader ./mpi_hello.ompi" ;;
    mpich) echo "mpirun.mpich -np $2 ./mpi_hello.mpich" ;;
    esac
}

echo "# start-up and memory per node: cm5run vs mpirun; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# host: $(nproc) CPUs; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# cm5run provider: $PROVIDER"
printf '%-6s %4s %5s %9s %9s %9s %9s %9s %9s %9s %9s %10s\n' impl N round \
    "start s" "total s" "rss kB" "anon kB" "file kB" "shmem kB" "pss kB" \
    "hwm max" "launch kB"
failed=0
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for n in $NS; do
        for p in $ACTIVE; do
            out=$SCRATCH/$p-$n-$r
            t0=$(date +%s.%N)
            # launch's words are the command: split them
            # shellcheck disable=SC2046
            if [ -n "$TIME" ]; then
                timeout -k 5 "$RUN_TIMEOUT" $TIME -f 'launcher_maxrss_kb %M' \
                    -o "$out.time" $(launch "$p" "$n") >"$out" 2>"$out.err" &
            else
                timeout -k 5 "$RUN_TIMEOUT" $(launch "$p" "$n") >"$out" \
                    2>"$out.err" &
            fi
            bp=$!
            PIDS=$bp
            wait "$bp"
            rc=$?
            t1=$(date +%s.%N)
            PIDS=
            got=$(grep -c '^node ' "$out")
            if [ $rc -ne 0 ] || [ "$got" -ne "$n" ]; then
                why=$(grep -m 1 ' error ' "$out.err" || tail -n 1 "$out.err")
                echo "# $p N=$n failed (exit $rc, $got of $n nodes): $why"
                failed=1
                continue
            fi
            lrss=$(awk '/^launcher_maxrss_kb/ { print $2 }' "$out.time" 2>/dev/null)
            awk -v t0="$t0" -v t1="$t1" -v p="$p" -v n="$n" -v r="$r" \
                -v l="${lrss:--}" '
                /^node / { if (tb == "" || $4 < tb) tb = $4
                           rss += $6; anon += $10; file += $12; shm += $14
                           pss += $16
                           if ($8 > hwm) hwm = $8; k++ }
                END { printf "%-6s %4d %5d %9.3f %9.3f %9.0f %9.0f %9.0f %9.0f %9.0f %9d %10s\n",
                      p, n, r, tb - t0, t1 - t0, rss / k, anon / k, file / k,
                      shm / k, pss / k, hwm, l }' "$out"
        done
    done
    r=$((r + 1))
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $failed
