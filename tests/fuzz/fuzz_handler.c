/*
 * libFuzzer target: a handler named on the wire, (object, offset), and a
 * raw address from the host program (am/am_handler.c).
 *
 * The oracle is an independent table of the loaded objects' executable
 * segments (dl_iterate_phdr, names hashed as the library does): whatever
 * cm5i_handler_decode returns is NULL or an address inside an executable
 * segment of the object the reference names; cm5i_handler_decode_raw
 * returns NULL or the address itself, inside some executable segment; and
 * an address the encoder accepts decodes back to itself.  An input is
 * one mode byte and two 32-bit words.
 */
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "am_handler.h"

#define OBJ_MAX 64
#define SEG_MAX 8

static struct {
    uint32_t id;
    uintptr_t base;
    int nseg;
    uintptr_t lo[SEG_MAX], hi[SEG_MAX];
} objs[OBJ_MAX];
static int nobjs;

void cm5i_log(int level, const char *subsys, const char *fmt, ...)
{
    (void)level, (void)subsys, (void)fmt;
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;

    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static int add_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    if (nobjs == OBJ_MAX)
        return 1;
    objs[nobjs].id = fnv1a(info->dlpi_name ? info->dlpi_name : "");
    objs[nobjs].base = info->dlpi_addr;
    objs[nobjs].nseg = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        int s = objs[nobjs].nseg;

        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || s == SEG_MAX)
            continue;
        objs[nobjs].lo[s] = info->dlpi_addr + ph->p_vaddr;
        objs[nobjs].hi[s] = objs[nobjs].lo[s] + ph->p_memsz;
        objs[nobjs].nseg++;
    }
    if (objs[nobjs].nseg)
        nobjs++;
    return 0;
}

static int in_obj(int o, uintptr_t a)
{
    for (int s = 0; s < objs[o].nseg; s++)
        if (a >= objs[o].lo[s] && a < objs[o].hi[s])
            return 1;
    return 0;
}

/* The first object with this id (the library resolves to the first). */
static int obj_of_id(uint32_t id)
{
    for (int o = 0; o < nobjs; o++)
        if (objs[o].id == id)
            return o;
    return -1;
}

static int exec_anywhere(uintptr_t a)
{
    for (int o = 0; o < nobjs; o++)
        if (in_obj(o, a))
            return 1;
    return 0;
}

static void check_decode(cm5i_href_t ref)
{
    void *fp = cm5i_handler_decode(ref);
    int o = obj_of_id(ref.obj);

    if (!fp)
        return;
    if (o < 0 || (uintptr_t)fp != objs[o].base + ref.off ||
        !in_obj(o, (uintptr_t)fp))
        abort();
}

static void check_raw(cm5i_href_t ref)
{
    void *fp = cm5i_handler_decode_raw(ref);
    uint64_t a = (uint64_t)ref.obj << 32 | ref.off;

    if (fp && ((uint64_t)(uintptr_t)fp != a || !exec_anywhere((uintptr_t)a)))
        abort();
}

static int obj_of_addr(uintptr_t a)
{
    for (int o = 0; o < nobjs; o++)
        if (in_obj(o, a))
            return o;
    return -1;
}

static void check_roundtrip(uintptr_t a)
{
    cm5i_href_t ref, raw;
    int o = obj_of_addr(a);
    cm5_status_t st = cm5i_handler_encode((const void *)a, &ref);

    if (st == CM5_OK && cm5i_handler_decode(ref) != (void *)a &&
        obj_of_id(ref.obj) == o)
        abort(); /* (objects that share an id are warned about) */
    if (st == CM5_OK && o < 0)
        abort(); /* named something that is not code */
    if (st != CM5_OK && o >= 0 && a - objs[o].base <= UINT32_MAX)
        abort(); /* refused executable code */
    cm5i_handler_raw((const void *)a, &raw);
    if (o >= 0 && cm5i_handler_decode_raw(raw) != (void *)a)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t w[2] = {0, 0};
    cm5i_href_t ref;
    int o, s;

    if (!nobjs)
        dl_iterate_phdr(add_obj, NULL);
    if (size < 1)
        return 0;
    memcpy(w, data + 1, size - 1 < sizeof(w) ? size - 1 : sizeof(w));
    o = (int)(w[0] % (uint32_t)nobjs);
    s = (int)((w[0] >> 8) % (uint32_t)objs[o].nseg);
    switch (data[0] % 4) {
    case 0: /* anything */
        ref.obj = w[0];
        ref.off = w[1];
        check_decode(ref);
        check_raw(ref);
        break;
    case 1: /* a loaded object, any offset near one of its segments */
        ref.obj = objs[o].id;
        ref.off = (uint32_t)(objs[o].lo[s] - objs[o].base) + w[1];
        check_decode(ref);
        break;
    case 2: /* an address near a segment's edges, both ways */
        check_roundtrip(objs[o].lo[s] + (uintptr_t)(int32_t)w[1]);
        check_roundtrip(objs[o].hi[s] + (uintptr_t)(int32_t)w[1]);
        break;
    case 3: /* a raw address near a segment */
        ref.obj = (uint32_t)((uint64_t)objs[o].lo[s] >> 32);
        ref.off = (uint32_t)objs[o].lo[s] + w[1];
        check_raw(ref);
        break;
    }
    return 0;
}
