#!/bin/sh
# Single-copy bulk data between nodes of one host (CM5_CMA, prog_cma, see
# its header): messages above the eager bound and CMAML_scopy data, of
# sizes around page boundaries, misaligned, strided (_v messages, an
# rport with element gaps), arrive whole by single copy on the default
# path (with interrupts too, and with CM5_EAGER_MAX=0: every message),
# and by the rendezvous with CM5_CMA=off and over libfabric alone
# (CM5_SHM=off); when the kernel refuses (neither node dumpable, the job
# without CAP_SYS_PTRACE) the first read, or write into an offered
# receive, falls back with one debug line and the rest go by
# rendezvous.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/cmmd/cma.sh

PLAN=13
. "$(dirname "$0")/lib.sh"

counts() {
    sed -n 's/^prog_cma: \(node 0: .*\)$/# \1/p' out
}

job "cma n=2" 90 2 shm prog_cma cma
counts
expect_ok "cma n=2: every byte right, every transfer a single copy"
left_behind
export CM5_INTERRUPTS=1
job "cma irq n=2" 90 2 shm prog_cma cma
counts
expect_ok "cma irq n=2 (CM5_INTERRUPTS=1): every byte right, single copies"
left_behind
unset CM5_INTERRUPTS
export CM5_EAGER_MAX=0
job "cma eager off n=2" 90 2 shm prog_cma cma
counts
expect_ok "cma n=2 with CM5_EAGER_MAX=0: every message a single copy"
left_behind
unset CM5_EAGER_MAX
export CM5_CMA=off
job "cma off n=2" 90 2 shm prog_cma nocma
counts
expect_ok "CM5_CMA=off n=2: every byte right, no single copy"
left_behind
unset CM5_CMA
export CM5_SHM=off
job "cma fabric n=2" 90 2 shm prog_cma nocma
counts
expect_ok "CM5_SHM=off n=2 (libfabric alone): every byte right, no single copy"
left_behind
unset CM5_SHM

# The kernel refuses: no CAP_SYS_PTRACE in the job (setpriv, when root
# has it), node 1 not dumpable.  libfabric's shm, which carries the
# rendezvous, reads peers the same way for its own large messages and
# fails likewise (it probes for CMA at start-up, before node 1 turns
# undumpable): FI_SHM_DISABLE_CMA, as on a host that refuses from the
# start.
real_cm5run=$CM5RUN
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    printf '#!/bin/sh\nexec setpriv --bounding-set -sys_ptrace "%s" "$@"\n' \
        "$real_cm5run" >"$scratch/cm5run_noptrace"
    chmod +x "$scratch/cm5run_noptrace"
    CM5RUN=$scratch/cm5run_noptrace
fi
export CM5_LOG_LEVEL=debug FI_SHM_DISABLE_CMA=1
job "cma refused n=2" 90 2 shm prog_cma refused
unset CM5_LOG_LEVEL FI_SHM_DISABLE_CMA
CM5RUN=$real_cm5run
counts
expect_ok "cma refused n=2: every byte right by rendezvous, a copy refused"
check "cma refused n=2: one debug line per direction at most names the refusal" \
    'r=$(grep -c "node 1: no single copy (process_vm_readv: Operation not permitted): libfabric" err)
     w=$(grep -c "node 0: no single copy (process_vm_writev: Operation not permitted): libfabric" err)
     [ "$r" -le 1 ] && [ "$w" -le 1 ] && [ $((r + w)) -ge 1 ]'
left_behind
finish
