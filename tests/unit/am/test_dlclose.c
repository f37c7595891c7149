/*
 * Handlers in an object that was dlopen'ed and then dlclose'd: encoding
 * must fail and a reference decodes to NULL (rejected, never called at
 * the old address).
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

TestSuite(dlclose, .timeout = 30);

/* Before the fix, the unloaded object stayed in am_handler.c's table: its
 * functions still encoded, and a reference to them decoded to an address
 * that was no longer mapped (a receiver would have called it and crashed
 * instead of reporting "not executable code"). */
static void *load_foreign(void **handle)
{
    const char *top = getenv("abs_top_builddir");
    char path[4096];
    void *fp;

    if (!top)
        cr_skip_test("abs_top_builddir is not set (run by make check)");
    snprintf(path, sizeof(path), "%s/tests/integration/progs/.libs/foreign.so",
             top);
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

Test(dlclose, decode_after_dlclose_is_null)
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

Test(dlclose, encode_after_dlclose_fails)
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
