#!/bin/sh
# Multi-host test: three "hosts" are network namespaces joined by veth
# links to a bridge in a fourth (the head, where mpirun runs), on a private
# subnet (lib.sh, cluster_netns_up).  mpirun starts the nodes through
# agent.sh, which enters each host's namespace; the nodes bootstrap through
# PMIx and talk over tcp.  Then one host's process is killed mid-run: the
# job must end non-zero within 30 s, and the output must name the lost
# node.  A deadlocked program (every node waiting for a message, none in
# flight), plain and in synchronised virtual time, is stopped by the
# nodes' own check (no cm5run here) with one line naming each node's wait.
# Namespaces are removed on every exit.  Skips where namespaces, mpirun or
# PMIx are unavailable.  netns_linkcut.sh cuts a link instead.
set -u
. "$abs_top_srcdir/tests/cluster/lib.sh"

cluster_require_pmix
cluster_netns_up

echo "1..10"
B=$abs_top_builddir/examples

out=$(cluster_mpirun 3 60 "$B/hello" 2>&1)
n=$(printf '%s\n' "$out" | grep -c '^hello from node [0-2] of 3$')
printf '%s\n' "$out" | grep -q 'provider: tcp;ofi_rxm (bootstrap: pmix)' &&
    [ "$n" = 3 ] && ok 1 "hello on 3 hosts over tcp, PMIx bootstrap" ||
    notok 1 "hello on 3 hosts" "$out"

out=$(cluster_mpirun 3 60 "$abs_top_builddir/tools/cm5info" 2>&1)
why='provider tcp;ofi_rxm (nodes on several hosts: the PMIx local size is less than the job size)'
n=$(printf '%s\n' "$out" |
    grep -c "^node [0-2] of 3: bootstrap pmix, $why\$")
[ "$n" = 3 ] && ok 2 "cm5info on 3 hosts: pmix, tcp because several hosts" ||
    notok 2 "cm5info on 3 hosts" "$out"

out=$(cluster_mpirun 6 120 "$B/am_flood" -m 5000 2>&1)
printf '%s\n' "$out" | grep -q '30000 requests and 30000 replies' &&
    ok 3 "active-message flood, 6 nodes on 3 hosts" ||
    notok 3 "flood across hosts" "$out"

out=$(cluster_mpirun 6 120 "$B/cmmd_ring" -s 100000 -r 10 2>&1)
printf '%s\n' "$out" | grep -q '6 of 6 nodes hold the right data' &&
    ok 4 "CMMD block messages around a ring across hosts" ||
    notok 4 "cmmd ring across hosts" "$out"

# Virtual time on several hosts: synchronised, the records as messages
# (doc/model.md, "Across hosts"): a storm of active messages with
# messages and scopies (prog_vsync mixed, 6 nodes on 3 hosts,
# computation free) gives the very lines of the same program in a
# cm5run job on this host (whose data goes by single copy, between hosts
# as tagged transfers: the same times), twice, node 0 saying (info) that
# the records travel as packets, no node a broken bound.
vs_ref "$dir/vs.one" 6 mixed 4
vs_twice "$dir/vs.one" 6 "synchronised through messages: every node sends its record to the others as packets (this PMIx job's nodes are on several hosts)" -- \
    cluster_mpirun 6 120 -x CM5_MODEL=cm5 -x CM5_MODEL_CPU_SCALE=0 \
    -x CM5_LOG_LEVEL=info "$abs_top_builddir/tests/cmmd/prog_vsync" mixed 4 &&
    ok 5 "virtual time on 3 hosts: synchronised through messages, the virtual times and handler orders of a one-host cm5run job, twice" ||
    notok 5 "synchronised virtual time on 3 hosts ($why)" \
        "$(diff "$dir/vs.one" "$vs_last" 2>&1 | head -6; printf '%s\n' "$out" | tail -8)"

# A node dies mid-run: kill the flood's process on host 2 (node 1).
cluster_kill_flood 3
out=$(cat "$dir/fail.out")
[ -n "$victim" ] && [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $t -le 30 ] &&
    ok 6 "killed node ends the job non-zero (status $rc) in ${t}s" ||
    notok 6 "killed node ends the job (victim '$victim' rc $rc ${t}s)" "$out"
# mpirun names the rank and its host; or cm5fab's own line names the node.
printf '%s\n' "$out" | grep -Eq "rank 1 with PID [0-9]+ on node $net\.3|lost node 1:" &&
    ok 7 "the report names the lost node (node 1 on $net.3)" ||
    notok 7 "the report names the lost node" "$out"

# Deadlocks across hosts: the nodes' check (the heartbeat ring's token,
# am_alive.c) stops the job within seconds with one line; in virtual
# time (synchronised, the records as messages) too.
want="error deadlock: every node has waited for a message for 3 s and none is in flight: nodes 1-5 in barrier; node 0 in message completion; stopping the job (CM5_DEADLOCK=0: no check)"
k=8
for env in "CM5_MODEL=" "CM5_MODEL=cm5"; do
    t0=$(date +%s)
    out=$(cluster_mpirun 6 60 -x "$env" \
        "$abs_top_builddir/tests/cmmd/prog_deadlock" recv 2>&1)
    rc=$?
    t=$(($(date +%s) - t0))
    node0_stopped "$out" $rc $t 30 "$want" &&
        ok $k "a deadlock on 3 hosts ($env): one line from node 0, the job stopped (status $rc, ${t}s)" ||
        notok $k "a deadlock on 3 hosts ($env): status $rc, ${t}s" "$out"
    k=$((k + 1))
done

left=$(cluster_netns_left)
[ -z "$left" ] && ok 10 "no process left on any host" ||
    notok 10 "processes left: $left" ""
