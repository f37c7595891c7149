#!/bin/sh
# The course (doc/tutorial.md, issue 13 item 4): every lesson of
# examples/tutorial/ and every solution runs under cm5run and prints
# exactly examples/tutorial/expected/<lesson>[.solution].out (lines
# starting "time " are real-clock times: only their presence is checked);
# each expected output also appears word for word in doc/tutorial.md, so
# the text shows what the programs print.  Lesson 7 and its solution run
# again in virtual time (--model cm5, computation free), where the times
# are exact: <lesson>[.solution].model.out, time lines included, and
# .model-off.out for the first, unsynchronised model; the
# lesson once more at the default CPU scale and floor, where its
# stretches of computation are under the floor and the times the same.
# TAP output.

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

src=${abs_top_srcdir:-$top}
exp=$src/examples/tutorial/expected
LESSONS="l1_address:4 l2_request:4 l3_counting:5 l4_scopy:4 l5_interrupts:2
l6_deadlock:4 l7_contention:8"
plan 84

# pick NAME KIND NODES [SUFFIX]: prog, want (the expected output,
# expected/NAME[.solution]SUFFIX.out) and nodes for a lesson or its
# solution; the shift order of lesson 7's solution runs on any size, and
# runs on 6 nodes.
pick() {
    prog=$EXAMPLES/tutorial/$1 want=$exp/$1$4.out nodes=$3
    if [ "$2" = solution ]; then
        prog=$EXAMPLES/tutorial/solutions/$1 want=$exp/$1.solution$4.out
        [ "$1" = l7_contention ] && nodes=6
    fi
}

# in_doc DESC: the expected output $want appears word for word in
# doc/tutorial.md.
in_doc() {
    check "$1: its output is in doc/tutorial.md" \
        'python3 -c "import sys; sys.exit(open(sys.argv[1]).read() not in
            open(sys.argv[2]).read())" "$want" "$src/doc/tutorial.md"'
}

for l in $LESSONS; do
    name=${l%:*} nodes=${l#*:}
    for kind in lesson solution; do
        pick "$name" $kind "$nodes"
        job 90 "-n $nodes --provider shm" "$prog"
        grep -v '^time ' out >got
        check "$name ($kind, $nodes nodes) prints the expected output" \
            '[ "$rc" -eq 0 ] && diff "$want" got >diff 2>&1 ||
             { sed "s/^/# /" diff; false; }'
        check_clean "$name ($kind)"
        in_doc "$name ($kind)"
    done
done

# Every lesson and solution in virtual time, synchronised (the default):
# it ends, and prints what it prints on the real clock but its times and
# the time ratio lesson 7 adds.  Lesson 5's node computes reading its
# clock in a loop: with interrupts on each request interrupts it at a
# clock read (3 of 3 served while it computed, as on the real clock).
# Lessons 2 and 4 wait for handlers while others are in the ordered
# output of CMMD_sync_seq: cm5_ordered's turns once hung them there
# (lesson 2 at the default CPU scale only, which then charged the
# runtime's start-up to the program: no longer, doc/model.md).
unset CM5_MODEL_CPU_SCALE
for l in $LESSONS; do
    name=${l%:*} nodes=${l#*:}
    for kind in lesson solution; do
        pick "$name" $kind "$nodes"
        job 90 "-n $nodes --provider shm --model cm5" "$prog"
        skip_re='^time |times as long as'
        grep -Ev "$skip_re" out >got
        grep -Ev "$skip_re" "$want" >want.f
        check "$name ($kind, $nodes nodes, virtual time) ends and prints the lesson's lines" \
            '[ "$rc" -eq 0 ] && diff want.f got >diff 2>&1 ||
             { sed "s/^/# /" diff; false; }'
        check_clean "$name ($kind, virtual time)"
    done
done

# Lesson 7 in the CM-5's virtual time: the whole output, times included;
# synchronised (the default) and the first model (CM5_MODEL_SYNC=off).
CM5_MODEL_CPU_SCALE=0
export CM5_MODEL_CPU_SCALE
for sync in default off; do
    suffix= how="virtual time"
    if [ $sync = off ]; then
        suffix=-off how="virtual time, CM5_MODEL_SYNC=off"
        CM5_MODEL_SYNC=off
        export CM5_MODEL_SYNC
    fi
    for kind in lesson solution; do
        pick l7_contention $kind 8 ".model$suffix"
        job 90 "-n $nodes --provider shm --model cm5" "$prog"
        check "l7_contention ($kind, $nodes nodes, $how) prints the expected times" \
            '[ "$rc" -eq 0 ] && diff "$want" out >diff 2>&1 ||
             { sed "s/^/# /" diff; false; }'
        check_clean "l7_contention ($kind, $how)"
        in_doc "l7_contention ($kind, $how)"
    done
done
unset CM5_MODEL_SYNC

# The defaults charge computation of more than 1 ms of CPU; the lesson
# has none, so its virtual times do not move.
unset CM5_MODEL_CPU_SCALE
job 90 "-n 8 --provider shm --model cm5" "$EXAMPLES/tutorial/l7_contention"
check "l7_contention (lesson, 8 nodes, virtual time, default CPU scale and floor) prints the expected times" \
    '[ "$rc" -eq 0 ] && diff "$exp/l7_contention.model.out" out >diff 2>&1 ||
     { sed "s/^/# /" diff; false; }'
check_clean "l7_contention (lesson, virtual time, default CPU scale)"
