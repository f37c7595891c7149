#!/bin/sh
# More nodes than libfabric 1.17's shm provider has room for with two
# endpoints each (its address vector holds 256 endpoints: 128 nodes):
#   - by default (no --provider: the same-host rings beside shm) 300
#     nodes run prog_scale (barrier, reductions, a scan, active messages
#     and CMMD messages up to 100 000 bytes between nodes far apart,
#     every byte checked), every packet on the rings: more than shm's
#     256 addresses, so ring peers read by single copy get none (and
#     each node one endpoint with short queues); and 129 nodes with
#     CM5_CMA=off, where the messages' data takes libfabric's tagged path
#     (one address per node in shm's address vector), while 257 with
#     CM5_CMA=off stop at start-up with node 0's one line (one address
#     per ring peer is one too many);
#   - 260 nodes where the kernel refuses the single copies from and into
#     node 1: their data takes libfabric, to peers whose address is
#     inserted only then;
#   - on libfabric's path (--provider shm) 129 nodes stop at start-up
#     with node 0's one line that names the limit and the ways out, and
#     exit 1, no hang;
#   - every job leaves nothing behind.
# About 90 s of CPU, most of it libfabric's start-up (doc/bench.md,
# Scale): 2-3 min of wall on 2 cores.  (1024 nodes: doc/bench.md, "1024
# nodes on one host".)  TAP output.  CM5TEST_SCALE_NODES changes the 300.
#
#   abs_top_builddir=BUILD sh tests/cmmd/scale.sh

PLAN=14
. "$(dirname "$0")/lib.sh"
unset CM5_SHM CM5_CMA
big=${CM5TEST_SCALE_NODES:-300}

# run NAME NODES CM5RUN-PROVIDER-OPTION PROG-ARGS...: like job, with
# longer limits (a large job starts slowly on a loaded machine), and at
# nice 19: make -j2 check runs another script beside this one, and 300
# runnable nodes at the same weight as its 3 left them 1 % of the CPUs
# (tests/cmmd/faults.sh's 3-node mcbs job beside this script: 61-77 s,
# past its 60 s limit, against 9 s alone; at nice 19 here 13-22 s, and
# this script's time the same, 71 s against 73).
run() {
    name=$1 nodes=$2 popt=$3
    shift 3
    jobno=$((jobno + 1))
    mark="cm5cmmd-$$-$jobno"
    rm -f key out err
    shm_list >shm.before
    t0=$(now_ms)
    CM5TEST_KEYFILE=$scratch/key timeout -k 2 130 nice -n 19 \
        "$CM5RUN" -n "$nodes" $popt --timeout 120 \
        sh -c 'echo "$CM5_JOB_KEY" >>"$0"; exec "$@"' "$scratch/key" \
        "$PROGS/prog_scale" "$@" "$mark" >out 2>err
    rc=$?
    ms=$(($(now_ms) - t0))
    t_end=$(date '+%H:%M:%S.%N')
}

run "default n=$big" "$big" "" all rings
expect_ok "default n=$big: every node checked every byte, every packet on \
the rings"
check "default n=$big: nothing on stderr" '[ ! -s err ]'
left_behind

CM5_CMA=off
export CM5_CMA
run "CM5_CMA=off n=129" 129 "" all rings
unset CM5_CMA
expect_ok "CM5_CMA=off n=129: the same, the data on libfabric's tagged path"
left_behind

CM5_CMA=off
export CM5_CMA
run "CM5_CMA=off n=257" 257 "" all rings
unset CM5_CMA
limit257="257 nodes are too many for provider shm: it holds at most 256 \
endpoint addresses, the job needs 257 \\(257 nodes on same-host rings x 1, \
0 others x 2\\): use at most 256 nodes on one host, single copy \\(CM5_CMA \
not off: ring peers then need no address\\), or --provider tcp"
check "CM5_CMA=off n=257: node 0's one line names the limit and the ways \
out, exit 1, no hang ($ms ms)" \
    '[ "$rc" -eq 1 ] && [ "$ms" -lt 120000 ] && one_error 0 fab "$limit257"'
check "CM5_CMA=off n=257: no node ran the program" '[ ! -s out ]'
left_behind

# Past 256 nodes a ring peer gets its libfabric address only when the
# kernel refuses a single copy from or into it: node 1 makes itself
# undumpable in a job without CAP_SYS_PTRACE (as in cma.sh), and
# libfabric's shm, which probed for single copy before that, is told not
# to use it (FI_SHM_DISABLE_CMA).  The refused messages' data takes
# libfabric's tagged path to a peer whose address is inserted then.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    printf '#!/bin/sh\nexec setpriv --bounding-set -sys_ptrace "%s" "$@"\n' \
        "$CM5RUN" >"$scratch/cm5run_noptrace"
    chmod +x "$scratch/cm5run_noptrace"
    real_cm5run=$CM5RUN CM5RUN=$scratch/cm5run_noptrace
    FI_SHM_DISABLE_CMA=1
    export FI_SHM_DISABLE_CMA
    run "refused n=260" 260 "" all refused
    unset FI_SHM_DISABLE_CMA
    CM5RUN=$real_cm5run
    expect_ok "refused n=260: every byte right, node 1's copies refused"
    check "refused n=260: copies refused and carried by libfabric to peers \
given their address then, nothing on stderr" \
        'grep -q "^prog_scale: [1-9][0-9]* single copies refused$" out &&
         [ ! -s err ]'
    left_behind
else
    skip "refused n=260" "needs root and setpriv (a job without CAP_SYS_PTRACE)"
    skip "refused n=260: copies refused" "needs root and setpriv"
    skip "refused n=260: left behind" "needs root and setpriv"
fi

# (CM5_SHM=off takes the same path: shmpath.sh checks that both do.)
limit="129 nodes are too many for provider shm on libfabric's path: it holds \
at most 256 endpoint addresses, the job needs 258 \\(2 per node\\): use at \
most 128 nodes, or the same-host rings \\(no --provider, CM5_SHM not off: \
one address per node, none with single copy, up to 1024 nodes on one \
host\\), or --provider tcp"
run "--provider shm n=129" 129 "--provider shm" all fabric
check "--provider shm n=129: node 0's one line names the limit and the \
ways out, exit 1, no hang ($ms ms)" \
    '[ "$rc" -eq 1 ] && [ "$ms" -lt 120000 ] && one_error 0 fab "$limit"'
check "--provider shm n=129: no node ran the program" '[ ! -s out ]'
left_behind
finish
