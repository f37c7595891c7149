# Shared by the cluster tests (TAP output).
ok() { echo "ok $1 - $2"; }
notok() {
    echo "not ok $1 - $2"
    [ -n "$3" ] && printf '%s\n' "$3" | sed 's/^/# /' | tail -40
}
cluster_skip() {
    echo "1..0 # SKIP $1"
    exit 0
}
cluster_require_pmix() {
    grep -q '^#define HAVE_PMIX 1' "$abs_top_builddir/config.h" ||
        cluster_skip "cm5fab was built without PMIx (install libpmix-dev)"
    MPIRUN=${MPIRUN:-$(command -v mpirun)}
    [ -n "$MPIRUN" ] || cluster_skip "mpirun (openmpi-bin) not installed"
}

# ---- network-namespace "hosts" ---------------------------------------------
# cluster_netns_up: three "hosts" h1..h3 are network namespaces joined by
# veth links to a bridge in a fourth, the head h0, where mpirun runs; on a
# private subnet $net.0/24 (head $net.1, host i $net.(i+1)).  The machine's
# own network is never touched: every link and address lives inside the
# namespaces.  Sets pre (namespace prefix), net, dir (scratch, also
# CLUSTER_NETNS_DIR for agent.sh) and the hostfile $dir/hosts; removes
# everything on exit.  Skips where namespaces cannot be made.
cluster_netns_up() {
    [ "$(id -u)" = 0 ] || cluster_skip "needs root to create network namespaces"
    command -v ip >/dev/null 2>&1 || cluster_skip "iproute2 (ip) not installed"
    pre=cm5n$$
    net=10.77.$(($$ % 200 + 20))
    dir=$(mktemp -d)
    CLUSTER_NETNS_DIR=$dir
    export CLUSTER_NETNS_DIR
    made=""
    trap cluster_netns_down EXIT
    trap 'exit 1' INT TERM HUP
    cluster_mkns ${pre}h0 || cluster_skip "cannot create network namespaces here"
    ip -n ${pre}h0 link add br0 type bridge 2>/dev/null &&
        ip -n ${pre}h0 link set br0 up &&
        ip -n ${pre}h0 addr add $net.1/24 dev br0 ||
        cluster_skip "cannot make a bridge in a namespace"
    : >"$dir/hosts"
    for i in 1 2 3; do
        cluster_mkns ${pre}h$i ||
            cluster_skip "cannot create network namespaces here"
        ip link add ${pre}v$i type veth peer name cm5net netns ${pre}h$i \
            2>/dev/null &&
            ip link set ${pre}v$i netns ${pre}h0 &&
            ip -n ${pre}h0 link set ${pre}v$i master br0 up &&
            ip -n ${pre}h$i addr add $net.$((i + 1))/24 dev cm5net &&
            ip -n ${pre}h$i link set cm5net up ||
            cluster_skip "cannot link namespaces with veth pairs"
        echo ${pre}h$i >"$dir/ns.$net.$((i + 1))"
        echo "$net.$((i + 1)) slots=${CLUSTER_SLOTS:-2}" >>"$dir/hosts"
    done
}
cluster_mkns() {
    ip netns add "$1" 2>/dev/null || return 1
    made="$made $1"
    ip -n "$1" link set lo up
}
# (CLUSTER_KEEP_OUT=DIR keeps the jobs' outputs, *.out, for a look.)
cluster_netns_down() {
    [ -n "${CLUSTER_KEEP_OUT:-}" ] && cp "$dir"/*.out "$CLUSTER_KEEP_OUT" 2>/dev/null
    for ns in $made; do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$dir"
}
# cluster_mpirun NP TIMEOUT [MPIRUN OPTIONS] PROGRAM ARGS...: mpirun in the
# head namespace, one node per host in turn (node k on host k % 3 + 1),
# starting the daemons through agent.sh.  --bind-to none: the namespace
# hosts share this machine's cores, and Open MPI would bind every host's
# first rank to the same core 0 (doc/bench.md, "Two hosts").
cluster_mpirun() {
    np=$1 t=$2
    shift 2
    timeout -k 5 "$t" ip netns exec ${pre}h0 "$MPIRUN" --allow-run-as-root \
        --hostfile "$dir/hosts" \
        --mca plm_rsh_agent "$abs_top_srcdir/tests/cluster/agent.sh" \
        --mca oob_tcp_if_include $net.0/24 --mca btl self -np "$np" \
        --map-by node --bind-to none -x FI_TCP_IFACE=cm5net "$@"
}
# The processes left in the host namespaces (none once a job is over).
cluster_netns_left() {
    for i in 1 2 3; do
        ip netns pids ${pre}h$i
    done | tr '\n' ' '
}
# cluster_kill_flood NP: an am_flood of NP nodes across the hosts (its
# output in $dir/fail.out); once it runs, kill -9 its first process on
# host 2; sets victim (the pid, empty if none was found), rc (mpirun's
# status) and t (seconds from the kill to the job's end).
cluster_kill_flood() {
    cluster_mpirun "$1" 60 "$abs_top_builddir/examples/am_flood" \
        -m 100000000 >"$dir/fail.out" 2>&1 &
    job=$!
    victim=""
    for _ in $(seq 100); do
        victim=$(ip netns pids ${pre}h2 | while read -r p; do
            grep -qs am_flood "/proc/$p/cmdline" && echo "$p"; done | head -1)
        [ -n "$victim" ] && break
        sleep 0.1
    done
    sleep 2
    t0=$(date +%s)
    [ -n "$victim" ] && kill -9 "$victim"
    wait $job
    rc=$?
    t=$(($(date +%s) - t0))
}

# Virtual time, synchronised (tests/cmmd/prog_vsync): vs_ref OUT NODES
# ARGS... runs prog_vsync ARGS under cm5run on this host (computation
# free) and keeps its clock lines, in node order, in OUT; vs_twice REF
# LINES SAID -- COMMAND... runs COMMAND (another launcher's job of the
# same program) twice: each run exits 0 with the LINES clock lines of
# REF, no node says its synchronisation broke or is off, and SAID (if
# not empty) appears exactly once.  Returns non-zero at the first run
# that does not, with why, out (its output) and vs_last (its lines).
# node0_stopped OUT RC SECONDS BOUND LINE: a job stopped by a check --
# non-zero, not by timeout (124) nor mpi's leftovers (99), within BOUND
# seconds -- with exactly one line "cm5[0:PID] LINE" from node 0 in OUT.
node0_stopped() {
    [ "$2" -ne 0 ] && [ "$2" -ne 124 ] && [ "$2" -ne 99 ] && [ "$3" -le "$4" ] &&
        [ "$(printf '%s\n' "$1" | grep -c "^cm5\[0:[0-9]*\] $5\$")" = 1 ]
}
vs_lines() { grep '^prog_vsync: node [0-9]* clock' | sort -k3,3n; }
vs_ref() {
    f=$1 n=$2
    shift 2
    CM5_MODEL=cm5 CM5_MODEL_CPU_SCALE=0 timeout -k 5 120 \
        "$abs_top_builddir/tools/cm5run" -n "$n" \
        "$abs_top_builddir/tests/cmmd/prog_vsync" "$@" 2>&1 | vs_lines >"$f"
}
vs_twice() {
    ref=$1 nl=$2 said=$3
    shift 4
    why=
    for r in 1 2; do
        out=$("$@" 2>&1)
        rc=$?
        vs_last=$ref.run$r
        printf '%s\n' "$out" | vs_lines >"$vs_last"
        n=1
        [ -z "$said" ] || n=$(printf '%s\n' "$out" | grep -cF "$said")
        if [ "$rc" -ne 0 ] || [ "$n" != 1 ] ||
            [ "$(wc -l <"$vs_last")" -ne "$nl" ] || ! cmp -s "$ref" "$vs_last" ||
            printf '%s\n' "$out" | grep -q 'synchronisation:\|without synchronisation'; then
            why="run $r: exit $rc, $(wc -l <"$vs_last") lines, $n saying it"
            return 1
        fi
    done
    [ "$(wc -l <"$ref")" -eq "$nl" ]
}
