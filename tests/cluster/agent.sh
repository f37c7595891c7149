#!/bin/sh
# mpirun's remote-shell agent for the namespace "hosts" of netns.sh:
#   agent.sh [ssh options] HOST COMMAND...
# runs COMMAND inside the network namespace named in
# $CLUSTER_NETNS_DIR/ns.HOST, with its own temporary directory (Open MPI's
# session directories and PMIx's shared store are named after the host
# name, which the namespaces would otherwise share) and, where unshare(1)
# can make one, its own host name.
while [ $# -gt 0 ]; do
    case "$1" in
    -*) shift ;;
    *) break ;;
    esac
done
host=$1
shift
ns=$(cat "$CLUSTER_NETNS_DIR/ns.$host") || exit 1
TMPDIR=$CLUSTER_NETNS_DIR/tmp.$host
mkdir -p "$TMPDIR" || exit 1
export TMPDIR
if unshare --uts true 2>/dev/null; then
    exec ip netns exec "$ns" unshare --uts sh -c "hostname $ns && $*"
fi
exec ip netns exec "$ns" sh -c "$*"
