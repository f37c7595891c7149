#!/bin/sh
# The CMMD host/node model (prog_host_h + prog_host_n, one source built
# twice): every host call with exact values, on 4, 1, 3 and 5 nodes plus
# the host, over shm and tcp; then wrong calls, each giving one error
# line naming the call and the side that made it, and a host program that
# fails or dies, each taking the job down with a line naming it; cm5run
# --host with a missing program.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/cmmd/host.sh

# MODE|WHO|CALL|MESSAGE (an extended regular expression); WHO is a node
# number or "host".
cases='host_call_on_node|1|CMMD_bc_from_host|a host-program call, made by the node program \(node 1; nodes call CMMD_receive_bc_from_host\)
node_call_on_host|host|CMMD_receive_bc_from_host|a node-program call, made by the host program \(the host calls CMMD_bc_from_host\)
node_coll_on_host|host|CMMD_sync_with_nodes|a node-program call, made by the host program \(the host takes part in the host calls: CMMD_bc_from_host, CMMD_sync_host_with_nodes, \.\.\.\)
no_enable|host|CMMD_bc_from_host|called before CMMD_enable\(\)
no_enable_node|0|CMMD_sync_with_host|called before CMMD_enable_host\(\)'
runs='4:shm 1:shm 3:shm 5:shm 4:tcp 1:tcp 3:tcp'
tcp_bad='host_call_on_node node_call_on_host'

PLAN=$(( 2 * 7 + 2 * (5 + 2) + 2 * 2 + 2 * 4 + 2 + 1 ))
. "$(dirname "$0")/lib.sh"

for run in $runs; do
    hn=${run%:*} prov=${run#*:}
    hjob "host all" 60 "$hn" "$prov" all
    check "host/node: every host call on $hn nodes + host, $prov ($ms ms)" all_ok
    left_behind
done


host_bad_case() {
    prov=$1 mode=$2 who=$3 call=$4 msg=$5
    hjob "host bad $mode $prov" 20 3 "$prov" "$mode"
    check "host bad $mode ($prov): one line 'cm5[$who:PID] error $call: ...', exit 1, no hang ($ms ms)" \
        '[ "$rc" -eq 1 ] && [ "$ms" -lt 18000 ] && one_error "$who" "$call" "$msg"'
    left_behind
}

echo "$cases" >cases
while IFS='|' read -r mode who call msg; do
    host_bad_case shm "$mode" "$who" "$call" "$msg"
done <cases
for mode in $tcp_bad; do
    IFS='|' read -r m who call msg <<END
$(grep "^$mode|" cases)
END
    host_bad_case tcp "$mode" "$who" "$call" "$msg"
done

# The host program fails (exit 3) or dies (SIGKILL): one line from cm5run
# naming it, its status for the job's.
hjob "host exits 3" 20 3 shm host_exit
check "host exits 3: one line naming the host program, exit 3 ($ms ms)" \
    '[ "$rc" -eq 3 ] && [ "$(wc -l <err)" -eq 1 ] &&
     grep -Eqx "cm5run: host program $HOSTPROG \(pid [0-9]+\) exited with status 3; stopping the job" err'
left_behind
hjob "host killed" 20 3 tcp host_kill
check "host killed: one line naming the host program, exit 137 ($ms ms)" \
    '[ "$rc" -eq 137 ] && [ "$(wc -l <err)" -eq 1 ] &&
     grep -Eqx "cm5run: host program $HOSTPROG \(pid [0-9]+\) killed by signal 9 \(Killed\); stopping the job" err'
left_behind

# The deadlock check takes the host program in: host and nodes all
# waiting for messages nobody sends stops the job with one line that
# names it (cm5run's check, tests/cmmd/deadlock.sh for nodes alone); and
# the counter-pattern, the host computing 5 s while every node waits for
# it, then node 0 computing 5 s while the host waits (CM5_DEADLOCK=1, the
# window shortest), runs to its end.
for prov in shm tcp; do
    hjob "host deadlock $prov" 30 3 "$prov" deadlock
    check "host/node deadlock ($prov): cm5run's one line names the nodes and the host program, exit 1 ($ms ms)" \
        '[ "$rc" -eq 1 ] && [ "$ms" -lt 25000 ] &&
         [ "$(grep -c deadlock err)" -eq 1 ] &&
         grep -qx "cm5run: deadlock: every node has waited for a message for 3 s and none is in flight: nodes 0-2 and the host program in message completion; stopping the job (CM5_DEADLOCK=0: no check)" err'
    left_behind
    CM5_DEADLOCK=1 hjob "host slow $prov" 60 3 "$prov" slow
    check "host/node, each side computing 5 s while the other waits (CM5_DEADLOCK=1, $prov): no verdict, every side ok ($ms ms)" all_ok
    left_behind
done

# A host call in a job without a host program.
job "no host" 20 2 shm prog_host_n nohost
check "no host: one line 'cm5[0:PID] error CMMD_enable_host: this job has no host program ...', exit 1 ($ms ms)" \
    '[ "$rc" -eq 1 ] && [ "$(wc -l <err)" -eq 2 ] &&
     grep -Eqx "cm5\[0:[0-9]+\] error CMMD_enable_host: this job has no host program \(start it with cm5run -n N --host HOSTPROG -- NODEPROG\)" err'
left_behind

# cm5run --host with a program that does not exist: one line, status 2.
rm -f out err
"$CM5RUN" -n 2 --host /nonexistent/cm5host -- "$PROGS/prog_host_n" >out 2>err
rc=$?
check "cm5run --host /nonexistent/cm5host: one line, exit 2" \
    '[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
     grep -qx "cm5run: host program .*/nonexistent/cm5host. not found or not executable" err'
finish
