#!/bin/sh
# Multi-host test: three "hosts" are network namespaces joined by veth
# links to a bridge in a fourth (the head, where mpirun runs), on a private
# subnet.  mpirun starts the nodes through agent.sh, which enters each
# host's namespace; the nodes bootstrap through PMIx and talk over tcp.
# Then one host's process is killed mid-run: the job must end non-zero,
# naming the lost node, within a bound.  Namespaces are removed on every
# exit.  Skips where namespaces, mpirun or PMIx are unavailable.
set -u
. "$abs_top_srcdir/tests/cluster/lib.sh"

cluster_require_pmix
[ "$(id -u)" = 0 ] || cluster_skip "needs root to create network namespaces"
command -v ip >/dev/null 2>&1 || cluster_skip "iproute2 (ip) not installed"

pre=cm5n$$
net=10.77.$(($$ % 200 + 20))
dir=$(mktemp -d)
export CM5_NETNS_DIR=$dir
made=""
cleanup() {
    for ns in $made; do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

mkns() {
    ip netns add "$1" 2>/dev/null || return 1
    made="$made $1"
    ip -n "$1" link set lo up
}

mkns ${pre}h0 || cluster_skip "cannot create network namespaces here"
ip -n ${pre}h0 link add br0 type bridge && ip -n ${pre}h0 link set br0 up &&
    ip -n ${pre}h0 addr add $net.1/24 dev br0 ||
    cluster_skip "cannot make a bridge in a namespace"
: > "$dir/hosts"
for i in 1 2 3; do
    mkns ${pre}h$i || cluster_skip "cannot create network namespaces here"
    ip link add ${pre}v$i type veth peer name cm5net netns ${pre}h$i &&
        ip link set ${pre}v$i netns ${pre}h0 &&
        ip -n ${pre}h0 link set ${pre}v$i master br0 up &&
        ip -n ${pre}h$i addr add $net.$((i + 1))/24 dev cm5net &&
        ip -n ${pre}h$i link set cm5net up ||
        cluster_skip "cannot link namespaces with veth pairs"
    echo ${pre}h$i > "$dir/ns.$net.$((i + 1))"
    echo "$net.$((i + 1)) slots=2" >> "$dir/hosts"
done

echo "1..6"
B=$abs_top_builddir/examples
run() { # run NP TIMEOUT PROGRAM ARGS...: mpirun in the head namespace
    np=$1 t=$2
    shift 2
    timeout -k 5 "$t" ip netns exec ${pre}h0 "$MPIRUN" --allow-run-as-root \
        --hostfile "$dir/hosts" --mca plm_rsh_agent "$abs_top_srcdir/tests/cluster/agent.sh" \
        --mca oob_tcp_if_include $net.0/24 --mca btl self -np "$np" \
        --map-by node -x CM5_NETNS_DIR -x FI_TCP_IFACE=cm5net "$@"
}

out=$(run 3 60 "$B/hello" 2>&1)
n=$(printf '%s\n' "$out" | grep -c '^hello from node [0-2] of 3$')
printf '%s\n' "$out" | grep -q 'provider: tcp;ofi_rxm (bootstrap: pmix)' &&
    [ "$n" = 3 ] && ok 1 "hello on 3 hosts over tcp, PMIx bootstrap" ||
    notok 1 "hello on 3 hosts" "$out"

out=$(run 6 120 "$B/am_flood" -m 5000 2>&1)
printf '%s\n' "$out" | grep -q '30000 requests and 30000 replies' &&
    ok 2 "active-message flood, 6 nodes on 3 hosts" ||
    notok 2 "flood across hosts" "$out"

out=$(run 6 120 "$B/cmmd_ring" -s 100000 -r 10 2>&1)
printf '%s\n' "$out" | grep -q '6 of 6 nodes hold the right data' &&
    ok 3 "CMMD block messages around a ring across hosts" ||
    notok 3 "cmmd ring across hosts" "$out"

# A node dies mid-run: kill the flood's process on host 2.
run 3 60 "$B/am_flood" -m 100000000 > "$dir/fail.out" 2>&1 &
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
out=$(cat "$dir/fail.out")
[ -n "$victim" ] && [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $t -le 30 ] &&
    ok 4 "killed node ends the job non-zero (status $rc) in ${t}s" ||
    notok 4 "killed node ends the job (victim '$victim' rc $rc ${t}s)" "$out"
printf '%s\n' "$out" | grep -Eq 'rank 1|node 1|signal 9|Killed' &&
    ok 5 "the report names the lost node" ||
    notok 5 "the report names the lost node" "$out"

left=""
for i in 1 2 3; do
    left="$left$(ip netns pids ${pre}h$i)"
done
[ -z "$left" ] && ok 6 "no process left on any host" ||
    notok 6 "processes left: $left" ""
