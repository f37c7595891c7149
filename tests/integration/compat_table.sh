#!/bin/sh
# The CMMD 3.x compatibility table (doc/cmmd-compat.md) is up to date and
# every name it calls provided matches the real header: a file of legacy
# K&R redeclarations of every provided name, with the real return types,
# compiles against <cm/cmmd.h> (a drifted type is "conflicting types");
# every provided name is exported by libcm5fab; calls with the argument
# counts old code used compile.  The check itself is checked: a drifted
# redeclaration must fail.

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

src=${abs_top_srcdir:-$top}
INC="-I$src/am/api -I$src/cmmd_compat/api"
CC=${CC:-cc}
GEN="python3 $src/doc/cmmd-compat.py $src"
plan 7

# compile DESCRIPTION COMMAND...: ok when it succeeds with no output.
compile() {
    what=$1
    shift
    job_cmd="$*"
    ms=0
    "$@" >out 2>err
    rc=$?
    check "$what" '[ "$rc" -eq 0 ] && [ ! -s err ]'
}

job_cmd="$GEN"
$GEN >table.md 2>err
rc=$?
ms=0
check "cmmd-compat.py: every provided name has the real return type and every missing one a reason" \
    '[ "$rc" -eq 0 ] && [ ! -s err ]'
job_cmd="diff doc/cmmd-compat.md (regenerate with make compat-table)"
diff -u "$src/doc/cmmd-compat.md" table.md >out 2>err
rc=$?
check "doc/cmmd-compat.md is the generated table" '[ "$rc" -eq 0 ]'

$GEN --redecl >redecl.c 2>/dev/null
n=$(grep -c '^extern' redecl.c)
compile "K&R redeclarations of all $n provided names compile (gnu89 -Werror)" \
    $CC -std=gnu89 -Wall -Werror -fsyntax-only $INC redecl.c

sed 's/^extern int CMAML_scopy();$/extern void CMAML_scopy();/' redecl.c \
    >drift.c
job_cmd="$CC -std=gnu89 -fsyntax-only drift.c (CMAML_scopy redeclared void)"
$CC -std=gnu89 -fsyntax-only $INC drift.c >out 2>err
rc=$?
check "a drifted redeclaration (void CMAML_scopy) fails to compile" \
    '[ "$rc" -ne 0 ] && grep -q "conflicting types" err && grep -q "extern void CMAML_scopy" drift.c'

# Every provided name is a function exported by the library.
lib=$top/.libs/libcm5fab.so
$GEN --names >names 2>/dev/null
nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' | sort >exported
sort names >wanted
comm -23 wanted exported >out
rc=0
job_cmd="nm -D $lib"
check "every provided name ($(wc -l <wanted)) is exported by libcm5fab" \
    '[ -s wanted ] && [ ! -s out ]'

# Legacy call shapes: an int MCB compared with CMMD_ERRVAL, the probe by
# node and tag, scopy's result tested, five-argument async calls, K&R
# handlers, a double from a float reduction.
cat >legacy.c <<'EOF2'
#include <cm/cmmd.h>

extern int CMAML_scopy();
extern double CMMD_reduce_float();
extern char *CMMD_version();

static int got;

static void handler(a, b)
int a, b;
{
    got = a + b;
}

int main(argc, argv)
int argc;
char **argv;
{
    CMMD_mcb mcbs[4];
    int mcb, buf[4];
    double d;
    char *v = CMMD_version();

    (void)argv;
    while ((mcb = CMMD_send_async(0, 1, buf, sizeof(buf), 0)) < 0)
        CMMD_poll();
    mcbs[0] = mcb;
    mcbs[1] = CMMD_receive_async(CMMD_ANY_NODE, 1, buf, sizeof(buf), 0, 0);
    if (mcbs[1] == CMMD_ERRVAL)
        return 1;
    if ((mcb = CMMD_mcb_pending(CMMD_ANY_NODE, CMMD_ANY_TAG)) != 0)
        CMMD_free_mcb(mcb);
    if (CMAML_scopy(0, 1, 0, 0, buf, 4, 0, 0) < 0)
        return 2;
    CMAML_request(0, handler, 1, 2);
    CMAML_request(0, handler);
    d = CMMD_reduce_float(1.5, CMMD_combiner_fadd);
    if (CMMD_node_timer_start(0) != 1 || CMMD_set_global_or(1) != 1)
        return 3;
    return argc + (int)d + got + (v != 0);
}
EOF2
compile "legacy call shapes compile (gnu89 -Werror)" \
    $CC -std=gnu89 -Wall -Werror -Wno-unused -fsyntax-only $INC legacy.c
compile "and link with libcm5fab" \
    $CC -std=gnu89 $INC legacy.c -o legacy -L"$top/.libs" -lcm5fab
