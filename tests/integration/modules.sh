#!/bin/sh
# The shape of am/ (issue 14, fault 8: one tangled core), checked on the
# sources: each module owns its state, flow control owns the credits,
# progress names none of its clients (they register packet types and
# hooks), and what was written twice is written once.

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

src=${abs_top_srcdir:-$top}
am=$src/am
plan 10

# Lines of am/*.c matching ERE $1, outside the files $2 (a regex on the
# name), as TAP comments.
named_outside() {
    grep -nE "$1" "$am"/*.c | sed "s#^$am/##" | grep -vE "^($2):" |
        sed 's/^/# /'
}

check "file names say what they hold (am_am.c split: am_packet.c, am_flow.c, am_progress.c)" \
    '[ ! -e "$am/am_am.c" ] && [ -f "$am/am_packet.c" ] &&
     [ -f "$am/am_flow.c" ] && [ -f "$am/am_progress.c" ]'

# The body of cm5i_progress, wherever it is.
awk '/^int cm5i_progress\(int chmask\)/ { on = 1 } on { print }
     on && /^}/ { exit }' "$am"/*.c >progress_body
check "progress names no client module (msg, coll, host, poll, rport, barrier, flow, RPCs): they register hooks" \
    '[ -s progress_body ] &&
     ! grep -nE "cm5i_(msg|coll|host|park|rport|barrier|flow|flush)_?[a-z_]*\(|am_run_rpcs|msg_send_queued" \
        progress_body | sed "s/^/# /" | grep .'

# (Flow control is below the packet layer: the packet layer dispatches
# its credit packets to it.)
check "packets are dispatched through a table the modules fill" \
    '! named_outside "switch \\(pkt[.-]" "" | grep . &&
     grep -q "cm5i_pkt_register(CM5I_PKT_BARRIER" "$am/am_barrier.c" &&
     grep -q "cm5i_pkt_register(CM5I_PKT_CREDIT, cm5i_flow_" "$am/am_packet.c"'

check "no file but am_flow.c touches the credit arrays" \
    '! named_outside "tx_cred|\\<owe\\[|flush_q|flush_mark|nflush" \
        "am_flow\\.c" | grep .'

check "no file but am_barrier.c touches the barrier's state" \
    '! named_outside "bar_(epoch|arrived|round|active)|\\<bar\\.[a-z]" \
        "am_barrier\\.c" | grep .'

# The fields of cm5i_ctx_t.
awk '/^typedef struct \{/ { on = 1; buf = "" } on { buf = buf $0 "\n" }
     on && /^\} cm5i_ctx_t;/ { printf "%s", buf; exit }' \
    "$am/am_internal.h" >ctx_fields
check "the global context holds no module's state (credits, RPC queue, deferred work, barrier, waiting, handler tables)" \
    '[ -s ctx_fields ] &&
     ! grep -nE "credits|tx_cred|owe|flush|rpc_|defer_|rts_queued|bar_|internal\[|doorbell|wait_fds|spin_s" \
        ctx_fields | sed "s/^/# /" | grep .'

missing=
for m in flow pkt progress barrier msg coll wait poll model; do
    grep -q "^cm5_status_t cm5i_${m}_setup(void)\|^void cm5i_progress_hook" \
        "$am"/*.c || missing="$missing ${m}_setup"
    grep -q "^void cm5i_${m}_teardown(void)" "$am"/*.c ||
        missing="$missing ${m}_teardown"
done
check "each module with state has a setup and a teardown" \
    '[ -z "$missing" ] || { echo "# missing:$missing"; false; }'

check "cm5_am_request and cm5_am_rpc share one body" \
    '[ "$(cat "$am"/*.c | grep -c "requests_sent++")" -eq 1 ]'

# Appends written out (tail->next = item), but the splice of held work.
check "one queue-append helper (CM5I_QUEUE_APPEND)" \
    '! named_outside "tail(\\[[a-z]+\\])?->next = " "" |
        grep -v "defer_head" | grep .'

# cm5_wtime() is the program's clock: in virtual time every read costs the
# program `clk` (doc/model.md), so the runtime's own timing (backoff,
# liveness, statistics) reads cm5_rtime().  A probe that called
# cm5_wtime() once made virtual times depend on how often the host let a
# node probe.  Allowed: its definition (am_ctx.c) and the trace's clock,
# which asks the model first (am_trace.c).
check "the runtime reads the real clock (cm5_rtime), not the program's (cm5_wtime)" \
    '! named_outside "(^|[^\"a-z_])cm5_wtime\\(\\)" "am_ctx\\.c|am_trace\\.c" |
        grep -v "^# [a-z_]*\\.c:[0-9]*: *\\*" | grep .'
