#!/bin/sh
# A job on several hosts takes two paths (doc/cluster.md, "Two paths"):
# nodes that share a host talk through the same-host rings (and read each
# other's messages by single copy), nodes on different hosts through
# libfabric (tcp).  Twelve nodes on three network-namespace hosts, four
# each (mpirun --map-by node: node k on host k % 3 + 1, so node k shares
# its host with the three nodes of its residue).  prog_paths sends 500
# requests from every node to every other, each answered, and a 100000-byte
# message from every node to every other, every byte checked, and prints
# each node's packet counts by path (cm5_stats): 3 x 500 x 2 through the
# rings (requests and replies with its host's three other nodes), 8 x
# 500 x 2 through the fabric, a few protocol packets more, and 3 messages
# read by single copy.  CM5_SHM=off and a named provider put everything
# on the fabric.  Then the CMMD ring, cm5sched and the stress family
# (tests/cmmd/stress.sh's randomized programs, with and without
# interrupts), a host/node program and every multi-node test program of
# tests/cmmd run across the two paths; waiting nodes sleep on both and
# wake at once; the launcher's locality (PMIx's local peers) decides the
# paths with the rings' own test.  Skips where namespaces, mpirun or
# PMIx are unavailable.
set -u
. "$abs_top_srcdir/tests/cluster/lib.sh"

CLUSTER_SLOTS=4
cluster_require_pmix
cluster_netns_up

echo "1..13"
B=$abs_top_builddir/examples
P=$abs_top_builddir/tests/cluster/prog_paths
M=500

# paths_check OUT RINGS_LO RINGS_HI FABRIC_LO FABRIC_HI CMA: every node's
# line within the bounds, 11 messages received, CMA of them by single copy
paths_check() {
    printf '%s\n' "$1" | awk -v rl="$2" -v rh="$3" -v fl="$4" -v fh="$5" \
        -v cma="$6" '
        /^node [0-9]+: rings sent/ {
            rs = $5 + 0; rr = $7 + 0; fs = $10 + 0; fr = $12 + 0
            if (rs < rl || rs > rh || rr < rl || rr > rh ||
                fs < fl || fs > fh || fr < fl || fr > fh) {
                print "# out of bounds: " $0; bad++
            }
            counts++
        }
        /^node [0-9]+: [0-9]+ messages received/ {
            if ($3 != 11 || $6 != cma) { print "# wrong: " $0; bad++ }
            msgs++
        }
        END { exit !(counts == 12 && msgs == 12 && bad == 0) }'
}

out=$(cluster_mpirun 12 120 "$P" $M 2>&1)
paths_check "$out" $((6 * M)) $((6 * M + 100)) $((16 * M)) $((16 * M + 200)) 3 &&
    ok 1 "12 nodes on 3 hosts: a host's pairs on the rings (6 x $M packets a node), the others on tcp (16 x $M), 3 messages a node by single copy" ||
    notok 1 "two paths" "$out"

out=$(cluster_mpirun 12 120 -x CM5_SHM=off "$P" $M 2>&1)
paths_check "$out" 0 0 $((22 * M)) $((22 * M + 300)) 0 &&
    ok 2 "CM5_SHM=off: every packet on tcp, no single copy" ||
    notok 2 "CM5_SHM=off" "$out"

out=$(cluster_mpirun 12 120 -x CM5_PROVIDER=tcp "$P" $M 2>&1)
paths_check "$out" 0 0 $((22 * M)) $((22 * M + 300)) 0 &&
    ok 3 "a named provider (CM5_PROVIDER=tcp): one path, every packet on it" ||
    notok 3 "named provider" "$out"

out=$(cluster_mpirun 12 120 "$B/cmmd_ring" -s 100000 -r 5 2>&1)
printf '%s\n' "$out" | grep -q '12 of 12 nodes hold the right data' &&
    ok 4 "CMMD block messages around a ring of 12 on two paths, every byte checked" ||
    notok 4 "cmmd ring" "$out"

out=$(cluster_mpirun 12 120 "$B/am_flood" -m 3000 -p random 2>&1)
printf '%s\n' "$out" | grep -q '36000 requests and 36000 replies' &&
    ok 5 "active-message flood to random nodes, 12 nodes on two paths" ||
    notok 5 "flood" "$out"

out=$(cluster_mpirun 12 180 "$abs_top_builddir/tools/cm5sched" \
    --alg lp,ac,drsn --workload density:d=4 --sizes 16,4096 --reps 1 2>&1)
rc=$?
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^ *4096 |' &&
    ok 6 "cm5sched lp,ac,drsn on 12 nodes, every byte verified" ||
    notok 6 "cm5sched (exit $rc)" "$out"

# The stress family across the two paths: seeds from the date, as
# tests/cmmd/stress.sh takes them; the second run with interrupts.
seed=$(($(date +%s) % 100000))
good=0 outs=""
for i in 0 1 2; do
    irq=
    [ $i = 1 ] && irq="-x CM5_INTERRUPTS=1"
    # shellcheck disable=SC2086
    o=$(cluster_mpirun 12 150 $irq "$abs_top_builddir/tests/cmmd/prog_stress" \
        $((seed + i)) 8 2>&1)
    if printf '%s\n' "$o" | grep -q "seed $((seed + i)): 8 rounds ok"; then
        good=$((good + 1))
    else
        outs="$outs
seed $((seed + i)) $irq:
$o"
    fi
done
[ $good = 3 ] &&
    ok 7 "stress seeds $seed..$((seed + 2)) (one with interrupts), 12 nodes on two paths" ||
    notok 7 "stress ($good of 3)" "$outs"

# A host/node program across the hosts (doc/cluster.md, "Host/node
# programs"): the host program on host 1, six nodes around the hosts
# (-x reaches one application: given to both).
P=$abs_top_builddir/tests/cmmd
out=$(cluster_mpirun 1 60 -x CM5_HOST=1 "$P/prog_host_h" all m : \
    -x CM5_HOST=1 -x FI_TCP_IFACE=cm5net -np 6 "$P/prog_host_n" all m 2>&1)
rc=$?
n=$(printf '%s\n' "$out" | grep -c '^prog_host: node [0-6] of 6 ok$')
[ $rc -eq 0 ] && [ "$n" = 7 ] &&
    ok 8 "host/node program across hosts: host program + 6 nodes, every host call right" ||
    notok 8 "host/node across hosts ($n of 7 ok, exit $rc)" "$out"

# Every multi-node test program of tests/cmmd (the modes that run on any
# number of nodes), on 12 nodes across the two paths: every node says ok
# (each checks every byte and every count it gets) and the job ends 0.
# Interrupts on for the ones marked irq.  (CM5TEST_TWO_PATHS: prog_eager
# checks that both paths carried packets.)
progs_bad="" progs_n=0
for run in "p2p all" coll rport amx mpv depth "eager all" hold \
    "hold reqbar 100 16" "irq basic" "irq free" "irq inside" cn "misc misc" \
    "drsam 4 4096 32768 4 11" "drsam 3 16 2000 4 12 after" \
    "irq:p2p all" "irq:rport" "irq:eager all" "irq:hold irq"; do
    irq=
    case $run in irq:*) irq="-x CM5_INTERRUPTS=1" run=${run#irq:} ;; esac
    # shellcheck disable=SC2086
    set -- $run
    prog=prog_$1
    shift
    # shellcheck disable=SC2086
    o=$(cluster_mpirun 12 120 $irq -x CM5TEST_TWO_PATHS=1 "$P/$prog" "$@" 2>&1)
    rc=$?
    # (prog_cn's second half runs on a partition of 6: "node k of 6 ok")
    n=$(printf '%s\n' "$o" | grep -c "^$prog: node [0-9]* of [0-9]* ok$")
    progs_n=$((progs_n + 1))
    if [ $rc -ne 0 ] || [ "$n" != 12 ]; then
        progs_bad="$progs_bad ${irq:+irq:}$prog $* (exit $rc, $n of 12 ok)"
        printf '%s\n' "$o" | tail -5 | sed 's/^/# /'
    fi
done
# and the examples not run above, each by what it prints
for run in "hello|^hello from node [0-9]* of 12$|12" \
    "am_pingpong|^rtt_us [0-9.]*$|1" "scopy_bw|^scopy_MBps [0-9.]*$|1"; do
    prog=${run%%|*} want=${run#*|}
    lines=${want##*|} want=${want%|*}
    o=$(cluster_mpirun 12 120 "$abs_top_builddir/examples/$prog" 2>&1)
    rc=$?
    n=$(printf '%s\n' "$o" | grep -c "$want")
    progs_n=$((progs_n + 1))
    if [ $rc -ne 0 ] || [ "$n" != "$lines" ]; then
        progs_bad="$progs_bad $prog (exit $rc, $n of $lines lines)"
        printf '%s\n' "$o" | tail -5 | sed 's/^/# /'
    fi
done
[ -z "$progs_bad" ] &&
    ok 9 "$progs_n runs of the test programs (p2p, coll, rport, amx, mpv, depth, eager, hold, irq, cn, misc, drsam; four with interrupts) and examples (hello, am_pingpong, scopy_bw) on 12 nodes across the two paths: every node ok" ||
    notok 9 "test programs across the paths:$progs_bad" ""

# Sleeping across the two paths (doc/cluster.md, "Two paths"): every node
# has ring peers and tcp, and sleeps on both (tcp's descriptor and a
# wake-up socket its ring peers write to).
# Then a ping-pong whose two sides sleep 2 ms before each answer, so the
# other is asleep when it comes, with sleeps of up to 1 s
# (CM5_SLEEP_MS=1000): 100 round trips in well under 100 s only if a
# ring peer (node 0 and node 3, on host 1) and a tcp peer (node 0 and
# node 1) wake a sleeping node.
out=$(cluster_mpirun 12 60 -x CM5_LOG_LEVEL=info "$abs_top_builddir/examples/cmmd_ring" -s 1000 -r 2 2>&1)
n=$(printf '%s\n' "$out" | grep -c "info wait: waits sleep on the provider's file descriptors and the host's doorbell (a wake-up socket)$")
wake=""
for peer in 3 1; do
    t0=$(date +%s)
    o=$(cluster_mpirun 4 60 -x CM5_SLEEP_MS=1000 \
        "$abs_top_builddir/bench/cmmd_pingpong" -i 100 -p $peer -t 2000 16 2>&1)
    r=$(printf '%s\n' "$o" | sed -n 's/^pingpong 16 wake_rtt_us //p')
    wake="$wake peer $peer: ${r:-none} us in $(($(date +%s) - t0)) s;"
    [ -n "$r" ] && [ $(($(date +%s) - t0)) -le 30 ] || wake="$wake FAILED"
done
[ "$n" = 12 ] && [ "${wake#*FAILED}" = "$wake" ] &&
    ok 10 "12 nodes on 3 hosts sleep on tcp's descriptor and their ring peers' wake-ups; a sleeping node wakes at once (median round trip less the sleeps:$wake)" ||
    notok 10 "sleeping on two paths ($n of 12 nodes;$wake)" "$out"

# The launcher's locality decides too: host 1 under a second name (a
# second address in its namespace), so that mpirun starts a daemon for
# each name and PMIx calls their nodes apart, though the rings would map
# (one kernel, host name and network namespace).  Four nodes, two per
# name: each takes the rings to itself and its own daemon's other node
# only ("2 of 4"; "4 of 4" before the rings heard the launcher).
ip -n ${pre}h1 addr add $net.12/24 dev cm5net
echo ${pre}h1 >"$dir/ns.$net.12"
cp "$dir/hosts" "$dir/hosts.3"
printf '%s\n' "$net.2 slots=2" "$net.12 slots=2" >"$dir/hosts"
out=$(cluster_mpirun 4 60 -x CM5_LOG_LEVEL=debug "$abs_top_builddir/examples/cmmd_ring" -s 1000 -r 2 2>&1)
mv "$dir/hosts.3" "$dir/hosts"
n=$(printf '%s\n' "$out" | grep -c "debug fab: 2 of 4 endpoints reached through same-host rings$")
printf '%s\n' "$out" | grep -q '4 of 4 nodes hold the right data' && [ "$n" = 4 ] &&
    ok 11 "one machine under two launcher host names: PMIx's local peers keep each name's nodes on their own rings (2 of 4 endpoints a node), the data right" ||
    notok 11 "launcher locality ($n of 4 nodes with 2 ring endpoints)" "$out"

# A node on a host with ring peers dies: the others, on both paths, end.
cluster_kill_flood 12
[ -n "$victim" ] && [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $t -le 30 ] &&
    ok 12 "a killed node ends the job on both paths (status $rc, ${t} s)" ||
    notok 12 "killed node (victim '$victim' rc $rc ${t} s)" "$(cat "$dir/fail.out")"

# (mpirun's kill reaches the other hosts' nodes within a few seconds)
for _ in $(seq 50); do
    left=$(cluster_netns_left)
    [ -z "$left" ] && break
    sleep 0.2
done
left=$(for p in $left; do printf '%s ' "$p:$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"; done)
[ -z "$left" ] && ok 13 "no process left on any host" ||
    notok 13 "processes left: $left" ""
