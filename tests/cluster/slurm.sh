#!/bin/sh
# Slurm across namespace hosts (issue 27, item 1): munged, slurmctld in
# the head namespace and a slurmd in each of three host namespaces (each
# in its own UTS namespace too, named h1..h3), on the private bridge of
# lib.sh's cluster_netns_up; a slurm.conf with MpiDefault=pmix.  Then
# srun --mpi=pmix runs cm5fab jobs across the hosts: hello, the CMMD
# ring with every byte checked, cm5sched with two algorithms verified,
# a host/node job (srun --multi-prog) and the same deadlocked (node 0's
# one line names the host program), a job whose node exits 3 (the job ends with 3, one line naming the
# node), a killed slurmd (the job ends, bounded, with a line).  Every
# daemon is ours (its own socket, state and log directory under the
# scratch directory) and is ended on exit with the namespaces.  Skips
# in one line where Slurm, munge or namespaces are missing.
#
#   abs_top_srcdir=SRC abs_top_builddir=BUILD sh tests/cluster/slurm.sh
set -u
. "$abs_top_srcdir/tests/cluster/lib.sh"

for b in slurmctld slurmd srun munged; do
    command -v $b >/dev/null 2>&1 || [ -x /usr/sbin/$b ] ||
        cluster_skip "$b not installed (apt-get install slurm-wlm munge; quickstart.sh check installs them)"
done
grep -q '^#define HAVE_PMIX 1' "$abs_top_builddir/config.h" ||
    cluster_skip "cm5fab was built without PMIx (install libpmix-dev)"
plugdir=$(dirname "$(find /usr/lib -name mpi_pmix.so -path '*slurm*' 2>/dev/null | head -n 1)")
[ -f "$plugdir/mpi_pmix.so" ] ||
    cluster_skip "Slurm's PMIx plugin (mpi_pmix.so) not found"
PATH=$PATH:/usr/sbin
export PATH

cluster_netns_up
# (cluster_netns_down ends every process in the namespaces; the munged
# of the root namespace is ended here.)
slurm_down() {
    [ -n "${mungepid:-}" ] && kill "$mungepid" 2>/dev/null
    [ -n "${KEEP_SLURM_LOGS:-}" ] && cp "$dir"/*.log "$KEEP_SLURM_LOGS" 2>/dev/null
    cluster_netns_down
}
trap slurm_down EXIT

# munge: our own daemon, socket and key (a copy of the system's or a new
# one), nothing of the machine's.
mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
chmod 700 "$dir/munge"
if [ -r /etc/munge/munge.key ]; then
    cp /etc/munge/munge.key "$dir/munge/key"
else
    dd if=/dev/urandom of="$dir/munge/key" bs=1024 count=1 2>/dev/null
fi
chmod 400 "$dir/munge/key"
munged --force --socket="$dir/munge/sock" --key-file="$dir/munge/key" \
    --pid-file="$dir/munge/pid" --log-file="$dir/munge.log" \
    --seed-file="$dir/munge/seed" >/dev/null 2>&1 ||
    cluster_skip "munged does not start here ($(tail -n 1 "$dir/munge.log" 2>/dev/null))"
mungepid=$(cat "$dir/munge/pid")

conf=$dir/slurm.conf
cat >"$conf" <<EOF
ClusterName=cm5test
SlurmctldHost=head($net.1)
SlurmctldPort=6917
SlurmdPort=6918
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=pmix
SelectType=select/linear
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=10
MessageTimeout=10
KillWait=2
InactiveLimit=0
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
PluginDir=$plugdir
NodeName=h1 NodeAddr=$net.2 CPUs=4 State=UNKNOWN
NodeName=h2 NodeAddr=$net.3 CPUs=4 State=UNKNOWN
NodeName=h3 NodeAddr=$net.4 CPUs=4 State=UNKNOWN
PartitionName=cm5 Nodes=h1,h2,h3 Default=YES MaxTime=10 State=UP OverSubscribe=YES
EOF
# slurmd opens the cgroup plugin even with proctrack and task plugins
# that use none: name the hierarchy the machine has (v2 unified, or v1).
if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
    echo "CgroupPlugin=cgroup/v2" >"$dir/cgroup.conf"
else
    echo "CgroupPlugin=cgroup/v1" >"$dir/cgroup.conf"
fi
echo "CgroupMountpoint=/sys/fs/cgroup" >>"$dir/cgroup.conf"
SLURM_CONF=$conf
export SLURM_CONF

ip netns exec ${pre}h0 unshare --uts sh -c \
    "hostname head && exec slurmctld -f '$conf' -i" >/dev/null 2>&1 ||
    cluster_skip "slurmctld does not start here ($(tail -n 1 "$dir/slurmctld.log" 2>/dev/null))"
# Each host its own configuration directory: the same slurm.conf, and an
# mpi.conf whose PMIx directories are the host's own (the "hosts" share
# one /tmp, where the PMIx plugin's directories, one name per step, would
# collide).
for i in 1 2 3; do
    mkdir -p "$dir/spool/h$i" "$dir/conf-h$i" "$dir/pmix-h$i"
    cp "$conf" "$dir/cgroup.conf" "$dir/conf-h$i/"
    echo "PMIxCliTmpDirBase=$dir/pmix-h$i" >"$dir/conf-h$i/mpi.conf"
    ip netns exec ${pre}h$i unshare --uts sh -c \
        "hostname h$i && exec slurmd -f '$dir/conf-h$i/slurm.conf' -N h$i" \
        >/dev/null 2>&1 ||
        cluster_skip "slurmd does not start here ($(tail -n 1 "$dir/slurmd.h$i.log" 2>/dev/null))"
done
# every slurmd registered: three nodes idle
up=0
t0=$(date +%s)
while [ $(($(date +%s) - t0)) -lt 30 ]; do
    up=$(timeout 5 ip netns exec ${pre}h0 sinfo -h -N -o '%N %t' 2>/dev/null |
        grep -c ' idle$')
    [ "$up" = 3 ] && break
    sleep 0.5
done
[ "$up" = 3 ] || cluster_skip "the three slurmd did not register in 30 s ($(timeout 5 ip netns exec ${pre}h0 sinfo -h -N 2>&1 | tr '\n' ' '); $(tail -n 1 "$dir/slurmctld.log"))"

echo "1..8"
B=$abs_top_builddir/examples

# slurm_run NODES TASKS TIMEOUT PROGRAM ARGS...: srun from the head.
slurm_run() {
    n=$1 np=$2 t=$3
    shift 3
    timeout -k 5 "$t" ip netns exec ${pre}h0 srun --mpi=pmix -N "$n" \
        -n "$np" --export=ALL,FI_TCP_IFACE=cm5net "$@"
}

out=$(slurm_run 3 12 90 "$B/hello" 2>&1)
n=$(printf '%s\n' "$out" | grep -c '^hello from node [0-9]* of 12$')
[ "$n" = 12 ] && printf '%s\n' "$out" | grep -q 'bootstrap: pmix' &&
    ok 1 "srun --mpi=pmix -N 3 -n 12: hello from every node, PMIx bootstrap" ||
    notok 1 "srun hello on 3 hosts" "$out"

out=$(slurm_run 3 12 120 "$B/cmmd_ring" -s 100000 -r 5 2>&1)
printf '%s\n' "$out" | grep -q '12 of 12 nodes hold the right data' &&
    ok 2 "srun: CMMD block messages around a ring of 12 on 3 hosts, every byte checked" ||
    notok 2 "srun cmmd ring" "$out"

out=$(slurm_run 3 12 180 "$abs_top_builddir/tools/cm5sched" --alg lp,drsn \
    --workload density:d=4 --sizes 16,4096 --reps 1 2>&1)
rc=$?
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^ *4096 |' &&
    ok 3 "srun: cm5sched lp,drsn on 12 nodes, every byte verified" ||
    notok 3 "srun cm5sched (exit $rc)" "$out"

# a host/node program: srun --multi-prog, rank 0 the host program,
# CM5_HOST=1 in every task (doc/cluster.md, "Host/node programs")
P=$abs_top_builddir/tests/cmmd
printf '0 %s all m\n1-9 %s all m\n' "$P/prog_host_h" "$P/prog_host_n" \
    >"$dir/hostnode.conf"
out=$(timeout -k 5 120 ip netns exec ${pre}h0 srun --mpi=pmix -N 3 -n 10 \
    --export=ALL,FI_TCP_IFACE=cm5net,CM5_HOST=1 \
    --multi-prog "$dir/hostnode.conf" 2>&1)
rc=$?
n=$(printf '%s\n' "$out" | grep -c '^prog_host: node [0-9] of 9 ok$')
[ $rc -eq 0 ] && [ "$n" = 10 ] &&
    ok 4 "srun --multi-prog: host program + 9 nodes on 3 hosts, every host call right" ||
    notok 4 "srun host/node ($n of 10 ok, exit $rc)" "$out"

# the same host/node pair deadlocked (the host waits for node 0, every
# node for the host): node 0's one line, the host program named in it
# (its token passes through the host, am_alive.c)
printf '0 %s deadlock\n1-9 %s deadlock\n' "$P/prog_host_h" "$P/prog_host_n" \
    >"$dir/hostdl.conf"
t0=$(date +%s)
out=$(timeout -k 5 120 ip netns exec ${pre}h0 srun --mpi=pmix -N 3 -n 10 \
    --export=ALL,FI_TCP_IFACE=cm5net,CM5_HOST=1 \
    --multi-prog "$dir/hostdl.conf" 2>&1)
rc=$?
t=$(($(date +%s) - t0))
want="error deadlock: every node has waited for a message for 3 s and none is in flight: nodes 0-8 and the host program in message completion; stopping the job (CM5_DEADLOCK=0: no check)"
node0_stopped "$out" $rc $t 60 "$want" &&
    ok 5 "srun --multi-prog deadlocked (host + 9 nodes on 3 hosts): node 0's one line names the host program, status $rc in ${t}s" ||
    notok 5 "srun host/node deadlock (exit $rc, ${t}s)" "$out"

# node 5 exits with status 3 while the others wait in a barrier: the job
# ends with 3, bounded, and a line names node 5
t0=$(date +%s)
out=$(slurm_run 3 12 90 "$abs_top_builddir/tests/cmmd/prog_alive" exit 5 2>&1)
rc=$?
t=$(($(date +%s) - t0))
[ $rc -eq 3 ] && [ $t -le 60 ] &&
    printf '%s\n' "$out" | grep -Eq "task 5: Exited with exit code 3|node 5 .*exit" &&
    ok 6 "srun: node 5 exits with 3: the job ends with 3 in ${t}s, a line names node 5 ($(printf "%s\n" "$out" | grep -m1 "task 5\|node 5 exited"))" ||
    notok 6 "srun: node 5 exits with 3 (exit $rc, ${t}s)" "$out"

# host h2 dies mid-job: its slurmd, slurmstepd and nodes killed at once
# (kill -9 of everything in its namespace): the job ends, bounded, and a
# line names a lost node -- ours (the heartbeat's, or a failed send's) or
# srun's own when slurmctld's node timeout comes first ("Node failure on
# h2")
slurm_run 3 6 120 "$B/am_flood" -m 100000000 >"$dir/fail.out" 2>&1 &
job=$!
n=0
for _ in $(seq 150); do
    n=$(ip netns pids ${pre}h2 | while read -r p; do
        grep -qs am_flood "/proc/$p/cmdline" && echo "$p"
    done | wc -l)
    [ "$n" -gt 0 ] && break
    sleep 0.2
done
sleep 2
t0=$(date +%s)
ip netns pids ${pre}h2 | xargs -r kill -9
wait $job
rc=$?
t=$(($(date +%s) - t0))
out=$(cat "$dir/fail.out")
[ "$n" -gt 0 ] && [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $t -le 60 ] &&
    printf '%s\n' "$out" | grep -Eq "lost node [0-9]+|h2: task|[Nn]ode h2|Node failure on h2" &&
    ok 7 "host h2 killed (slurmd, slurmstepd, $n nodes): the job ends with $rc in ${t}s, a line names it ($(printf '%s\n' "$out" | grep -Em1 "lost node [0-9]+|h2: task|[Nn]ode h2|Node failure on h2"))" ||
    notok 7 "host h2 killed ($n nodes there, exit $rc, ${t}s)" "$out"

# nothing of the jobs left on the live hosts (h2's slurmd is gone)
sleep 1
left=$(for i in 1 3; do ip netns pids ${pre}h$i | while read -r p; do
    grep -qs -e am_flood -e prog_alive -e cmmd_ring -e cm5sched -e hello -e prog_host \
        "/proc/$p/cmdline" && echo "$p"
done; done | tr '\n' ' ')
[ -z "$left" ] && ok 8 "no node process left on the live hosts" ||
    notok 8 "processes left: $left" ""
