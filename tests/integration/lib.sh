# Helpers of the multi-node tests (POSIX sh, TAP on stdout).  A test
# sources this file, says `plan N`, runs jobs with `job` and checks them
# with `check`; each job's processes and /dev/shm files are checked with
# `check_clean`.  Everything runs in a scratch directory, removed at exit.
#
#   . "${abs_top_srcdir:-.}/tests/integration/lib.sh"

top=${abs_top_builddir:-$(pwd)}
case $top in
    /*) ;;
    *) top=$(pwd)/$top ;;
esac
CM5RUN=$top/tools/cm5run
EXAMPLES=$top/examples
PROGS=$top/tests/integration/progs

# The jobs get only what a test gives them.
unset CM5_TIMEOUT CM5_PROVIDER CM5_AM_CREDITS CM5_LOG_LEVEL CM5_VERBOSE_ENV
unset CM5_BOOT_FD CM5_RANK CM5_SIZE CM5_JOB_KEY CM5_DOORBELL_FD
unset CM5_LAUNCHER FI_PROVIDER

scratch=$(mktemp -d "${CM5TEST_SCRATCH:-${TMPDIR:-/tmp}}/cm5-it.XXXXXX") ||
    exit 99
trap 'cd / && rm -rf "$scratch"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$scratch" || exit 99

tap_n=0
jobno=0

plan() {
    echo "1..$1"
}

now_ms() {
    echo $(($(date +%s%N) / 1000000))
}

# Print a job's output as TAP comments.
show_job() {
    echo "# job $jobno: $job_cmd (exit $rc, $ms ms)"
    if [ -s out ]; then head -n 20 out | sed 's/^/#   out: /'; fi
    if [ -s err ]; then head -n 20 err | sed 's/^/#   err: /'; fi
}

# check DESCRIPTION EXPRESSION [TODO-REASON]: ok if the shell EXPRESSION
# succeeds.  With a reason, the result is marked TODO: a known bug.
check() {
    tap_n=$((tap_n + 1))
    tap_todo=${3:+ # TODO $3}
    if [ -n "${skipped:-}" ]; then
        echo "ok $tap_n - $1 # SKIP same as in the default run"
    elif eval "$2"; then
        echo "ok $tap_n - $1$tap_todo"
    else
        echo "not ok $tap_n - $1$tap_todo"
        show_job
    fi
}

# job SECONDS "CM5RUN-OPTIONS" PROGRAM [ARGS...]
# Run cm5run bounded by SECONDS.  "--provider shm" means the one-host
# default (no --provider: the same-host fast path beside libfabric's
# shm) unless CM5_SHM=off is in the environment (the *_fab.sh
# variants).  Each node records the job key before it execs PROGRAM; a
# marker argument, unique to the job, is appended to the program's
# arguments to find leftover processes.  Sets rc, ms, key,
# marker; stdout in ./out, stderr in ./err.
job() {
    limit=$1
    opts=$2
    shift 2
    jobno=$((jobno + 1))
    marker="cm5test-$$-$jobno"
    keys=$scratch/keys.$jobno
    : >"$keys"
    if [ "${CM5_SHM:-auto}" != off ]; then
        opts=$(echo " $opts " | sed 's/ --provider shm / /; s/^ //; s/ $//')
    fi
    job_cmd="cm5run $opts $*"
    # A *_fab.sh variant (CM5TEST_SHM_ONLY) skips jobs on other providers.
    skipped=
    case " $opts " in
        *" --provider shm "*) ;;
        *" --provider "*)
            if [ -n "${CM5TEST_SHM_ONLY:-}" ]; then
                skipped=1 rc=0 ms=0 t1=$(now_ms) key=
                : >out
                : >err
                return
            fi ;;
    esac
    t0=$(now_ms)
    # shellcheck disable=SC2086 # options are split on purpose
    timeout -k 5 "$limit" "$CM5RUN" $opts \
        sh -c 'echo "$CM5_JOB_KEY" >>"$0"; exec "$@"' "$keys" \
        "$@" "$marker" >out 2>err </dev/null
    rc=$?
    t1=$(now_ms)
    ms=$((t1 - t0))
    key=$(sort -u "$keys" | head -n 1)
}

# Milliseconds from the fault a test program announced on stdout
# ("fault at <wall-clock ms>") to the end of the last job; a large number
# if there was no such line.  The start-up of a job (seconds on a loaded
# machine) does not count against the bounds on stopping it.
after_fault() {
    f=$(sed -n 's/^fault at \([0-9][0-9]*\)$/\1/p' out | head -n 1)
    if [ -n "$f" ]; then echo $((t1 - f)); else echo 999999; fi
}

# The last job left no process behind and no /dev/shm file of its own.
job_clean() {
    tries=0
    while pgrep -f "$marker" >/dev/null; do
        tries=$((tries + 1))
        [ "$tries" -gt 30 ] && break
        sleep 0.1
    done
    left_procs=$(pgrep -f "$marker" | tr '\n' ' ')
    left_files=
    if [ -n "$key" ]; then
        left_files=$(ls /dev/shm 2>/dev/null | grep -F "cm5-$key" | tr '\n' ' ')
    fi
    if [ -n "$left_procs" ] || [ -n "$left_files" ]; then
        echo "# left behind: processes [$left_procs] files [$left_files]"
        if [ -n "$left_procs" ]; then
            kill -KILL $left_procs 2>/dev/null
        fi
        for f in $left_files; do
            rm -f "/dev/shm/$f"
        done
        return 1
    fi
    return 0
}

check_clean() {
    check "$1: no process and no /dev/shm/cm5-$key* file left" job_clean
}

# count_lines REGEX FILE: lines of FILE matching the extended REGEX
count_lines() {
    grep -Ec -- "$1" "$2"
}
