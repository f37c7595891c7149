# lib.sh: shared by the benchmark scripts that run jobs side by side
# (am_vs_fi_pingpong.sh, am_vs_peers.sh, alltoallv_vs_mpi.sh), sourced
# once `me`, QUIET and KEEP are set:
#   die_usage MSG...     a usage error: MSG, a pointer to --help, exit 2
#   is_uint S            S is a non-negative integer
#   say MSG... / warn MSG...   stdout unless --quiet / stderr, named
#   now                  seconds since the epoch
#   bench_scratch PREFIX make and enter a scratch directory, removed at
#                        exit by cleanup (kept with --keep); sets PIDS
#                        (timeout(1) processes running), FI_PIDS
#                        (fi_pingpong processes, for their /dev/shm
#                        files) and T_START
#   forget_pid PID       PID has ended: drop it from PIDS
#   child_of PID         the first child of PID (waits up to 1 s)
#   pick_port [FALLBACK] a TCP port nothing listens on, below the
#                        ephemeral range (FALLBACK, 47592, after 50 tries)
#   port_listening PORT  something listens on PORT
# shellcheck shell=sh disable=SC2154,SC2034 # me, QUIET, KEEP: the caller's; T_START, SCRATCH: its too

die_usage() {
    echo "$me: $*" >&2
    echo "$me: try '$me --help'" >&2
    exit 2
}

is_uint() {
    case $1 in '' | *[!0-9]*) return 1 ;; esac
    return 0
}

say() { [ "$QUIET" = 1 ] || printf '%s\n' "$*"; }
warn() { printf '%s: %s\n' "$me" "$*" >&2; }
now() { date +%s; }

# Kill what we started, by pid: timeout(1) passes the signal on to its
# command; cm5run's nodes die with cm5run (PR_SET_PDEATHSIG).
cleanup() {
    trap '' INT TERM HUP
    for p in $PIDS; do
        kill -TERM "$p" 2>/dev/null
    done
    if [ -n "$PIDS" ]; then
        sleep 1
        for p in $PIDS; do
            # still our child, not a reused pid?
            [ "$(ps -o ppid= -p "$p" 2>/dev/null | tr -d ' ')" = $$ ] ||
                continue
            for c in $(ps -o pid= --ppid "$p" 2>/dev/null); do
                kill -KILL "$c" 2>/dev/null
            done
            kill -KILL "$p" 2>/dev/null
        done
        sleep 0.2
    fi
    # shm endpoints of killed fi_pingpong processes are /dev/shm/PID:N:M
    for p in $FI_PIDS; do
        kill -0 "$p" 2>/dev/null && continue
        for f in /dev/shm/"$p":*; do
            [ -e "$f" ] && rm -f "$f"
        done
    done
    cd / || :
    if [ "$KEEP" = 1 ]; then
        say "# outputs kept in $SCRATCH"
    else
        rm -rf "$SCRATCH"
    fi
}

# Providers may leave files (*.btr, ...) in the current directory: the
# jobs run in the scratch directory.
bench_scratch() {
    SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") ||
        { warn "cannot create a scratch directory"; exit 3; }
    cd "$SCRATCH" || exit 3
    PIDS=
    FI_PIDS=
    trap cleanup EXIT
    trap 'warn "interrupted"; exit 130' INT
    trap 'warn "terminated"; exit 143' TERM HUP
    T_START=$(now)
}

forget_pid() {
    np=
    for q in $PIDS; do
        [ "$q" = "$1" ] || np="$np $q"
    done
    PIDS=$np
}

child_of() {
    i=0
    while [ $i -lt 20 ]; do
        c=$(ps -o pid= --ppid "$1" 2>/dev/null | head -n 1 | tr -d ' ')
        if [ -n "$c" ]; then
            echo "$c"
            return 0
        fi
        i=$((i + 1))
        sleep 0.05
    done
    return 1
}

pick_port() {
    lo=20000
    hi=32767
    if [ -r /proc/sys/net/ipv4/ip_local_port_range ]; then
        read -r e1 _ </proc/sys/net/ipv4/ip_local_port_range
        [ "$e1" -gt $((lo + 1000)) ] && hi=$((e1 - 1))
    fi
    used=$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk 'NR > 1 { split($2, a, ":"); printf " %s", a[2] }')
    i=0
    while [ $i -lt 50 ]; do
        port=$(awk -v lo="$lo" -v hi="$hi" -v s="$$$i$(date +%N)" \
            'BEGIN { srand(s % 2147483647); print lo + int(rand() * (hi - lo)) }')
        hex=$(printf '%04X' "$port")
        case "$used " in
        *" $hex "*) ;;
        *) echo "$port"; return 0 ;;
        esac
        i=$((i + 1))
    done
    echo "${1:-47592}"
}

port_listening() {
    hex=$(printf '%04X' "$1")
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v h="$hex" 'NR > 1 && $4 == "0A" { split($2, a, ":");
                          if (a[2] == h) f = 1 } END { exit !f }'
}
