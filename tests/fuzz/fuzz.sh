#!/bin/sh
# Short fuzz run of make check: each libFuzzer target of tests/fuzz
# replays its corpus (tests/fuzz/corpus/TARGET, regression inputs
# included) and fuzzes for FUZZ_SECONDS (3) more; new inputs go to a
# scratch copy, never into the tree.  Skips when configure found no clang
# with libFuzzer (the targets are then not built).  The long campaign
# and its figures: doc/reliability.md.
. "${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/tap.sh"

bin=${abs_top_builddir:-.}/tests/fuzz
corpus=${abs_top_srcdir:-.}/tests/fuzz/corpus
secs=${FUZZ_SECONDS:-3}
targets="am_rx:512 handler:16 boot:1024 cm5run:1024"

if [ ! -x "$bin/fuzz_am_rx" ]; then
    echo "1..0 # SKIP no clang with libFuzzer (-fsanitize=fuzzer): install" \
         "clang and re-run configure"
    exit 0
fi
tap_begin fuzz 4
for t in $targets; do
    name=${t%%:*}
    max=${t#*:}
    mkdir -p "new_$name"
    what="fuzz_$name -max_total_time=$secs"
    "$bin/fuzz_$name" -max_total_time="$secs" -max_len="$max" \
        -close_fd_mask=3 -artifact_prefix="$PWD/" -print_final_stats=1 \
        "new_$name" "$corpus/$name" >out 2>err
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' err)
    check "fuzz_$name: ${runs:-?} executions in ${secs} s, no finding" \
        '[ "$rc" = 0 ] && [ -n "$runs" ]'
done
