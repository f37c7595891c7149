#!/bin/sh
# liu2002 A1, A3 and A4 on several nodes (tests/algos/prog_liu), over shm
# and tcp: every byte verified on every node, and the statistics of every
# case checked against the paper's counts (ALGORITHMS.md 3.1, 3.3, 3.4.6):
#   a1  p-1 steps, one network message per nonzero off-diagonal entry;
#   a3  sqrt(P) steps and messages (self copy counted) in each of 2
#       stages, 2P(sqrt(P)-1) network messages; non-square P refused;
#   a4  Table 2: Stages I/III C+1 messages (C when r = 0), II/IV R <= C;
#       steps likewise, 2(C+1)+2R phases, and exactly
#       2P(C-1) + 2 sum_c N_c(N_c-1) network messages; with every entry
#       a multiple of P (matrix p2div) the longest message of each stage
#       within Table 2's bound.
# a4-n1 fills each bucket while the send before it is in flight (P = 5,
# 16, 18 on shm, 3 and 9 on tcp).  a4_unordered=1 (cases ending in :1;
# P = 8, 16, tcp 9): prog_liu checks the records each node got against
# those sent to it, and this checks that the same call without the
# option sends more bytes (the placement data it saves).  Bad input stops
# the job with one clear line: recvcounts that do not match, rdispls
# with a4_unordered=1.
# TAP output.
#
#   abs_top_builddir=BUILD sh tests/algos/liu.sh

: "${abs_top_builddir:=$(pwd)}"
CM5RUN=$abs_top_builddir/tools/cm5run
PROG=$abs_top_builddir/tests/algos/prog_liu
A2AV=$abs_top_builddir/tests/algos/prog_a2av

unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER

TAP_TAIL=8
. "$(dirname "$0")/../tap.sh"
tap_begin cm5liu ""

# Jobs: provider, nodes, cases for prog_liu.
JOBS="shm 1 all
shm 2 all
shm 3 all
shm 4 a3:full a3:random:b:0:3 a4:hotspot:n1 a1:full
shm 9 a3:exact a3:hotspot a4:full:n1
shm 5 a4:random:b a4:full:n1 a4:exact:n2 a4:zero:b a4:random:b:1 a1:permutation
shm 8 a4:random:b a4:full:n1 a4:hotspot:n2:1:3 a1:exact a4:p2div:b a4:full:n1:0:16:1 a4:full:b:0:3:1 a4:random:n2:0:12:1
shm 16 a4:random:b a4:permutation:n2 a3:full:b:0:3 a4:p2div:b a4:full:n1 a4:random:n1:1:3 a4:full:n1:0:16:1 a4:full:n2:0:1:1 a4:p2div:b:0:12:1
shm 18 a4:full:b a4:random:n1 a4:exact:n2 a4:p2div:n2 a4:full:n1:0:5 a4:hotspot:n1
shm 31 a4:random:b
tcp 3 a4:full:b a4:random:n1 a4:random:n2 a1:full
tcp 9 a3:random a4:random:b a4:full:n2:1 a1:full a4:full:n1:0:3 a4:full:n1:0:16:1"
njobs=$(echo "$JOBS" | wc -l)
echo "1..$((njobs * 2 + 9))"

# run SECONDS NODES PROVIDER PROG ARGS...: rc, out, err.
run() {
    secs=$1 nodes=$2 prov=$3 prog=$4
    shift 4
    what="$(basename "$prog") $* on $nodes nodes, $prov"
    timeout -k 2 $((secs + 10)) "$CM5RUN" -n "$nodes" --provider "$prov" \
        --timeout "$secs" "$prog" "$@" >out 2>err
    rc=$?
}

# The statistics of every case line against liu2002's counts; prints
# what differs.
check_counts() {
    awk '
    function want(key, val) {
        if (f[key] != val)
            printf "%s: %s is %s, not %s\n", $0, key, f[key], val
    }
    /^case / {
        delete f
        for (i = 2; i <= NF; i++) {
            split($i, kv, "=")
            f[kv[1]] = kv[2]
        }
        p = f["p"]
        if (p == 1) {
            want("phases", 0); want("msgs", 0); want("nstages", 0)
            next
        }
        want("msgs_recv", f["msgs"])
        if (f["alg"] == "a1") {
            want("phases", p - 1); want("msgs", f["nnz"])
            want("nstages", 0)
        } else if (f["alg"] == "a3") {
            q = int(sqrt(p) + 0.5)
            want("nstages", 2); want("phases", 2 * q)
            want("msgs", 2 * p * (q - 1))
            for (s = 1; s <= 2; s++) {
                want("stage" s "_steps", q); want("stage" s "_msgs", q)
            }
        } else {
            fl = int(sqrt(p)); if ((fl + 1) * (fl + 1) <= p) fl++
            ce = fl * fl == p ? fl : fl + 1
            C = ce; R = int((p + C - 1) / C); r = p % C
            if (r > 0 && r > R - 1) {
                C = fl; R = int((p + C - 1) / C); r = p % C
            }
            row = r > 0 ? C + 1 : C
            net = 2 * p * (C - 1)
            for (c = 0; c < C; c++) {
                N = (r == 0 || c < r) ? R : R - 1
                net += 2 * N * (N - 1)
            }
            want("nstages", 4); want("phases", 2 * row + 2 * R)
            want("msgs", net)
            for (s = 1; s <= 4; s++) {
                want("stage" s "_steps", s % 2 ? row : R)
                want("stage" s "_msgs", s % 2 ? row : R)
            }
            # Entries divisible by P: Table 2 lengths, exactly (the
            # largest bound, a maximum over nodes is compared).
            if (f["matrix"] == "p2div")
                for (s = 1; s <= 4; s++) {
                    b = (s % 2 ? ce : (r ? ce + 1 : ce)) * f["t"] / p
                    if (f["stage" s "_maxlen"] > b)
                        printf "%s: stage%d_maxlen over %g\n", $0, s, b
                }
            if (R > ce || C > ce)
                printf "%s: R %d or C %d > ceil(sqrt P)\n", $0, R, C
            # No (src, off) placement data: fewer bytes on the wire.
            if (f["unord"] == 1 && f["nnz"] > 0 &&
                !(f["bytes"] + 0 < f["bytes_ordered"] + 0))
                printf "%s: unordered bytes not below ordered\n", $0
        }
    }' out
}

echo "$JOBS" | while read -r prov nodes cases; do
    t0=$(date +%s)
    run 60 "$nodes" "$prov" "$PROG" --max 40 $cases
    ncase=$(sed -n 's/^cases=//p' out)
    nlines=$(grep -c '^case ' out)
    if [ "$rc" -eq 0 ] && grep -q '^ok$' out && [ -n "$ncase" ] &&
        [ "$ncase" -gt 0 ] && [ "$nlines" -eq "$ncase" ]; then
        ok "$prov P=$nodes: $ncase cases ($cases), every byte verified on every node ($(($(date +%s) - t0)) s)"
    else
        not_ok "$prov P=$nodes: $cases: every byte verified on every node"
    fi
    bad=$(check_counts)
    if [ "$rc" -eq 0 ] && [ -z "$bad" ]; then
        ok "$prov P=$nodes: steps, per-stage message counts (Table 2) and network messages exact; unordered sends fewer bytes"
    else
        echo "$bad" | head -n 5 | cut -c1-400 | sed 's/^/#   /'
        not_ok "$prov P=$nodes: steps, per-stage message counts (Table 2) and network messages exact; unordered sends fewer bytes"
    fi
done
n=$((njobs * 2))

# A3 needs a perfect square: one clear error and a failing exit.
for nodes in 2; do
    run 30 $nodes shm "$A2AV" a3 --matrix random --max 10
    if [ "$rc" -ne 0 ] &&
        grep -q "cm5_sched_alltoallv(a3).*perfect-square number of nodes, not $nodes" err; then
        ok "a3 on P=$nodes stops with one clear error (exit $rc)"
    else
        not_ok "a3 on P=$nodes stops with one clear error"
    fi
    if [ "$(grep -c 'perfect-square' err)" -ge 1 ] && ! grep -q '^ok$' out; then
        ok "a3 on P=$nodes: no node reports success"
    else
        not_ok "a3 on P=$nodes: no node reports success"
    fi
done
# recvcounts that do not match what is sent: one clear error naming both
# nodes, never a hang.
for c in "a1:recvless:b node 0 sends node 2 a message of 5 bytes, but recvcounts.0. is 0 there" \
    "a4:recvless:n1 node 0 sends node 2 elements [0-9]*..[0-9]*, but recvcounts.0. is 0" \
    "a4:recvmore:b node 2 got 5 elements from node 0, but recvcounts.0. is 8" \
    "a3:recvless:b node 0 sends node 3 elements 0..4, but recvcounts.0. is 0" \
    "a4:recvless:n1:0:1:1 node 2 got more than the 0 elements its recvcounts add up to (a4_unordered=1)" \
    "a4:recvmore:b:0:16:1 node 2 got 5 elements from the other nodes, but its recvcounts add up to 8 (a4_unordered=1)" \
    "a4:random:n2:0:1:2 a4_unordered=1 packs the records in arrival order: rdispls must be NULL"; do
    spec=${c%% *} msg=${c#* } nodes=3
    [ "${spec%%:*}" = a3 ] && nodes=4 && msg=$(echo "$msg" | sed 's/node 2/node 3/')
    run 30 $nodes shm "$PROG" "$spec"
    if [ "$rc" -ne 0 ] && grep -q "cm5_sched_alltoallv(${spec%%:*}).*$msg" err &&
        ! grep -q '^ok$' out; then
        ok "$spec on P=$nodes stops with: $msg"
    else
        not_ok "$spec on P=$nodes stops with: $msg"
    fi
done
echo "# $n tests in $(($(date +%s) - t_start)) s"
