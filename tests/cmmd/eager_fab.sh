#!/bin/sh
# eager.sh over libfabric alone: CM5_SHM=off puts its shm jobs on
# libfabric's shm provider instead of the same-host fast path; its jobs on
# other providers, which the default run covers, are skipped.  TAP.
CM5_SHM=off CM5TEST_SHM_ONLY=1
export CM5_SHM CM5TEST_SHM_ONLY
. "$(dirname "$0")/eager.sh"
