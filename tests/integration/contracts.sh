#!/bin/sh
# Contracts that used to be kept by convention (issue 14, fault 7):
# - every CM5_* variable is named by a macro of am/boot/boot_env.h: no other
#   source spells one as a string literal;
# - cm5run and the library's bootstrap share one protocol header
#   (am/boot/boot_proto.h: framing and doorbell layout, with
#   _Static_asserts), and neither keeps constants of its own; the
#   launcher's half of the protocol (boot_server.c) sits beside the
#   node's (boot_local.c), and tools/ sees no other am/ header than the
#   launcher contract's (boot_proto.h, boot_env.h, model_spec.h,
#   waits.h).

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

src=${abs_top_srcdir:-$top}
plan 6

names=$(sed -n 's/^#define CM5_ENV_[A-Z0-9_]* "\(CM5_[A-Z0-9_][A-Z0-9_]*\)"$/\1/p' \
    "$src/am/boot/boot_env.h" | paste -sd'|')
# Literals such as "CM5_PROVIDER" or "CM5_PROVIDER=%s" outside boot_env.h.
cd "$src" || exit 1
grep -rnE "\"($names)([^A-Z0-9_]|\$)" am tools cmmd_compat algos \
    --include='*.c' --include='*.h' | grep -v '^am/boot/boot_env\.h:' >"$OLDPWD/lits"
cd "$OLDPWD" || exit 1

check "boot_env.h names $(echo "$names" | tr '|' '\n' | wc -l) variables" \
    '[ "$(echo "$names" | tr "|" "\n" | wc -l)" -eq 31 ]'
check "no CM5_* name spelled as a literal outside boot_env.h" \
    '! sed "s/^/# /" lits | grep .'
check "both halves of the bootstrap and cm5run include boot_proto.h" \
    'grep -q "include \"boot_proto.h\"" "$src/tools/cm5run.h" &&
     grep -q "include \"boot_proto.h\"" "$src/am/boot/boot_server.c" &&
     grep -q "include \"boot/boot_proto.h\"" "$src/am/boot/boot_local.c"'
check "no framing or doorbell constant of their own" \
    '! grep -nE "DOORBELL_STRIDE|MAX_BOOT_MSG|64 \* \(\(size_t\)cm5i_ctx\.nep" \
        "$src"/tools/cm5run*.[ch] "$src/am/am_wait.c" | sed "s/^/# /" | grep .'
# What tools/ and legacy/ include in quotes: their own headers, config.h,
# the public API and the launcher contract; nothing else of am/.
grep -hoE "^#include \"[^\"]+\"" "$src"/tools/*.[ch] "$src"/legacy/*.c |
    sed "s/^#include //; s/\"//g" | sort -u |
    grep -vxE "config\.h|cm5run\.h|cm5sched\.h|cm5/.*|cm/.*|cmmd/.*|boot_proto\.h|boot_env\.h|model_spec\.h|waits\.h" \
    >foreign || :
check "tools/ and legacy/ include no am/ header but the launcher contract's" \
    '[ -f foreign ] && ! sed "s/^/# /" foreign | grep .'
# The flags of tools/ and legacy/: the public API and am/boot, never -I am
# (AM_CPPFLAGS, which they get by default, and their own).
awk '/^AM_CPPFLAGS *=/ { on = 1 } on { print; if (!/\\$/) on = 0 }' \
    "$src/Makefile.am" >flags
grep -hE "^(tools|legacy)_[a-z0-9_]*CPPFLAGS" "$src/tools/Makefile.inc" \
    "$src/tools/sched.inc" "$src/legacy/Makefile.inc" >>flags
check "tools/ and legacy/ are built without -I am" \
    '[ -s flags ] && ! grep -nE "top_srcdir\)/am( |\\\\|\$)|AM_INTERNAL_CPPFLAGS" flags |
     sed "s/^/# /" | grep .'
