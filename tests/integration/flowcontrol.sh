#!/bin/sh
# Flow control must return credits to a node that waits inside a request
# handler (tests/integration/progs/errprog.c, mode steal; 2 nodes,
# CM5_AM_CREDITS=8):
#
# 1. node 1 sends 8 replies to node 0 from user code (its reply window
#    to node 0 is now empty), then an rpc to node 0, then a request to
#    itself whose handler replies to node 0;
# 2. node 0, which did not poll meanwhile, polls once: it receives the 8
#    replies (it owes 8 reply credits) and the rpc, which sends a request
#    to node 1 before that poll returns the credits;
# 3. node 1 runs its request handler, which waits for reply credits and,
#    inside a handler, serves only the reply channel.
#
# If the 8 reply credits rode on node 0's request (as they once did),
# node 1 would read them only after its handler returns: both nodes would
# wait forever.  Credits of the reply channel travel on the reply channel
# (or in credit packets), which every wait drains.

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

plan 6

CM5_AM_CREDITS=8
export CM5_AM_CREDITS

for p in shm tcp udp; do
    job 30 "-n 2 --provider $p" "$PROGS/errprog" steal
    check "$p: a request handler waiting for reply credits gets them (exit 0, no hang)" \
        '[ "$rc" -eq 0 ] && grep -qx "steal: done" out && [ ! -s err ]'
    check_clean "$p: credits"
done
