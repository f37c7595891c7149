#!/bin/sh
# bench/reproduce.sh --model cm5 writes the same document twice (issue
# 26, Deliver 2): a quick run (8 nodes; wang1993 Tables 2-4: contention,
# Generate_Recv by active messages with interrupts, DRS_N's inquiries),
# then the same beside two CPU hogs: the documents and their CSVs are
# identical (the run's date and load go to reproduction/run.txt), and
# the document carries the verdicts and the cell-by-cell section.  TAP.
#
#   abs_top_srcdir=SRC abs_top_builddir=BUILD sh tests/algos/reproduce_model.sh

: "${abs_top_srcdir:=$(pwd)}" "${abs_top_builddir:=$(pwd)}"
. "$abs_top_srcdir/tests/tap.sh"
tap_begin cm5repro 4
if ! command -v python3 >/dev/null 2>&1; then
    for i in 1 2 3 4; do skip "reproduce $i" "no python3"; done
    exit 0
fi

hog1= hog2=
trap 'kill $hog1 $hog2 2>/dev/null; cd / && rm -rf "$scratch"' EXIT

# run DIR: one quick reproduction in virtual time
# (the same command line in both: the document's first line quotes it)
run() {
    mkdir -p "$1" && (cd "$1" &&
        timeout -k 5 600 sh "$abs_top_srcdir/bench/reproduce.sh" --quick \
            --model cm5 --sections t2,t3,t4 --builddir "$abs_top_builddir" \
            --out r.md >../"$1.log" 2>&1)
}
t0=$(date +%s)
run a
rc=$?
check "reproduce.sh --quick --model cm5 --sections t2,t3,t4: wrote its document ($(($(date +%s) - t0)) s)" \
    '[ "$rc" -eq 0 ] && [ -s a/r.md ] && grep -q "^## wang1993 Table 4" a/r.md &&
     ! grep -q "^Failed:" a/r.md'
yes >/dev/null &
hog1=$!
yes >/dev/null &
hog2=$!
run b
rc=$?
kill $hog1 $hog2 2>/dev/null
wait $hog1 $hog2 2>/dev/null
hog1= hog2=
check "the same document beside two CPU hogs (diff empty)" \
    '[ "$rc" -eq 0 ] && diff a/r.md b/r.md >d.out 2>&1 ||
     { sed -n 1,10p d.out | sed "s/^/# /"; false; }'
check "the same CSVs" \
    '[ -n "$(ls a/reproduction/*.csv 2>/dev/null)" ] &&
     (for f in a/reproduction/*.csv; do
         cmp -s "$f" "b/reproduction/${f#a/reproduction/}" || exit 1
     done)'
check "the document carries the verdicts and the cell-by-cell section (32 nodes needed: none at 8)" \
    'grep -q "^## Verdicts, computed from the CSVs of this run" a/r.md &&
     grep -q "^## The modelled CM-5 against the CM-5, cell by cell" a/r.md &&
     grep -q "^No cell of wang1993 Tables 2-6 in this run (they need its 32 nodes" a/r.md &&
     grep -q "interrupts -o drs_data=cmmd" a/r.md'
