#!/bin/sh
# mpirun's remote-shell agent for the namespace "hosts" of netns.sh:
#   agent.sh [ssh options] HOST COMMAND...
# runs COMMAND inside the network namespace named in $CM5_NETNS_DIR/ns.HOST.
while [ $# -gt 0 ]; do
    case "$1" in
    -*) shift ;;
    *) break ;;
    esac
done
host=$1
shift
ns=$(cat "$CM5_NETNS_DIR/ns.$host") || exit 1
exec ip netns exec "$ns" sh -c "$*"
