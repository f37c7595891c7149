/*
 * Handler references on the wire (am/am_handler.c): a function encodes to
 * (object, offset) and decodes back to itself; anything that is not
 * executable code is refused on both sides.
 *
 * Linked statically with libcm5fab for the hidden cm5i_handler_* calls.
 */
#include <criterion/criterion.h>

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "am_handler.h"

TestSuite(handler, .timeout = 10);

int handler_data_word = 42;
static const int handler_ro_word = 7;

void handler_target(void) { handler_data_word++; }

static void handler_static_target(void) { handler_data_word--; }

/* FNV-1a, as am_handler.c names objects: used only to pick an id that no
 * loaded object has. */
static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;

    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static int collect_id(struct dl_phdr_info *info, size_t size, void *arg)
{
    uint32_t *id = arg;

    (void)size;
    if (fnv1a(info->dlpi_name ? info->dlpi_name : "") == *id)
        (*id)++; /* taken: try the next one */
    return 0;
}

static uint32_t unused_object_id(void)
{
    uint32_t id = fnv1a("/no/such/object.so"), prev;

    do { /* repeat until no loaded object has it */
        prev = id;
        dl_iterate_phdr(collect_id, &id);
    } while (id != prev);
    return id;
}

static void expect_round_trip(const void *fp, const char *what)
{
    cm5i_href_t ref = {0, 0};

    cr_assert_eq(cm5i_handler_encode(fp, &ref), CM5_OK,
                 "%s (%p) does not encode", what, fp);
    cr_assert_eq(cm5i_handler_decode(ref), fp,
                 "%s (%p) decodes to %p (object %08x, offset 0x%x)", what, fp,
                 cm5i_handler_decode(ref), ref.obj, ref.off);
}

Test(handler, function_in_program_round_trips)
{
    expect_round_trip((const void *)handler_target, "a global function");
    expect_round_trip((const void *)handler_static_target, "a static function");
}

Test(handler, main_program_is_the_empty_path)
{
    cm5i_href_t ref;

    /* am_handler.h: the main program has the empty path. */
    cr_assert_eq(cm5i_handler_encode((const void *)handler_target, &ref),
                 CM5_OK);
    cr_expect_eq(ref.obj, fnv1a(""), "object id %08x, expected %08x", ref.obj,
                 fnv1a(""));
}

Test(handler, libc_function_round_trips)
{
    cm5i_href_t mine, libc;
    Dl_info a, b;

    expect_round_trip((const void *)puts, "puts");
    expect_round_trip((const void *)qsort, "qsort");
    cr_assert_eq(cm5i_handler_encode((const void *)handler_target, &mine),
                 CM5_OK);
    cr_assert_eq(cm5i_handler_encode((const void *)puts, &libc), CM5_OK);
    cr_assert(dladdr((void *)puts, &a) && dladdr((void *)handler_target, &b));
    if (a.dli_fbase != b.dli_fbase)
        cr_expect_neq(mine.obj, libc.obj,
                      "puts (in %s) and the program share object id %08x",
                      a.dli_fname, mine.obj);
}

Test(handler, dlopened_function_round_trips)
{
    /* An object loaded after the table was built: the miss refreshes it.
     * The module is built for the integration tests (progs/foreign.la). */
    const char *top = getenv("abs_top_builddir");
    char path[4096];
    cm5i_href_t ref;
    void *h, *fp;

    if (!top)
        cr_skip_test("abs_top_builddir is not set (run by make check)");
    cr_assert_eq(cm5i_handler_encode((const void *)handler_target, &ref),
                 CM5_OK);
    snprintf(path, sizeof(path), "%s/tests/integration/progs/.libs/foreign.so",
             top);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(h, "dlopen: %s", dlerror());
    fp = dlsym(h, "foreign_handler");
    cr_assert_not_null(fp, "dlsym: %s", dlerror());
    expect_round_trip(fp, "a function of a dlopen'ed object");
    cr_assert_eq(cm5i_handler_encode(fp, &ref), CM5_OK);
    cr_expect_eq(ref.obj, fnv1a(path), "object id %08x, expected %08x", ref.obj,
                 fnv1a(path));
    dlclose(h);
}

Test(handler, data_is_not_a_handler)
{
    cm5i_href_t ref = {0x1234, 0x5678};
    int local = 0;
    void *heap = malloc(64);

    cr_assert_not_null(heap);
    cr_expect_eq(cm5i_handler_encode(&handler_data_word, &ref), CM5_ERR_HANDLER,
                 "a global int encodes");
    cr_expect_eq(cm5i_handler_encode(&handler_ro_word, &ref), CM5_ERR_HANDLER,
                 "a read-only int encodes");
    cr_expect_eq(cm5i_handler_encode(heap, &ref), CM5_ERR_HANDLER,
                 "a heap pointer encodes");
    cr_expect_eq(cm5i_handler_encode(&local, &ref), CM5_ERR_HANDLER,
                 "a stack pointer encodes");
    cr_expect_eq(cm5i_handler_encode(NULL, &ref), CM5_ERR_HANDLER,
                 "NULL encodes");
    cr_expect_eq(cm5i_handler_encode((const void *)(uintptr_t)1, &ref),
                 CM5_ERR_HANDLER, "address 1 encodes");
    /* Outputs are set only on success. */
    cr_expect(ref.obj == 0x1234 && ref.off == 0x5678,
              "a failed encode changed its output");
    free(heap);
}

Test(handler, unknown_object_decodes_to_null)
{
    cm5i_href_t ref;

    cr_assert_eq(cm5i_handler_encode((const void *)handler_target, &ref),
                 CM5_OK);
    ref.obj = unused_object_id();
    cr_expect_null(cm5i_handler_decode(ref),
                   "object %08x is not loaded, yet decodes", ref.obj);
}

Test(handler, offset_outside_code_decodes_to_null)
{
    cm5i_href_t ref, bad;

    cr_assert_eq(cm5i_handler_encode((const void *)handler_target, &ref),
                 CM5_OK);
    /* The program's own data, named as an offset in its object. */
    bad = ref;
    bad.off = (uint32_t)((uintptr_t)&handler_data_word -
                         ((uintptr_t)handler_target - ref.off));
    cr_expect_null(cm5i_handler_decode(bad),
                   "offset 0x%x (a global int) decodes", bad.off);
    bad.off = 0xfffffff0u;
    cr_expect_null(cm5i_handler_decode(bad), "offset 0x%x decodes", bad.off);
    bad.off = 0; /* the ELF header: mapped, but not executable */
    cr_expect_null(cm5i_handler_decode(bad), "offset 0 decodes");
    /* The reference itself still resolves afterwards. */
    cr_expect_eq(cm5i_handler_decode(ref), (void *)handler_target);
}
