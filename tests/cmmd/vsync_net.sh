#!/bin/sh
# Virtual time's synchronisation with the records as messages
# (CM5_MODEL_SYNC=net, what a job on several hosts does; doc/model.md,
# "Across hosts"): every program of vsync.sh gives the very lines it
# gives with the records in shared memory (CM5_MODEL_SYNC=on), on the
# same-host rings, libfabric shm, tcp and udp, beside two CPU hogs and on
# one CPU; node 0 says in one line (CM5_LOG_LEVEL=info) that the records
# travel as packets; no node reports a broken bound (a record taken out of
# order would let a node pass a packet still to come); the papers'
# algorithms (cm5sched --alg all, DRS_N and Generate_Recv by active
# messages, interrupts on) give the same table.  Computation is free.
# mixed 8 1 and mixed 8 2 are its messages alone and its scopies alone:
# until 2026-11-30 the scopies alone hung in the barrier after them
# (every node's handler held by the barrier counted as work at its
# clock).  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/vsync_net.sh

PLAN=19
. "$(dirname "$0")/lib.sh"

CM5_MODEL=cm5
CM5_MODEL_CPU_SCALE=0
export CM5_MODEL CM5_MODEL_CPU_SCALE

lines() { grep '^prog_vsync: node [0-9]* \(clock\|held\|splitred\)' out | sort; }
broken() { grep -c 'synchronisation:' err; }

trap 'hogs_off; cd / && rm -rf "$scratch"' EXIT

# ref NAME ARGS...: the shared-memory run's lines in NAME.on
ref() {
    rname=$1
    shift
    CM5_MODEL_SYNC=on
    export CM5_MODEL_SYNC
    job "$rname shared" 120 8 shm prog_vsync "$@"
    lines >"$rname.on"
    ref_rc=$rc
}

# net TAG PROVIDER NAME ARGS...: the same with the records as messages
net() {
    tag=$1 nprov=$2 nname=$3
    shift 3
    CM5_MODEL_SYNC=net
    export CM5_MODEL_SYNC
    job "$nname net $tag" 120 8 "$nprov" prog_vsync "$@"
    lines >"$nname.$tag"
}

same() { # NAME TAG: ran, the shared run's lines, no broken bound
    [ "$ref_rc" -eq 0 ] && [ "$rc" -eq 0 ] && [ -s "$1.on" ] &&
        cmp -s "$1.on" "$1.$2" && [ "$(broken)" -eq 0 ]
}

# every program of vsync.sh on the rings (interrupts: irq, irqcomp)
for m in "storm 40" "hot 16" "token 16" "mixed 8" "mixed 8 1" "mixed 8 2" \
    "held 4096 100" "splitred 5" "order 8192" "irq 8" "irqcomp 200 0"; do
    set -- $m
    mname=$(echo "$m" | sed 's/ [0-9]*//; s/ /-/g')
    ref "$mname" "$@"
    net rings shm "$mname" "$@"
    check "$mname: records as messages give the shared records' virtual times ($(wc -l <"$mname.on") lines)" \
        'same "$mname" rings'
done
CM5_LOG_LEVEL=info
export CM5_LOG_LEVEL
net info shm storm storm 40
unset CM5_LOG_LEVEL
check "node 0 alone says the records travel as packets" \
    '[ "$(grep -c "synchronised through messages: every node sends its record to the others as packets (CM5_MODEL_SYNC=net)" err)" -eq 1 ] &&
     same storm info'

# every path, and the counter-patterns of load: hogs, one CPU
ref mixed mixed 8
path_bad=
for p in tcp udp fshm; do
    prov=$p
    [ $p = fshm ] && prov=shm && CM5_SHM=off && export CM5_SHM
    net $p $prov mixed mixed 8
    unset CM5_SHM
    same mixed $p || path_bad="$path_bad $p"
done
check "mixed (messages, scopies, active messages): the same times over tcp, udp and libfabric shm${path_bad:+ (differed:$path_bad)}" \
    '[ -z "$path_bad" ]'
ref irq irq 8
irq_bad=
for p in tcp udp; do
    net $p $p irq irq 8
    same irq $p || irq_bad="$irq_bad $p"
done
check "interrupts (irq): the same times over tcp and udp${irq_bad:+ (differed:$irq_bad)}" \
    '[ -z "$irq_bad" ]'
ref mixed mixed 8
hogs_on
net hogs shm mixed mixed 8
hogs_off
check "mixed beside two CPU hogs: the same times" 'same mixed hogs'
if command -v taskset >/dev/null 2>&1; then
    CM5_MODEL_SYNC=net
    export CM5_MODEL_SYNC
    CM5TEST_KEYFILE=$scratch/key timeout -k 2 130 taskset -c 0 "$CM5RUN" \
        -n 8 --timeout 120 "$PROGS/prog_vsync" mixed 8 "cm5cmmd-$$-cpu1" \
        >out 2>err
    rc=$?
    lines >mixed.cpu1
    check "mixed on one CPU (taskset -c 0): the same times" 'same mixed cpu1'
else
    skip "mixed on one CPU" "no taskset"
fi
left_behind

# the papers' algorithms: DRS_N's inquiries and Generate_Recv are active
# messages, taken by interrupt; A1 waits in a split-phase barrier
sched() { # SYNC OUT [cm5run options]
    CM5_MODEL_SYNC=$1
    export CM5_MODEL_SYNC
    o=$2
    shift 2
    timeout -k 2 300 "$CM5RUN" -n 16 --timeout 290 "$@" \
        "$abs_top_builddir/tools/cm5sched" --alg all \
        --workload density:d=4 --sizes 512,4096 --reps 1 --warmup 0 \
        --recv am --interrupts >out 2>err
    rc=$?
    grep -v '^#' out >"$o"
}
sched on drs.on
ref_rc=$rc
sched net drs.rings
check "cm5sched --alg all --recv am --interrupts on 16 nodes: the shared records' table" \
    '[ "$ref_rc" -eq 0 ] && grep -q drsn drs.on && same drs rings'
sched net drs.tcp --provider tcp
check "cm5sched over tcp: the same table" 'same drs tcp'
unset CM5_MODEL_SYNC
