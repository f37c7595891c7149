#!/bin/sh
# Two-way active-message floods (examples/am_flood): every request is
# answered by a reply, and every request and reply carries a per-pair
# sequence number that am_flood checks where it lands, so it exits
# non-zero by itself on a lost, duplicated, corrupted or reordered
# message.  The test also checks its summary: exactly as many requests
# and replies as were sent.
#
#   shm, tcp: 8 nodes x 12500 = 100000 requests (+ 100000 replies), for
#             the patterns all (round robin) and random;
#   udp:      the same 100000 for both patterns (udp;ofi_rxd moves
#             30000-70000 messages/s here);
#   shm, tcp, udp: 31 nodes into node 0, 32 x 2000 = 62000 requests;
#   shm: 7 nodes into node 0 with 4096 credits each, 140000 requests,
#             more than node 0's same-host queue holds, beside CPU hogs;
#   shm, tcp: -t 2, rounds of 4 x 500 requests for 2 s (the soak's
#             long-lived job, bench/soak.sh), each round checked.
#
# Also the two benchmark examples, am_pingpong and scopy_bw (below).
#
# A flood that does not finish within its bound is a failure.  On udp
# that needs the flow-control window to fit ofi_rxd's receive queue: with
# the window every other provider gets (256 per peer on 8 nodes), rxd
# drops what its queue cannot hold and its retry backoff stalls the flood
# for minutes (see the quirk table in am/fabric/fab.c).

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

plan 49

# flood PROVIDER NODES MSGS PATTERN SECONDS
flood() {
    p=$1 nodes=$2 msgs=$3 pat=$4 limit=$5
    senders=$nodes
    [ "$pat" = to0 ] && senders=$((nodes - 1))
    total=$((senders * msgs))
    job "$limit" "-n $nodes --provider $p" "$EXAMPLES/am_flood" \
        -m "$msgs" -p "$pat"
    what="$p, $nodes nodes, $pat, $total requests"
    check "$what: exits 0 within $limit s (nothing lost, duplicated, reordered)" \
        '[ "$rc" -eq 0 ] && [ ! -s err ]'
    check "$what: summary counts $total requests and $total replies" \
        'grep -Eqx "am_flood: $nodes nodes on provider $p(;[a-z_]+)?, pattern $pat" out &&
         grep -Eqx "  $total requests and $total replies of 16 bytes, each checked in order: none lost, duplicated or corrupted" out'
    check_clean "$what"
}

flood shm 8 12500 all 90
flood shm 8 12500 random 90
flood tcp 8 12500 all 120
flood tcp 8 12500 random 120
flood udp 8 12500 all 60
flood udp 8 12500 random 60
flood shm 32 2000 to0 120
flood tcp 32 2000 to0 120
flood udp 32 2000 to0 120

# The flood is also correct with the smallest flow-control window.
CM5_AM_CREDITS=2
export CM5_AM_CREDITS
flood shm 4 5000 random 60
unset CM5_AM_CREDITS

# And with a node's same-host queue full: 7 senders with 4096 credits
# each into node 0 may have 28672 requests in flight, its request queue
# holds 16384 (am/fabric/shmring.c): senders wait for room, draining
# their own queues, beside two CPU hogs; nothing lost or reordered.  (In
# a run with the refusal logged, 3 of the 7 senders found it full.)
yes >/dev/null &
hog1=$!
yes >/dev/null &
hog2=$!
trap 'kill "$hog1" "$hog2" 2>/dev/null; cd / && rm -rf "$scratch"' EXIT
CM5_AM_CREDITS=4096
export CM5_AM_CREDITS
flood shm 8 20000 to0 120
unset CM5_AM_CREDITS
kill "$hog1" "$hog2" 2>/dev/null
wait "$hog1" "$hog2" 2>/dev/null
trap 'cd / && rm -rf "$scratch"' EXIT

# flood_t PROVIDER NODES MSGS SECONDS LIMIT: rounds of the flood (-t) for
# SECONDS; the summary counts rounds x the requests of one round.
flood_t() {
    p=$1 nodes=$2 msgs=$3 secs=$4 limit=$5
    job "$limit" "-n $nodes --provider $p" "$EXAMPLES/am_flood" \
        -m "$msgs" -t "$secs"
    what="$p, $nodes nodes, rounds of $((nodes * msgs)) for $secs s"
    check "$what: exits 0 within $limit s (every round checked)" \
        '[ "$rc" -eq 0 ] && [ ! -s err ]'
    per=$((nodes * msgs))
    rounds=$(sed -n "s/^  \([0-9]*\) rounds of $per requests$/\1/p" out)
    total=$((${rounds:-0} * per))
    check "$what: at least one round, summary counts rounds x requests" \
        '[ "${rounds:-0}" -ge 1 ] &&
         grep -Eqx "  $total requests and $total replies of 16 bytes, each checked in order: none lost, duplicated or corrupted" out'
    check_clean "$what"
}

flood_t shm 4 500 2 60
flood_t tcp 4 500 2 90

# examples/am_pingpong (the benchmark's program, bench/am_vs_fi_pingpong.sh):
# node 1 answers node 0's pings and must poll until node 0 says it is done
# (a barrier runs no handlers); on 4 nodes also the many-to-one flood.
pingpong() {
    p=$1 nodes=$2 limit=$3
    job "$limit" "-n $nodes --provider $p" "$EXAMPLES/am_pingpong" \
        -i 2000 -m 20000
    what="am_pingpong, $p, $nodes nodes"
    check "$what: exits 0 within $limit s with its round trip" \
        '[ "$rc" -eq 0 ] && [ ! -s err ] &&
         grep -Eq "^round trip 0 <-> 1: median [0-9.]+ us over 2000 iterations$" out &&
         grep -Eq "^rtt_us [0-9.]+$" out'
    check "$what: the one-way flood counts its 20000 messages" \
        'grep -Eq "^one-way +1 -> 0: 20000 messages of 16 bytes" out'
}
pingpong shm 2 60
pingpong tcp 2 90
pingpong shm 4 60
pingpong tcp 4 90

# examples/scopy_bw: node 1 copies 64 KiB into node 0's rport 200 times,
# each acknowledged; node 0 checks the last byte landed.
for p in shm tcp; do
    job 60 "-n 2 --provider $p" "$EXAMPLES/scopy_bw" -s 65536 -i 200
    check "scopy_bw, $p, 2 nodes: 200 copies of 64 KiB land, with a bandwidth" \
        '[ "$rc" -eq 0 ] && [ ! -s err ] &&
         grep -Eq "^scopy_bw: 200 x 65536 bytes, node 1 -> 0, provider $p(;[a-z_]+)?: [0-9.]+ s$" out &&
         grep -Eq "^scopy_MBps [0-9.]+$" out'
done
