#!/bin/sh
# The CMMD control network (prog_coll) on 1, 2, 3, 5 and 8 nodes over shm
# and tcp, on 2 and 3 nodes over udp, and on 16 nodes over shm; on 8
# nodes over shm with the barrier by signals (CM5_BARRIER=packets)
# instead of the host's counter; and with sleepers that must be woken
# (PROG_COLL_WAKE, CM5_SLEEP_MS=1000) on both barriers and over udp.  TAP.
#
#   abs_top_builddir=BUILD sh tests/cmmd/coll.sh

PLAN=34
. "$(dirname "$0")/lib.sh"

for run in shm:1 shm:2 shm:3 shm:5 shm:8 tcp:1 tcp:2 tcp:3 tcp:5 tcp:8 \
    udp:2 udp:3 shm:16 shm:8:packets shm:8:auto:wake shm:8:packets:wake \
    udp:3:auto:wake; do
    prov=${run%%:*} rest=${run#*:}
    nodes=${rest%%:*} rest=${rest#"$nodes"}
    bar=auto wake=
    case $rest in
    :packets*) bar=packets ;;
    esac
    case $rest in
    *:wake) wake=1 ;;
    esac
    name="coll $prov n=$nodes${rest:+ (barrier $bar${wake:+, sleepers woken})}"
    if [ -n "$wake" ]; then
        export PROG_COLL_WAKE=1 CM5_SLEEP_MS=1000
    fi
    export CM5_BARRIER=$bar
    job "$name" 90 $nodes $prov prog_coll
    unset PROG_COLL_WAKE CM5_SLEEP_MS CM5_BARRIER
    expect_ok "$name: reductions, scans, broadcasts, concat, barriers, global OR correct on every node"
    left_behind
done
finish
