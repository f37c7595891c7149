#!/bin/sh
# Nothing is left after any ending of a job (issue 23).  Each job of
# prog_ending (4 nodes) is ended one way, at a point drawn at random in
# its phase, and then, within 2 s of its end (of the kill, when the
# launcher itself is killed), there must be no process of the job (its
# environment carries a mark; zombies are not processes), no file in
# /dev/shm, none in /tmp (but this script's scratch directory), and none
# in the job's working directory.  The endings:
#
#   launcher   SIGKILL of cm5run (its nodes die by PR_SET_PDEATHSIG; its
#              janitor removes the shared memory), at start-up, mid-flood
#              or during finalize
#   node       SIGKILL of one node, at start-up, mid-flood, mid-barrier or
#              during finalize (the others wait in the exit barrier)
#   abort      a node calls abort() among barriers
#   oom        the OOM killer ends a node (a memory cgroup of 64 MiB it
#              moves into; skipped where no memory cgroup can be made)
#   the same under Open MPI's mpirun, a PMIx launcher (all but a kill
#              of mpirun at start-up)
#
# on the same-host rings (the default), libfabric's shm (CM5_SHM=off) and
# tcp.  By default ("make check") each ending once on the rings and under
# mpirun, three on the others; LEFTOVERS_ROUNDS=N ("make check-leftovers":
# 50) draws N endings at random on each of the three paths instead, and
# N/5 under mpirun.  The jobs run in a
# private mount namespace whose /dev/shm and /tmp are new and empty, so a
# leftover is this job's, not a test's running beside it: root and
# unshare --mount are needed, or it skips in one line.  TAP.
#
#   abs_top_builddir=BUILD [LEFTOVERS_ROUNDS=N] sh tests/cmmd/leftovers.sh

: "${abs_top_builddir:=$(pwd)}"
: "${abs_top_srcdir:=$abs_top_builddir}"
B=$abs_top_builddir
if [ -z "${CM5TEST_LEFTOVERS_NS:-}" ]; then
    if [ "$(id -u)" = 0 ] &&
        unshare --mount --propagation private true 2>/dev/null; then
        CM5TEST_LEFTOVERS_NS=1 exec unshare --mount --propagation private \
            sh "$0" "$@"
    fi
    echo "1..0 # SKIP needs root and unshare --mount (a /dev/shm and /tmp of its own to find leftovers in)"
    exit 0
fi
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || {
    echo "1..0 # SKIP cannot mount a private /dev/shm"
    exit 0
}
own_tmp=no
case "$B/:$abs_top_srcdir/" in
/tmp/*) ;; # the tree is in /tmp: keep it, look at the jobs' TMPDIR only
*) mount -t tmpfs -o mode=1777 tmpfs /tmp && own_tmp=yes ;;
esac
unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER \
    CM5_INTERRUPTS CM5_SHM TMPDIR
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
CM5RUN=$B/tools/cm5run
PROG=$B/tests/cmmd/prog_ending
ROUNDS=${LEFTOVERS_ROUNDS:-0}
NODES=4

. "$abs_top_srcdir/tests/tap.sh"
tap_begin cm5leftovers ""
[ $own_tmp = yes ] || echo "# the tree is under /tmp: /tmp is shared, only the jobs' TMPDIR is checked"
seed=${LEFTOVERS_SEED:-$(($(date +%s) % 100000))}
echo "# random points from seed $seed (LEFTOVERS_SEED=$seed repeats them)"
rnd_i=0
# rnd LO HI: R becomes an integer in [LO, HI), the next of the seed's.
rnd() {
    rnd_i=$((rnd_i + 1))
    R=$(awk -v s="$seed" -v i="$rnd_i" -v lo="$1" -v hi="$2" \
        'BEGIN { srand(s * 1000 + i); print int(lo + rand() * (hi - lo)) }')
}

# A memory cgroup for the OOM endings (v2, or v1's memory hierarchy).
cg=
for d in /sys/fs/cgroup/memory /sys/fs/cgroup; do
    if [ -w "$d/cgroup.procs" ] && mkdir "$d/cm5leftovers.$$" 2>/dev/null; then
        cg=$d/cm5leftovers.$$
        if [ -f "$cg/memory.limit_in_bytes" ]; then
            echo $((64 << 20)) >"$cg/memory.limit_in_bytes" || cg=
            [ -z "$cg" ] || [ ! -f "$cg/memory.memsw.limit_in_bytes" ] ||
                echo $((64 << 20)) >"$cg/memory.memsw.limit_in_bytes"
        elif [ -f "$cg/memory.max" ]; then
            echo $((64 << 20)) >"$cg/memory.max" || cg=
            [ -z "$cg" ] || [ ! -f "$cg/memory.swap.max" ] ||
                echo 0 >"$cg/memory.swap.max"
        else
            rmdir "$cg"
            cg=
        fi
        [ -n "$cg" ] && break
        rmdir "$d/cm5leftovers.$$" 2>/dev/null
    fi
done
cleanup_cg() { [ -z "$cg" ] || rmdir "$cg" 2>/dev/null; }
trap 'cleanup_cg; cd / && rm -rf "$scratch"' EXIT

MPIRUN=
if command -v mpirun >/dev/null 2>&1 && command -v ompi_info >/dev/null 2>&1
then
    MPIRUN=mpirun
fi

# The job's processes (not zombies): their environment has the mark.
job_pids() {
    for e in $(grep -lsaxzF "CM5TEST_MARK=$mark" /proc/[0-9]*/environ); do
        p=${e#/proc/}
        p=${p%/environ}
        st=$(sed -n 's/^[0-9]* (.*) \([A-Z]\).*/\1/p' "/proc/$p/stat" 2>/dev/null)
        [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] && echo "$p"
    done
}

# Anything left: processes, /dev/shm, /tmp beside the scratch directory,
# the job's TMPDIR and working directory.
leftovers() {
    {
        for p in $(job_pids); do
            echo "process $p: $(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)"
        done
        ls -A /dev/shm | sed 's|^|/dev/shm/|'
        if [ $own_tmp = yes ]; then
            ls -A /tmp | grep -vxF "${scratch#/tmp/}" | sed 's|^|/tmp/|'
        fi
        ls -A "$wd" | sed "s|^|working directory: |"
        ls -A "$jtmp" | sed "s|^|TMPDIR: |"
    } 2>/dev/null
}

# Wait for the job's end and for nothing left, 2 s at most from $t_end.
settle() {
    i=0
    while kill -0 "$bg" 2>/dev/null && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -n "$t_end" ] || t_end=$(now_ms)
    while [ -n "$(leftovers)" ] && [ $(($(now_ms) - t_end)) -lt 2000 ]; do
        sleep 0.05
    done
    left=$(leftovers)
    gone_ms=$(($(now_ms) - t_end))
}

report() {
    if [ -n "$want" ] && ! grep -Eq "$want" "$scratch/err"; then
        what="$via $*"
        rc=?
        not_ok "$1: the job ended as meant (the launcher's line /$want/)"
        fails=$((fails + 1))
        return
    fi
    if [ -z "$left" ]; then
        ok "$1: nothing left ($gone_ms ms after the end)"
        return
    fi
    not_ok "$1: nothing left"
    fails=$((fails + 1))
    echo "$left" | head -n 20 | sed 's/^/#   left: /'
    for p in $(job_pids); do kill -KILL "$p" 2>/dev/null; done
    rm -rf /dev/shm/* "$wd"/* "$jtmp"/* 2>/dev/null
}

jobno=0
fails=0
# start LAUNCHER PROV ARGS...: prog_ending ARGS on $NODES nodes, in the
# background; LAUNCHER is cm5run or mpirun.
start() {
    launcher=$1 prov=$2
    shift 2
    jobno=$((jobno + 1))
    mark=cm5left-$$-$jobno
    wd=$scratch/wd.$jobno
    jtmp=$scratch/tmp.$jobno
    mkdir -p "$wd" "$jtmp" "$scratch/launcher.$jobno"
    t_end=
    : >"$scratch/out"
    : >"$scratch/err"
    cd "$wd" || exit 1
    if [ "$launcher" = mpirun ]; then
        TMPDIR=$jtmp CM5TEST_MARK=$mark timeout -k 2 60 $MPIRUN \
            --allow-run-as-root --oversubscribe -x CM5TEST_MARK -x TMPDIR \
            --mca orte_tmpdir_base "$scratch/launcher.$jobno" \
            -np $NODES "$PROG" "$@" >"$scratch/out" 2>"$scratch/err" &
    else
        case $prov in
        rings) popt= ;;
        shm) popt="--provider shm" ;;
        *) popt="--provider $prov" ;;
        esac
        TMPDIR=$jtmp CM5TEST_MARK=$mark timeout -k 2 60 "$CM5RUN" \
            -n $NODES $popt --timeout 50 "$PROG" "$@" \
            >"$scratch/out" 2>"$scratch/err" &
    fi
    bg=$!
    cd "$scratch" || exit 1
    t0=$(now_ms)
}

# The launcher's pid (timeout's child).
launcher_pid() {
    pgrep -P "$bg" | head -n 1
}

# A node's pid, by the line it printed (node NODE), or any node of the
# job that has no such line yet (start-up): the launcher's children but
# the janitor.
node_pid() {
    p=$(sed -n "s/^prog_ending: node $1 pid \([0-9]*\)\$/\1/p" \
        "$scratch/out" | head -n 1)
    if [ -z "$p" ]; then
        lp=$(launcher_pid)
        for c in $(pgrep -P "$lp" 2>/dev/null); do
            [ "$(cat /proc/$c/comm 2>/dev/null)" = cm5run-janitor ] ||
                { p=$c; break; }
        done
    fi
    echo "$p"
}

# wait_for PATTERN: until out has a line matching it (30 s at most).
wait_for() {
    i=0
    while ! grep -q "$1" "$scratch/out" && [ $i -lt 300 ] &&
        kill -0 "$bg" 2>/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
}

sleep_ms() {
    sleep "$(awk -v m="$1" 'BEGIN { printf "%.3f", m / 1000 }')"
}

# ending KIND PHASE LAUNCHER PROV: one job ended that way, then checked.
ending() {
    kind=$1 phase=$2 via=$3 prov=$4
    rnd 1 $NODES
    victim=$R
    want=
    case $phase in
    startup) args="flood 20" ;;
    flood) args="flood 20" ;;
    barrier) args="barrier 20" ;;
    finalize) args="finalize 5" ;;
    esac
    case $kind in
    abort)
        rnd 0 800
        ms=$R
        start "$via" "$prov" abort "$victim" "$ms"
        desc="abort: node $victim calls abort() after $ms ms of barriers"
        want="^cm5run: node $victim \(pid [0-9]+\) killed by signal 6|rank $victim .*exited on signal 6"
        ;;
    oom)
        start "$via" "$prov" oom "$victim" "$cg"
        desc="oom: the OOM killer ends node $victim (64 MiB cgroup)"
        want="^cm5run: node $victim \(pid [0-9]+\) killed by signal 9|rank $victim .*exited on signal 9"
        ;;
    *)
        start "$via" "$prov" $args
        case $phase in
        startup) rnd 0 600 ;;
        finalize)
            wait_for "^prog_ending: node $victim finalizing"
            rnd 0 300
            ;;
        *)
            wait_for "^prog_ending: node $((NODES - 1)) pid"
            rnd 100 1500
            ;;
        esac
        d=$R
        sleep_ms "$d"
        if [ "$kind" = launcher ]; then
            pid=$(launcher_pid)
            desc="SIGKILL of $via $d ms into $phase"
        else
            pid=$(node_pid "$victim")
            if grep -q "^prog_ending: node $victim pid $pid\$" "$scratch/out"
            then
                desc="SIGKILL of node $victim $d ms into $phase"
            else
                desc="SIGKILL of a node still starting $d ms into $phase"
            fi
        fi
        if [ -n "$pid" ]; then
            kill -KILL "$pid" 2>/dev/null
            [ "$kind" = launcher ] && t_end=$(now_ms)
        else
            desc="$desc (no process to kill: the job had ended)"
        fi
        ;;
    esac
    settle
    wait "$bg" 2>/dev/null
    report "$via $prov, $desc"
}

endings_all="launcher:startup launcher:flood launcher:finalize
node:startup node:flood node:barrier node:finalize abort:barrier oom:barrier"
run_ending() {
    if [ "${1%%:*}" = oom ] && [ -z "$cg" ]; then
        skip "$2 $3, oom" "no memory cgroup can be made here"
        return
    fi
    ending "${1%%:*}" "${1#*:}" "$2" "$3"
}

if [ "$ROUNDS" -gt 0 ]; then
    for prov in rings shm tcp; do
        r=0
        while [ $r -lt "$ROUNDS" ]; do
            r=$((r + 1))
            rnd 1 10
            k=$R
            e=$(echo $endings_all | tr ' ' '\n' | sed -n "${k}p")
            run_ending "$e" cm5run "$prov"
        done
    done
else
    for e in $endings_all; do
        run_ending "$e" cm5run rings
    done
    for prov in shm tcp; do
        for e in launcher:flood node:startup abort:barrier; do
            run_ending "$e" cm5run "$prov"
        done
    done
fi
if [ -n "$MPIRUN" ] && [ "$ROUNDS" -gt 0 ]; then
    r=0
    while [ $r -lt $(((ROUNDS + 4) / 5)) ]; do
        r=$((r + 1))
        rnd 1 10
        run_ending "$(echo $endings_all | tr ' ' '\n' | sed -n "${R}p")" \
            mpirun pmix
    done
elif [ -n "$MPIRUN" ]; then
    for e in launcher:flood launcher:finalize node:startup node:barrier \
        node:finalize abort:barrier oom:barrier; do
        run_ending "$e" mpirun pmix
    done
else
    skip "mpirun: endings under a PMIx launcher" "no mpirun (apt-get install openmpi-bin)"
fi
echo "1..$n"
[ "$fails" -eq 0 ]
