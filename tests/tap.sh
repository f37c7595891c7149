# tap.sh: TAP output and a scratch directory for the multi-node test
# scripts (POSIX sh), sourced by tests/cmmd/lib.sh, tests/algos/lib.sh and
# the tests/algos scripts that run cm5sched.
#
#   tap_begin NAME PLAN  make and enter a scratch directory (removed at
#                        exit) and print the plan (none if PLAN is empty)
#   ok DESC              a passing check
#   skip DESC WHY        a skipped check
#   not_ok DESC          a failing check, with what the job left behind
#   check DESC EXPR      ok if the shell expression EXPR holds, else not_ok
#   now_ms               milliseconds since the epoch
#   provopt PROV         cm5run's provider option for PROV: none for shm
#                        (the one-host default, the same-host fast path
#                        beside libfabric's shm) unless CM5_SHM=off
#
# not_ok shows the job ($what, $rc and $ms, when set), the last $TAP_TAIL
# (12) lines of ./out and ./err, and the first lines of ./why if any.

tap_begin() {
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 1
    trap 'cd / && rm -rf "$scratch"' EXIT
    trap 'exit 1' HUP INT TERM
    cd "$scratch" || exit 1
    if [ -n "$2" ]; then echo "1..$2"; fi
    n=0
    t_start=$(date +%s)
}

ok() {
    n=$((n + 1))
    echo "ok $n - $1"
}

skip() {
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}

not_ok() {
    n=$((n + 1))
    echo "not ok $n - $1"
    echo "#   job: ${what:-?} (exit ${rc:-?}${ms:+ after $ms ms})"
    if [ -s out ]; then
        tail -n "${TAP_TAIL:-12}" out | cut -c1-300 | sed 's/^/#   stdout: /'
    fi
    if [ -s err ]; then
        tail -n "${TAP_TAIL:-12}" err | cut -c1-300 | sed 's/^/#   stderr: /'
    fi
    if [ -s why ]; then head -n 8 why | sed 's/^/#   /'; fi
}

check() {
    if eval "$2"; then ok "$1"; else not_ok "$1"; fi
}

provopt() {
    if [ "$1" != shm ] || [ "${CM5_SHM:-auto}" = off ]; then
        echo "--provider $1"
    fi
}

now_ms() {
    echo $(($(date +%s%N) / 1000000))
}
