#!/bin/sh
# The stress family (issue 24): randomized CM-5 programs (prog_stress) of
# the shapes the old hold rule hung -- requests then a collective,
# counters reset after barriers, scopy into rports allocated in request
# handlers released from the scopy's handler, up to 100 asynchronous
# messages in flight -- mixed with barriers, reductions, broadcasts and
# concats, every count and byte checked.  Run i takes seed BASE+i and a
# path in turn: the same-host rings, the rings without single copy,
# libfabric's shm, tcp, udp; every third with interrupts, every fifth on
# 32 nodes (else 8).  A run that does not end within its bound is a hang
# (its processes are killed and named).  STRESS_RUNS (20 in "make check",
# 200 in "make stress"), STRESS_HOGS CPU hogs beside (0; "make stress":
# 2), STRESS_SEED (the date's).  TAP.
#
#   abs_top_builddir=BUILD [STRESS_RUNS=N STRESS_HOGS=N] sh tests/cmmd/stress.sh

RUNS=${STRESS_RUNS:-20}
HOGS=${STRESS_HOGS:-0}
BASE=${STRESS_SEED:-$(($(date +%s) % 100000))}
PLAN=$((RUNS * 2 + 1))
. "$(dirname "$0")/lib.sh"

hogs=
stop_hogs() {
    for h in $hogs; do kill "$h" 2>/dev/null; done
    for h in $hogs; do wait "$h" 2>/dev/null; done
    hogs=
}
trap 'stop_hogs; cd / && rm -rf "$scratch"' EXIT
h=0
while [ $h -lt "$HOGS" ]; do
    sh -c 'while :; do :; done' &
    hogs="$hogs $!"
    h=$((h + 1))
done
echo "# seeds $BASE..$((BASE + RUNS - 1)), $HOGS CPU hogs beside"

hangs=0 wrong=0
run=0
while [ $run -lt "$RUNS" ]; do
    seed=$((BASE + run))
    nodes=8 rounds=30
    if [ $((run % 5)) = 4 ]; then nodes=32 rounds=8; fi
    unset CM5_SHM CM5_CMA CM5_INTERRUPTS
    case $((run % 5)) in
    0) prov=shm path=rings ;;
    1) prov=shm path="rings, no single copy"; CM5_CMA=off; export CM5_CMA ;;
    2) prov=shm path="libfabric shm"; CM5_SHM=off; export CM5_SHM ;;
    3) prov=tcp path=tcp ;;
    4) prov=shm path=rings ;;
    esac
    if [ $((run % 10)) = 9 ]; then prov=udp path=udp; fi
    irq=
    if [ $((run % 3)) = 2 ]; then
        CM5_INTERRUPTS=1
        export CM5_INTERRUPTS
        irq=", interrupts"
    fi
    job "stress $seed" 150 "$nodes" "$prov" prog_stress "$seed" "$rounds"
    if [ "$rc" = 124 ] || [ "$rc" = 137 ] || grep -q "timeout after" err; then
        hangs=$((hangs + 1))
    elif [ "$rc" != 0 ]; then
        wrong=$((wrong + 1))
    fi
    expect_ok "stress seed $seed: $rounds rounds on $nodes nodes, $path$irq"
    left_behind
    run=$((run + 1))
done
unset CM5_SHM CM5_CMA CM5_INTERRUPTS
stop_hogs
check "stress: 0 hangs and 0 wrong results in $RUNS runs ($hangs hangs, $wrong failures)" \
    '[ $hangs -eq 0 ] && [ $wrong -eq 0 ]'
finish
