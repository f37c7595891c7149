#!/bin/sh
# Runs tests/unit/am/test_known_bugs (Criterion, TAP on stdout) and marks
# every result "# TODO": each test shows a library bug that is not fixed
# yet, so its failure is expected (XFAIL); a pass (XPASS) fails make check
# to say that the bug is gone and the test belongs in its component's
# suite now.  A crash or a missing result still counts as an error.

top=${abs_top_builddir:-.}
prog=$top/tests/unit/am/test_known_bugs
if [ ! -x "$prog" ]; then
    echo "1..0 # SKIP $prog not built (Criterion missing?)"
    exit 0
fi
CRITERION_ENABLE_TAP=1
export CRITERION_ENABLE_TAP
out=$(mktemp "${CM5TEST_SCRATCH:-${TMPDIR:-/tmp}}/cm5-bugs.XXXXXX") ||
    exit 99
trap 'rm -f "$out"' EXIT
sh "${abs_top_srcdir:-.}/tests/scratch.sh" "$prog" >"$out"
rc=$?
sed -e 's/^\(not ok\|ok\) \(- [^#]*\)$/\1 \2 # TODO known library bug/' \
    "$out"
# Criterion exits 1 when a test fails, as expected here; anything else
# (a crash of the runner, a timeout) is an error.
[ "$rc" -le 1 ] || exit "$rc"
exit 0
