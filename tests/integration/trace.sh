#!/bin/sh
# The event trace (issue 13, item 5): cm5sched --trace of a small DRS_N
# run and CM5_TRACE=FILE on any program write one Chrome trace-event JSON
# file that parses, holds events of every node, and whose send, handler
# and scopy counts are exactly cm5_stats' counters and cm5sched's message
# counts, and every handler has an arrow (flow event) from the send of
# its message; a full buffer says how many events it dropped; the per-node
# parts are gone afterwards.  TAP output.

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

SCHED=$top/tools/cm5sched
export SCHED
if ! command -v python3 >/dev/null; then
    echo "1..0 # SKIP python3 not installed (it reads the JSON)"
    exit 0
fi
plan 11

# check_trace FILE [CSV]: python3 reads FILE and prints one line per
# finding (nothing: all is well).  Every node 0..N-1 has events; per node
# the request and reply sends and the request and reply handlers match
# cm5_stats; handler and wait begins and ends pair up; scopy and CMMD
# message posts and completions pair up; with CSV, the completed scopies
# out and in are the sums of its msgs and msgs_recv columns (DRS_N's
# data).  A "# waits: NAME COUNT ..." line counts the runtime's blocking
# waits by what they waited in.
check_trace() {
    python3 - "$@" <<'PY'
import collections, csv, json, sys
t = json.load(open(sys.argv[1]))
ev, meta = t["traceEvents"], t["cm5fab"]
n = meta["nodes"]
c = collections.Counter()
sent, starts, ends, handled = {}, {}, [], []
waits = collections.Counter()
for e in ev:
    if e.get("ph") == "M" or e.get("name") == "trace":
        continue
    p = e["pid"]
    c[p, "any"] += 1
    ph = e["ph"]
    if ph == "X":
        c[p, e["name"] + "_sent"] += 1
        sent[p, e["args"]["seq"]] = e["args"]["to"]
    elif ph == "B" and e.get("cat") == "wait":
        c[p, "open"] += 1
        waits[e["name"]] += 1
    elif ph == "B":
        c[p, e["args"]["channel"] + "_handled"] += 1
        c[p, "open"] += 1
        handled.append((p, e["args"]["from"], e["args"]["seq"], e["ts"]))
    elif ph == "s":
        starts[e["id"]] = (p, e["ts"])
    elif ph == "f":
        ends.append((p, e["id"], e["ts"]))
    elif ph == "E":
        c[p, "open"] -= 1
    elif ph in "be":
        c[p, e["name"] + ph] += 1
for p in range(n):
    if not c[p, "any"]:
        print("node %d has no event" % p)
    if c[p, "open"]:
        print("node %d: %d handler or wait begins without an end" %
              (p, c[p, "open"]))
    for k in ("send", "receive", "scopy out", "scopy in"):
        if c[p, k + "b"] != c[p, k + "e"]:
            print("node %d: %d %s posted, %d done" % (p, c[p, k + "b"], k,
                                                      c[p, k + "e"]))
for s in meta["stats"]:
    p = s["node"]
    for k in ("requests_sent", "replies_sent", "requests_handled",
              "replies_handled"):
        mine = c[p, k.replace("requests", "request").replace("replies",
                                                               "reply")]
        if mine != s[k]:
            print("node %d: %d events for %s %d" % (p, mine, k, s[k]))
# Arrows: every handler ends one, from its source's send of that number
# to this node; the sends start them.
if len(ends) != len(handled) or len(starts) != len(sent):
    print("%d arrow ends for %d handlers, %d starts for %d sends" %
          (len(ends), len(handled), len(starts), len(sent)))
for p, fid, ts in ends:
    src, seq = fid >> 32, fid & 0xffffffff
    if fid not in starts or starts[fid][0] != src or \
            sent.get((src, seq)) != p:
        print("node %d: arrow %x has no send from node %d to it" %
              (p, fid, src))
for p, src, seq, ts in handled:
    if (src << 32 | seq) not in starts:
        print("node %d: handler of node %d's message %d: no arrow" %
              (p, src, seq))
if len(sys.argv) > 2 or ends:
    print("# %d arrows" % len(ends))
if waits:
    print("# waits: " + " ".join("%s %d" % (k.replace(" ", "_"), v)
                                 for k, v in sorted(waits.items())))
if len(meta["stats"]) != n:
    print("stats of %d nodes, not %d" % (len(meta["stats"]), n))
if len(sys.argv) > 2:
    rows = list(csv.DictReader(open(sys.argv[2])))
    out = sum(c[p, "scopy oute"] for p in range(n))
    inn = sum(c[p, "scopy ine"] for p in range(n))
    want = sum(int(r["msgs"]) for r in rows)
    wantr = sum(int(r["msgs_recv"]) for r in rows)
    if out != want or inn != wantr:
        print("scopies out %d in %d; cm5sched says %d and %d" %
              (out, inn, want, wantr))
    else:
        print("# %d scopies, %d events" % (out, len(ev)))
PY
}

job 120 "-n 8 --provider shm" sh -c 'exec "$SCHED" --alg drsn \
    --workload density:d=4 --sizes 64,1024 --reps 2 --warmup 0 \
    --csv runs.csv --quiet --trace "$0.json"'
tr=$marker.json
check "cm5sched --trace: a DRS_N run on 8 nodes" \
    '[ "$rc" -eq 0 ] && [ -s "$tr" ]'
check "the trace is valid JSON (python3 -m json.tool)" \
    'python3 -m json.tool "$tr" >/dev/null'
check_trace "$tr" runs.csv >found 2>&1
sed -n 's/^# /# /p' found
check "every node's events; sends, handlers = cm5_stats; an arrow from each send to its handler; scopies = msgs" \
    '! grep -v "^# " found | sed "s/^/# /" | grep .'
check "the runtime's blocking waits are slices too: barriers among them, every name a wait's" \
    'grep -q "^# waits: .*barrier [1-9]" found &&
     ! sed -n "s/^# waits: //p" found | tr " " "\n" | sed -n "p;n" |
       grep -vxE "barrier|collective|reduction|scan|split-phase_collective|segmented_scan|message_completion|message_send:_provider_room|message_receive:_provider_room|send:_credits|send:_provider_room|send:_the_signal_handler.s_queue|shut-down:_sends_in_flight|cm5_wait_until|CMAML_poll_while_lt" |
       sed "s/^/# unknown wait /" | grep .'
check "the per-node parts are gone" '! ls "$tr".*.part 2>/dev/null | grep .'
check_clean "cm5sched --trace"

job 60 "-n 3 --provider shm" env CM5_TRACE=pp.json \
    "$EXAMPLES/am_pingpong" -i 200 -m 300
check "CM5_TRACE=FILE traces any program (am_pingpong, 3 nodes)" \
    '[ "$rc" -eq 0 ] && python3 -m json.tool pp.json >/dev/null &&
     check_trace pp.json >found 2>&1 && ! grep -v "^# " found | grep .'

# 2 x 200000 one-way messages: node 0 runs more handlers than it holds.
job 120 "-n 2 --provider shm" env CM5_TRACE=big.json \
    "$EXAMPLES/am_pingpong" -i 10 -m 200000
dropped=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["cm5fab"]["dropped"])' big.json 2>/dev/null)
check "a full buffer: a warning with the number dropped, the file still valid" \
    '[ "$rc" -eq 0 ] && [ "${dropped:-0}" -gt 0 ] &&
     grep -q "trace: [0-9]* events dropped" err &&
     python3 -m json.tool big.json >/dev/null'
check_clean "CM5_TRACE with a full buffer"

check "cm5info -e lists CM5_TRACE" \
    '"$top/tools/cm5info" -e | grep -q "CM5_TRACE"'
check "cm5sched --help names --trace" \
    '"$SCHED" --help | grep -q -- "--trace FILE"'
