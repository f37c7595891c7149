#!/bin/sh
# Every historical entry point holds interrupts for its whole duration
# (issue: CMAML_set_rport_byte_counter's get-modify-set could be
# overwritten by an scopy delivered from an interrupt): a static check of
# cmmd_compat/*.c with its macros expanded (tests/integration/holds.py).

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

src=${abs_top_srcdir:-$top}
plan 1
job_cmd="python3 holds.py"
ms=0
python3 "$src/tests/integration/holds.py" "$src" "$top" "${CC:-cc}" >out 2>err
rc=$?
check "every CMMD/CMAML/CMCN/CMUTIL entry point starts with CM5C_HOLD() ($(tail -n 1 out))" \
    '[ "$rc" -eq 0 ]'
