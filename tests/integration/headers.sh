#!/bin/sh
# The public headers compile alone in the languages they promise:
# <cm/cmmd.h> as gnu89 (pedantic), C11 and C++11; <cm5/cm5.h> as C11 and
# C++11.  Each test also uses the declarations, as legacy code does.
# Every other historical header (cmmd_compat/api/**.h) compiles alone as
# gnu89, C11 and C++11 too (STYLE.md: the compat headers compile as gnu89
# and C++).

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

src=${abs_top_srcdir:-$top}
INC="-I$src/am/api -I$src/cmmd_compat/api"
CC=${CC:-cc}
CXX=${CXX:-c++}

compat=$(cd "$src/cmmd_compat/api" && find . -name '*.h' | sed 's|^\./||' |
    grep -vx 'cm/cmmd.h' | sort)
ncompat=$(echo $compat | wc -w)
plan $((13 + 3 * ncompat))

cat >cmmd_c.c <<'EOF2'
#include <cm/cmmd.h>
#include <cm/cmmd.h> /* twice: guarded */

static volatile int done;

static void handler(a, b)
int a, b; /* legacy code: K&R definitions, no prototype */
{
    done = a + b;
}

int main(void)
{
    CMMD_fset_io_mode(stdout, CMMD_independent);
    CMAML_request(CMMD_self_address(), (CMAML_handler_t)handler, 1, 2);
    CMAML_poll_while_lt(&done, 3);
    CMMD_node_timer_clear(0);
    CMMD_sync_with_nodes();
    if (CMMD_partition_size() < 1)
        CMMD_error("no nodes: %d", CMMD_partition_size());
    return (int)CMMD_node_timer_elapsed(0);
}
EOF2
# A legacy file's own K&R redeclarations (empty parameter lists), among
# them the active-message calls <cm/cmmd/words.h> wraps in macros.
cat >cmmd_kr.c <<'EOF2'
#include <cm/cmmd.h>
extern void CMAML_request();
extern void CMAML_reply();
extern void CMAML_rpc();
extern void CMAML_request_tohost();
extern void CMAML_reply_tohost();
extern void CMAML_rpc_tohost();
extern int CMAML_scopy();
extern double CMMD_reduce_float();
extern int CMMD_send_block();

static volatile int done;
static void handler(a) int a; { done = a; }

int main()
{
    CMAML_request(CMMD_self_address(), handler, 1);
    CMAML_poll_while_lt(&done, 1);
    return 0;
}
EOF2
sed -e 's/^static void handler(a, b)$/static void handler(int a, int b)/' \
    -e '/^int a, b; \/\* legacy/d' cmmd_c.c >cmmd_c11.c

cat >cmmd_cxx.cc <<'EOF2'
#include <cm/cmmd.h>

static volatile int done;

static void handler(int a, int b)
{
    done = a + b;
}

int main()
{
    CMAML_request(0, (CMAML_handler_t)handler, 1, 2);
    CMAML_reply(0, reinterpret_cast<CMAML_handler_t>(handler), 3);
    CMAML_poll_while_lt(&done, 3);
    return CMMD_fset_io_mode(stdout, CMMD_sync_seq);
}
EOF2

cat >cm5_c.c <<'EOF2'
#include <cm5/cm5.h>
#include <cm5/cm5.h>

static void handler(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    (void)a0, (void)a1, (void)a2, (void)a3;
}

int main(void)
{
    cm5_stats_t st;
    cm5_status_t s = cm5_am_request(cm5_rank(), handler, 1, 2, 3, 4);

    cm5_stats(&st);
    cm5_barrier();
    return s == CM5_OK ? (int)st.requests_sent : 1;
}
EOF2
cp cm5_c.c cm5_cxx.cc

# compile DESCRIPTION COMPILER FLAGS... FILE
compile() {
    what=$1
    shift
    "$@" >out 2>err
    rc=$?
    ms=0
    job_cmd="$*"
    check "$what" '[ "$rc" -eq 0 ] && [ ! -s err ]'
}

compile "<cm/cmmd.h>: gcc -std=gnu89 -pedantic-errors -Wall -Wextra -Werror" \
    $CC -std=gnu89 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only \
    $INC cmmd_c.c
compile "<cm/cmmd.h>: -std=c89 -pedantic-errors (no GNU extensions needed)" \
    $CC -std=c89 -pedantic-errors -Wall -Werror -fsyntax-only $INC cmmd_c.c
compile "K&R redeclarations of CMAML_request & co.: gcc -std=gnu89 -pedantic-errors" \
    $CC -std=gnu89 -pedantic-errors -Wall -Werror -fsyntax-only $INC cmmd_kr.c
if command -v clang >/dev/null 2>&1; then
    compile "K&R redeclarations of CMAML_request & co.: clang -std=gnu89 -pedantic-errors" \
        clang -std=gnu89 -pedantic-errors -Wall -Werror -fsyntax-only $INC \
        cmmd_kr.c
else
    tap_n=$((tap_n + 1))
    echo "ok $tap_n - K&R redeclarations: clang -std=gnu89 # SKIP no clang"
fi
compile "<cm/cmmd.h>: -std=c11 -Wall -Wextra -Werror" \
    $CC -std=c11 -Wall -Wextra -Werror -fsyntax-only $INC cmmd_c11.c
compile "<cm/cmmd.h>: C++11 -Wall -Wextra -Werror -pedantic-errors" \
    $CXX -std=c++11 -Wall -Wextra -Werror -pedantic-errors -fsyntax-only \
    -x c++ $INC cmmd_cxx.cc
compile "<cm5/cm5.h>: -std=c11 -pedantic-errors -Wall -Wextra -Werror" \
    $CC -std=c11 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only \
    $INC cm5_c.c
compile "<cm5/cm5.h>: C++11 -Wall -Wextra -Werror -pedantic-errors" \
    $CXX -std=c++11 -Wall -Wextra -Werror -pedantic-errors -fsyntax-only \
    -x c++ $INC cm5_cxx.cc

# Completion handlers take a pointer to the MCB, as the real CMMD's did
# (Charm++'s CM-5 layer: CMMD_free_mcb(*mcb)); a handler written for the
# MCB by value must draw a diagnostic at compile time, not crash.
cat >mcb_ptr.c <<'EOF2'
#include <stdlib.h>
#include <cm/cmmd.h>
static void SendHandler(CMMD_mcb *mcb, void *msg)
{
    int was = CMMD_disable_interrupts();
    CMMD_free_mcb(*mcb);
    free(msg);
    if (was)
        CMMD_enable_interrupts();
}
int main(void)
{
    void *msg = malloc(8);
    return CMMD_send_async(0, 1, msg, 8, SendHandler, msg) == CMMD_ERRVAL;
}
EOF2
sed 's/SendHandler(CMMD_mcb \*mcb, void \*msg)/SendHandler(CMMD_mcb mcb, void *msg)/; s/CMMD_free_mcb(\*mcb)/CMMD_free_mcb(mcb)/' \
    mcb_ptr.c >mcb_val.c
compile "completion handler(CMMD_mcb *, void *): -std=c11 -Wall -Wextra -Werror" \
    $CC -std=c11 -Wall -Wextra -Werror -fsyntax-only $INC mcb_ptr.c
$CC -std=gnu11 -fsyntax-only $INC mcb_val.c >out 2>err
rc=$?
check "a handler taking the MCB by value: a compile error naming the rule (C)" \
    '[ "$rc" -ne 0 ] &&
     grep -q "CMMD_completion_handlers_take_a_pointer_to_the_mcb" err'
$CXX -std=c++11 -fsyntax-only -x c++ $INC mcb_val.c >out 2>err
rc=$?
check "a handler taking the MCB by value: a compile error (C++)" \
    '[ "$rc" -ne 0 ] && grep -q "SendHandler" err'

# Both headers in one unit, in either order.
printf '#include <cm5/cm5.h>\n#include <cm/cmmd.h>\nint main(void) { return CMMD_self_address() + cm5_rank(); }\n' >both1.c
printf '#include <cm/cmmd.h>\n#include <cm5/cm5.h>\nint main(void) { return CMMD_self_address() + cm5_rank(); }\n' >both2.c
compile "both headers, cm5.h first: -std=c11 -Wall -Werror" \
    $CC -std=c11 -Wall -Wextra -Werror -fsyntax-only $INC both1.c
compile "both headers, cmmd.h first: C++11 -Wall -Werror" \
    $CXX -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ $INC both2.c

for h in $compat; do
    printf '#include <%s>\n#include <%s>\nint main(void) { return 0; }\n' \
        "$h" "$h" >alone.c
    compile "<$h> alone: gnu89 -pedantic-errors -Wall -Wextra -Werror" \
        $CC -std=gnu89 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only \
        $INC alone.c
    compile "<$h> alone: -std=c11 -Wall -Wextra -Werror" \
        $CC -std=c11 -Wall -Wextra -Werror -fsyntax-only $INC alone.c
    compile "<$h> alone: C++11 -Wall -Wextra -Werror" \
        $CXX -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ $INC \
        alone.c
done
