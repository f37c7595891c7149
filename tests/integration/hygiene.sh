#!/bin/sh
# Header hygiene (issue 24, item 3): the installed headers compile after a
# program has defined every one- and two-letter identifier and the words
# old code used (N, T, MAX, TRUE, ...) as macros, in C and C++, 64-bit and
# 32-bit (the legacy build's), and their macros expand only to names of
# their own (CMMD_, CMAML_, CMCN_, CMUTIL_, cm5/CM5_, reserved).  TAP, from
# tests/integration/hygiene.py.
#
#   abs_top_srcdir=SRC sh tests/integration/hygiene.sh

src=${abs_top_srcdir:-.}
CC=${CC:-cc}
CXX=${CXX:-c++}
if ! command -v python3 >/dev/null 2>&1; then
    echo "1..0 # SKIP no python3"
    exit 0
fi
exec python3 "$src/tests/integration/hygiene.py" "$src" "$CC" "$CXX"
