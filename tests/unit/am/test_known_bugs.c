/*
 * Library bugs found by the test suite and not fixed yet, one test each.
 * tests/unit/known_bugs.sh runs this program and marks every result
 * "# TODO": a failure is expected (XFAIL) and a pass (XPASS) fails
 * `make check`, to say the bug is gone: then move the test to the suite
 * of its component.
 *
 * Linked statically with libcm5fab for the hidden cm5i_handler_* calls.
 */
#include <criterion/criterion.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm5/cm5.h>

#include "am_handler.h"

TestSuite(known_bugs, .timeout = 30);

/* am_handler.c refreshes its table of loaded objects only when a lookup
 * misses.  After dlclose the unloaded object stays in the table: its
 * functions still encode, and a reference to them decodes to an address
 * that is no longer mapped (a receiver would call it and crash instead of
 * reporting "not executable code"). */
static void *load_foreign(void **handle)
{
    const char *top = getenv("abs_top_builddir");
    char path[4096];
    void *fp;

    if (!top)
        cr_skip_test("abs_top_builddir is not set (run by make check)");
    snprintf(path, sizeof(path),
             "%s/tests/integration/progs/.libs/foreign.so", top);
    *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(*handle, "dlopen: %s", dlerror());
    fp = dlsym(*handle, "foreign_handler");
    cr_assert_not_null(fp, "dlsym: %s", dlerror());
    return fp;
}

static int is_loaded(const void *fp)
{
    Dl_info info;

    return dladdr(fp, &info) != 0;
}

Test(known_bugs, decode_after_dlclose_is_null)
{
    cm5i_href_t ref;
    void *h, *fp = load_foreign(&h);

    cr_assert_eq(cm5i_handler_encode(fp, &ref), CM5_OK);
    cr_assert_eq(cm5i_handler_decode(ref), fp);
    cr_assert_eq(dlclose(h), 0);
    if (is_loaded(fp))
        cr_skip_test("dlclose did not unload the module");
    cr_expect_null(cm5i_handler_decode(ref),
                   "a function of an unloaded object decodes to %p",
                   cm5i_handler_decode(ref));
}

Test(known_bugs, encode_after_dlclose_fails)
{
    cm5i_href_t ref;
    void *h, *fp = load_foreign(&h);

    cr_assert_eq(cm5i_handler_encode(fp, &ref), CM5_OK);
    cr_assert_eq(dlclose(h), 0);
    if (is_loaded(fp))
        cr_skip_test("dlclose did not unload the module");
    cr_expect_eq(cm5i_handler_encode(fp, &ref), CM5_ERR_HANDLER,
                 "an address in an unloaded object encodes");
}
