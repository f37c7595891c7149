#!/bin/sh
# The shape of am/ (issue 14, fault 8: one tangled core; issue 25: layers
# you can draw), checked on the sources and the library's objects: each
# module owns its state, flow control owns the credits, progress names
# none of its clients (they register packet types, hooks and the
# decoder), what was written twice is written once, and no module calls
# one that calls it back but through a registered function pointer.

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

src=${abs_top_srcdir:-$top}
am=$src/am
plan 18

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
    "$am/am_ctx.h" >ctx_fields
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
# node probe.  Allowed: its definition (am_model.c).
check "the runtime reads the real clock (cm5_rtime), not the program's (cm5_wtime)" \
    '! named_outside "(^|[^\"a-z_])cm5_wtime\\(\\)" "am_model\\.c" |
        grep -v "^# [a-z_]*\\.c:[0-9]*: *\\*" | grep .'

# The module graph, from the objects the build made of am/'s sources
# (modules_graph.py: A -> B when A's object references a symbol B's
# defines).  A cycle means two modules that cannot be drawn in layers.
graph=$src/tests/integration/modules_graph.py
if command -v python3 >/dev/null 2>&1 && command -v nm >/dev/null 2>&1 &&
    python3 "$graph" "$src" "$top" layers >layers 2>graph_err; then
    python3 "$graph" "$src" "$top" cycles >cycles
    check "no call cycle among am/'s modules (only registered function pointers call up)" \
        '! sed "s/^/# cycle: /" cycles | grep .'
    sed 's/^/# layer /' layers
    # The utilities, the guard and the events are at the bottom: they call
    # nothing of am/ above them.
    check "am_util, am_guard and am_event call nothing above them (layers 0-1)" \
        'grep -Eq "^0: .*\<am_util\>" layers && grep -Eq "^0: .*\<am_guard\>" layers &&
         grep -Eq "^[01]: .*\<am_event\>" layers'
    # Observers are called only through the event interface.
    check "the core names neither virtual time nor the trace (both observe am_event.h)" \
        '! python3 "$graph" "$src" "$top" edges |
            grep -E " -> am_(model|trace):" | grep -v "^am_init " | sed "s/^/# /" | grep .'
    # The graph finds a cycle where there is one: two planted modules that
    # call each other, and a third that only calls one of them.
    mkdir -p planted/src/am planted/build/am
    printf 'void b(void);\nvoid a(void) { b(); }\n' >planted/src/am/a.c
    printf 'void a(void);\nvoid b(void) { a(); }\n' >planted/src/am/b.c
    printf 'void a(void);\nvoid c(void) { a(); }\n' >planted/src/am/c.c
    for m in a b c; do
        ${CC:-cc} -c planted/src/am/$m.c -o planted/build/am/libcm5fab_la-$m.o
    done
    check "the graph sees a planted cycle (a <-> b, c -> a): exactly a and b" \
        '[ "$(python3 "$graph" planted/src planted/build cycles)" = "a b | a->b b->a" ]'
else
    sed 's/^/# /' graph_err
    for i in 1 2 3 4; do
        tap_n=$((tap_n + 1))
        echo "ok $tap_n - the module graph # SKIP no python3, nm or objects"
    done
fi

# From the headers alone: no two modules include each other's headers
# (directly or not), and every header of am/ compiles on its own.
if command -v python3 >/dev/null 2>&1; then
    python3 "$graph" "$src" - includes >inc_cycles
    check "am/'s #include graph has no cycle (the layers can be drawn from the headers)" \
        '! sed "s/^/# /" inc_cycles | grep .'
else
    tap_n=$((tap_n + 1))
    echo "ok $tap_n - the include graph # SKIP no python3"
fi
bad_h=
for h in "$am"/am_*.h "$am"/fabric/*.h "$am"/boot/*.h; do
    rel=${h#"$am"/}
    printf '#include "%s"\n' "$rel" >hdr.c
    ${CC:-cc} -std=gnu11 -fsyntax-only -Wall -Werror -I"$am" -I"$am/api" \
        -I"$top" hdr.c 2>hdr.err || bad_h="$bad_h $rel"
done
check "every header of am/ compiles on its own (it includes what it uses)" \
    '[ -z "$bad_h" ] || { echo "# not on its own:$bad_h"; sed "s/^/# /" hdr.err; false; }'

# The scheduling algorithms (issue 25): both families share one helper
# layer (algos/common.c) below them, and no two files call each other.
if command -v python3 >/dev/null 2>&1 && command -v nm >/dev/null 2>&1 &&
    CM5_GRAPH_DIR=algos CM5_GRAPH_LIB=libcm5sched_la \
        python3 "$graph" "$src" "$top" layers >alayers 2>agraph_err; then
    CM5_GRAPH_DIR=algos CM5_GRAPH_LIB=libcm5sched_la \
        python3 "$graph" "$src" "$top" cycles >acycles
    sed 's/^/# algos layer /' alayers
    check "no call cycle among algos/' files" \
        '! sed "s/^/# cycle: /" acycles | grep .'
    check "algos/common.c is the bottom layer, used by both families (opts, bcast, workloads)" \
        'grep -Eq "^0: .*\<common\>" alayers &&
         CM5_GRAPH_DIR=algos CM5_GRAPH_LIB=libcm5sched_la \
             python3 "$graph" "$src" "$top" edges >aedges &&
         grep -q "^opts -> common:" aedges && grep -q "^bcast -> common:" aedges &&
         grep -q "^workload_bcast -> common:" aedges &&
         grep -q "^workload -> common:" aedges'
else
    sed 's/^/# /' agraph_err
    for i in 1 2; do
        tap_n=$((tap_n + 1))
        echo "ok $tap_n - the algorithms' graph # SKIP no python3, nm or objects"
    done
fi
