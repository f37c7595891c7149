#!/bin/sh
# The same binaries under Open MPI's mpirun on this host: PMIx bootstrap.
set -u
. "$abs_top_srcdir/tests/cluster/lib.sh"
cluster_require_pmix
B=$abs_top_builddir/examples
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1
mpi() {
    t=$1
    shift
    timeout -k 5 "$t" "$MPIRUN" --allow-run-as-root --oversubscribe \
        --mca btl self "$@"
}
echo "1..4"
out=$(mpi 60 -np 4 "$B/hello" 2>&1)
n=$(printf '%s\n' "$out" | grep -c '^hello from node [0-3] of 4$')
printf '%s\n' "$out" | grep -q 'provider: shm (bootstrap: pmix)' &&
    [ "$n" = 4 ] && ok 1 "mpirun -np 4 hello: PMIx bootstrap, shm" ||
    notok 1 "mpirun hello" "$out"
out=$(mpi 120 -np 8 "$B/am_flood" -m 12500 2>&1)
printf '%s\n' "$out" | grep -q '100000 requests and 100000 replies' &&
    ok 2 "mpirun -np 8 am_flood: 100000 requests and replies" ||
    notok 2 "mpirun flood" "$out"
out=$(mpi 60 -np 5 "$B/cmmd_ring" 2>&1)
printf '%s\n' "$out" | grep -q '5 of 5 nodes hold the right data' &&
    ok 3 "mpirun -np 5 cmmd_ring" || notok 3 "mpirun cmmd_ring" "$out"
t0=$(date +%s)
out=$(mpi 60 -np 3 "$B/am_flood" -p nope 2>&1)
rc=$?
t=$(($(date +%s) - t0))
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $t -le 20 ] &&
    printf '%s\n' "$out" | grep -q "error CMMD_error: am_flood: unknown pattern 'nope'" &&
    ok 4 "a failing node ends the mpirun job (status $rc, ${t}s)" ||
    notok 4 "failing node under mpirun (rc $rc, ${t}s)" "$out"
