#!/bin/sh
# mpirun's remote-shell agent for the namespace "hosts" of netns.sh:
#   agent.sh [ssh options] HOST COMMAND...
# runs COMMAND inside the network namespace named in
# $CLUSTER_NETNS_DIR/ns.HOST, with its own temporary directory (Open MPI's
# session directories and PMIx's shared store are named after the host
# name, which the namespaces would otherwise share) and, where unshare(1)
# can make one, its own host name.
#
# It stays behind in the launcher's namespace, as ssh would on the head
# host, and behaves like ssh when the host's link is cut: an ssh client
# learns nothing of a remote command that ends behind a dead link, so when
# COMMAND ends while the host's veth is down, the agent neither exits nor
# reports a status (it waits, bounded, until mpirun stops it).  Exiting at
# once would tell mpirun what a real launcher could not know: mpirun then
# reports the daemon as never started ("ORTE was unable to reliably start
# one or more daemons") instead of losing it.
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
# (cluster_netns_up names the hosts PREh1..3 and their veths PREv1..3 in
# PREh0, where mpirun and this agent run)
veth=${ns%h*}v${ns##*h}
link_up() {
    ip -o link show dev "$veth" 2>/dev/null | grep -q '[<,]UP[,>]'
}
# (an asynchronous command's standard input is /dev/null unless redirected)
exec 3<&0
if unshare --uts true 2>/dev/null; then
    ip netns exec "$ns" unshare --uts sh -c "hostname $ns && $*" <&3 3<&- &
else
    ip netns exec "$ns" sh -c "$*" <&3 3<&- &
fi
pid=$!
exec 3<&-
trap 'kill -TERM $pid 2>/dev/null' TERM INT HUP
while :; do
    wait $pid
    rc=$?
    kill -0 $pid 2>/dev/null || break
done
link_up && exit $rc
trap - TERM INT HUP
exec sleep 120
