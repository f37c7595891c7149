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
#   udp:      the same 100000 with pattern all, 8 x 2500 = 20000 with
#             pattern random (udp;ofi_rxd moves 20000-30000 messages/s
#             here: ~10 s for 100000);
#   shm, tcp: 31 nodes into node 0, 32 x 2000 = 62000 requests.
#
# A flood that does not finish within its bound is a failure, except one
# known provider problem: udp;ofi_rxd (libfabric 1.17) loses or reorders
# messages once about a thousand have gone from one node to another in a
# flood of 8 nodes (am_flood sees request 707 where 702 was due, then the
# job hangs); 5000 per node pass, 8000 do not.  Only that case (udp, a
# timeout or a sequence error) is marked TODO.

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

plan 27

rxd_bug="known provider bug: udp;ofi_rxd loses or reorders messages in long floods"

# flood PROVIDER NODES MSGS PATTERN SECONDS
flood() {
    p=$1 nodes=$2 msgs=$3 pat=$4 limit=$5
    senders=$nodes
    [ "$pat" = to0 ] && senders=$((nodes - 1))
    total=$((senders * msgs))
    job "$limit" "-n $nodes --provider $p" "$EXAMPLES/am_flood" \
        -m "$msgs" -p "$pat"
    todo=
    if [ "$p" = udp ] && { [ "$rc" -eq 124 ] || grep -q "expected" err; }; then
        todo=$rxd_bug
    fi
    what="$p, $nodes nodes, $pat, $total requests"
    check "$what: exits 0 within $limit s (nothing lost, duplicated, reordered)" \
        '[ "$rc" -eq 0 ] && [ ! -s err ]' "$todo"
    check "$what: summary counts $total requests and $total replies" \
        'grep -Eqx "am_flood: $nodes nodes on provider $p(;[a-z_]+)?, pattern $pat" out &&
         grep -Eqx "  $total requests and $total replies of 16 bytes, each checked in order: none lost, duplicated or corrupted" out' \
        "$todo"
    check_clean "$what"
}

flood shm 8 12500 all 90
flood shm 8 12500 random 90
flood tcp 8 12500 all 120
flood tcp 8 12500 random 120
flood udp 8 12500 all 45
flood udp 8 2500 random 30
flood shm 32 2000 to0 120
flood tcp 32 2000 to0 120

# The flood is also correct with the smallest flow-control window.
CM5_AM_CREDITS=2
export CM5_AM_CREDITS
flood shm 4 5000 random 60
unset CM5_AM_CREDITS
