# lib.sh: shared by the tests/cmmd/*.sh scripts (POSIX sh, TAP output).
#
# A script sets PLAN, sources this file, and for each job calls
#   job NAME SECONDS NODES PROVIDER PROG [ARGS...]
# which runs "cm5run -n NODES --provider PROVIDER --timeout SECONDS
# tests/cmmd/PROG ARGS MARK" (bounded by timeout(1) as well) in a scratch
# directory, leaving rc, ms (wall time), out and err, then checks with
#   expect_ok DESCRIPTION          exit 0 and one "ok" line per node
#   check DESCRIPTION EXPRESSION   any shell expression
#   left_behind                    no process and no /dev/shm/cm5-KEY*
#                                  file of the job remains
# PROVIDER shm means the one-host default: cm5run without --provider,
# which takes the same-host fast path (CM5_SHM=auto) beside libfabric's
# shm; with CM5_SHM=off in the environment (the *_fab.sh variants) it is
# "--provider shm", libfabric alone.
# The variants set CM5TEST_SHM_ONLY too: their jobs on other providers
# would repeat the default run's, so they are skipped (TAP SKIP).
# MARK is an extra argument unique to the job (the programs ignore it):
# it finds the job's processes.  Every node writes the job key (cm5run's
# CM5_JOB_KEY) to a file before the program starts, which finds the job's
# shared-memory files even when the job fails at once (a diff of /dev/shm
# would also see the files of a test running beside this one).

: "${abs_top_builddir:=$(pwd)}"
: "${abs_top_srcdir:=$abs_top_builddir}"
CM5RUN=$abs_top_builddir/tools/cm5run
PROGS=$abs_top_builddir/tests/cmmd

unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER \
    CM5_INTERRUPTS

TAP_TAIL=15
. "$(dirname "$0")/../tap.sh"
tap_begin cm5cmmd "$PLAN"
jobno=0

# hogs_on, hogs_off: two CPU hogs (yes(1)) beside the jobs between them;
# a script that uses them stops them at exit as it removes its scratch
# directory (trap 'hogs_off; cd / && rm -rf "$scratch"' EXIT).
hog1= hog2=
hogs_on() {
    yes >/dev/null &
    hog1=$!
    yes >/dev/null &
    hog2=$!
}
hogs_off() {
    [ -n "$hog1" ] || return 0
    kill "$hog1" "$hog2" 2>/dev/null
    wait "$hog1" "$hog2" 2>/dev/null
    hog1= hog2=
}

shm_list() {
    ls /dev/shm 2>/dev/null | grep '^cm5-' | sort
}

# job_begin: a job's number and mark, its files cleared, /dev/shm as it
# was and the clock as it starts; job_end RC: its status and wall time.
job_begin() {
    jobno=$((jobno + 1))
    mark="cm5cmmd-$$-$jobno"
    rm -f key out err
    shm_list >shm.before
    t0=$(now_ms)
}
job_end() {
    rc=$1
    ms=$(($(now_ms) - t0))
    t_end=$(date '+%H:%M:%S.%N')
}

# job NAME SECONDS NODES PROVIDER PROG [ARGS...]
job() {
    name=$1 secs=$2 nodes=$3 prov=$4 prog=$5
    shift 5
    job_begin
    what="$name: $prog $* on $nodes nodes, $prov"
    skipped=
    if [ -n "${CM5TEST_SHM_ONLY:-}" ] && [ "$prov" != shm ]; then
        skipped=1 rc=0 ms=0
        : >out
        : >err
        return
    fi
    provopt="--provider $prov"
    if [ "$prov" = shm ] && [ "${CM5_SHM:-auto}" != off ]; then
        provopt=
    fi
    CM5TEST_KEYFILE=$scratch/key timeout -k 2 $((secs + 10)) \
        "$CM5RUN" -n "$nodes" $provopt --timeout "$secs" \
        sh -c 'echo "$CM5_JOB_KEY" >>"$0"; exec "$@"' "$scratch/key" \
        "$PROGS/$prog" "$@" "$mark" >out 2>err
    job_end $?
}

HOSTPROG=$PROGS/prog_host_h

# hjob NAME SECONDS NODES PROVIDER MODE: cm5run --host prog_host_h MODE
# -- prog_host_n MODE, the nodes writing the job key as in job(); with
# CM5TEST_WRAP set (taskset -c 0), cm5run runs under that command.
hjob() {
    name=$1 secs=$2 nodes=$3 prov=$4 mode=$5
    job_begin
    what="$name: --host prog_host_h $mode -- prog_host_n $mode on $nodes nodes, $prov"
    CM5TEST_KEYFILE=$scratch/key timeout -k 2 $((secs + 10)) \
        ${CM5TEST_WRAP:-} "$CM5RUN" -n "$nodes" --provider "$prov" \
        --timeout "$secs" \
        --host "$HOSTPROG" "$mode" "$mark" -- \
        sh -c 'echo "$CM5_JOB_KEY" >>"$0"; exec "$@"' "$scratch/key" \
        "$PROGS/prog_host_n" "$mode" "$mark" >out 2>err
    job_end $?
}

# hjob's: exit 0, nothing on stderr, and "ok" from every node and from
# the host (node N of N).
all_ok() {
    [ "$rc" -eq 0 ] && [ ! -s err ] &&
        [ "$(grep -c "^prog_host: node [0-9]* of $nodes ok\$" out)" -eq $((nodes + 1)) ] &&
        grep -q "^prog_host: node $nodes of $nodes ok\$" out
}

# Every node printed its "ok" line and the job exited 0.
expect_ok() {
    check "$1 ($ms ms)" '[ "$rc" -eq 0 ] &&
        [ "$(grep -c "^prog_[a-z0-9]*: node [0-9]* of [0-9]* ok$" out)" -eq "$nodes" ]'
}

# A check of a job skipped by a *_fab.sh variant.
check() {
    if [ -n "$skipped" ]; then
        skip "$1" "same as in the default run (CM5TEST_SHM_ONLY)"
    elif eval "$2"; then ok "$1"; else not_ok "$1"; fi
}

# shm_held FILE: /dev/shm/FILE is gone, or a live process maps it or has
# it open.
shm_held() {
    [ -e "/dev/shm/$1" ] || return 0
    grep -qsF "/dev/shm/$1" /proc/[0-9]*/maps && return 0
    ls -l /proc/[0-9]*/fd 2>/dev/null | grep -qF "/dev/shm/$1"
}

# No process of the job and no shared-memory file of the job remains.
left_behind() {
    if [ -n "$skipped" ]; then
        skip "$name: nothing left behind" "same as in the default run"
        return
    fi
    i=0
    while pids=$(pgrep -f -- "$mark") && [ $i -lt 30 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    files=
    if [ -s key ]; then
        files=$(ls /dev/shm 2>/dev/null | grep -F "cm5-$(head -n 1 key)")
    else
        # no node started (a refused job): the files new since the job
        # began that no live process holds are its; a test running beside
        # this one holds its own (mapped or open), and they are not ours
        # to judge or remove
        files=
        for f in $(shm_list | comm -13 shm.before -); do
            shm_held "$f" || files="$files $f"
        done
    fi
    if [ -z "$pids" ] && [ -z "$files" ]; then
        ok "$name: nothing left behind"
        return
    fi
    not_ok "$name: nothing left behind"
    for p in $pids; do
        echo "#   left: process $p: $(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)"
        kill -KILL "$p" 2>/dev/null
    done
    for f in $files; do
        # (when it was last changed against when cm5run ended: a file
        # changed after cm5run's clean-up was made by something else)
        echo "#   left: /dev/shm/$f (changed $(stat -c %y "/dev/shm/$f" \
            2>/dev/null | cut -d' ' -f2), cm5run ended $t_end)"
        rm -f "/dev/shm/$f"
    done
}

finish() {
    echo "# $n tests in $(($(date +%s) - t_start)) s"
    [ "$n" -eq "$PLAN" ] || echo "# planned $PLAN tests, ran $n"
}

# one_error NODE CALL MESSAGE: stderr is the library's one error line from
# NODE (a node number, or "host" for the host program of --host), with
# the pid cm5run names, and cm5run's line, nothing else.
one_error() {
    if [ "$1" = host ]; then
        who="host program $HOSTPROG"
    else
        who="node $1"
    fi
    pid=$(grep -F "cm5run: $who (pid " err |
        sed -n 's/^.* (pid \([0-9]*\)) exited with status 1; stopping the job$/\1/p')
    [ -n "$pid" ] && [ "$(wc -l <err)" -eq 2 ] &&
        grep -Eqx "cm5\[$1:$pid\] error $2: $3" err
}

# bad_case LABEL PROG PROVIDER NODES MODE NODE CALL MESSAGE: "PROG MODE"
# gives one error line "cm5[NODE:PID] error CALL: MESSAGE" (an extended
# regular expression), exits 1 (within 18 s of the 20 s limit: only a
# hang fails, start-up on a loaded machine takes seconds) and leaves
# nothing behind.
bad_case() {
    bc_node=$6 bc_call=$7 bc_msg=$8
    job "$1 $5 $3 n=$4" 20 "$4" "$3" "$2" "$5"
    check "$1 $5 ($3, $4 nodes): one line 'cm5[$6:PID] error $7: ...', exit 1, no hang ($ms ms)" \
        '[ "$rc" -eq 1 ] && [ "$ms" -lt 18000 ] &&
         one_error "$bc_node" "$bc_call" "$bc_msg"'
    left_behind
}

# bad_cases LABEL PROG: every line MODE|NODE|CALL|MESSAGE of $cases on shm
# with 2 nodes, then each MODE or MODE:NODES of $tcp_modes on tcp.
bad_cases() {
    echo "$cases" >cases
    while IFS='|' read -r mode node call msg; do
        bad_case "$1" "$2" shm 2 "$mode" "$node" "$call" "$msg"
    done <cases
    for run in $tcp_modes; do
        mode=${run%:*}
        nodes=2
        [ "$mode" = "$run" ] || nodes=${run#*:}
        IFS='|' read -r m node call msg <<END
$(grep "^$mode|" cases)
END
        bad_case "$1" "$2" tcp "$nodes" "$mode" "$node" "$call" "$msg"
    done
}
