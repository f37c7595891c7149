#!/bin/sh
# Contracts that used to be kept by convention (issue 14, fault 7):
# - every CM5_* variable is named by a macro of am/am_env.h: no other
#   source spells one as a string literal;
# - cm5run and the library's bootstrap share one protocol header
#   (am/boot/boot_proto.h: framing and doorbell layout, with
#   _Static_asserts), and neither keeps constants of its own.

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

src=${abs_top_srcdir:-$top}
plan 4

names=$(sed -n 's/^#define CM5_ENV_[A-Z0-9_]* "\(CM5_[A-Z0-9_][A-Z0-9_]*\)"$/\1/p' \
    "$src/am/am_env.h" | paste -sd'|')
# Literals such as "CM5_PROVIDER" or "CM5_PROVIDER=%s" outside am_env.h.
cd "$src" || exit 1
grep -rnE "\"($names)([^A-Z0-9_]|\$)" am tools cmmd_compat algos \
    --include='*.c' --include='*.h' | grep -v '^am/am_env\.h:' >"$OLDPWD/lits"
cd "$OLDPWD" || exit 1

check "am_env.h names $(echo "$names" | tr '|' '\n' | wc -l) variables" \
    '[ "$(echo "$names" | tr "|" "\n" | wc -l)" -eq 27 ]'
check "no CM5_* name spelled as a literal outside am_env.h" \
    '! sed "s/^/# /" lits | grep .'
check "cm5run and boot_local.c include boot/boot_proto.h" \
    'grep -q "include \"boot/boot_proto.h\"" "$src/tools/cm5run.c" &&
     grep -q "include \"boot/boot_proto.h\"" "$src/am/boot/boot_local.c"'
check "no framing or doorbell constant of their own" \
    '! grep -nE "DOORBELL_STRIDE|MAX_BOOT_MSG|64 \* \(\(size_t\)cm5i_ctx\.nep" \
        "$src/tools/cm5run.c" "$src/am/am_wait.c" | sed "s/^/# /" | grep .'
