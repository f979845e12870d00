/*
 * Replays the shader corpus (tests/unit/usc-corpus: real Mesa compute
 * work recorded in the Mesa guest, see its README.md) through the USC
 * interpreter and checks the memory it leaves against the CPU references
 * the corpus carries.  One test per corpus file, /usc-corpus/<file>.
 *
 * Each file is replayed on its own sparse GPU memory: the recorded memory
 * of a submission is loaded before it runs (except pages an earlier
 * launch of the same file wrote), its CDM launches run in order (the
 * preamble, then every threadgroup), and after the last submission every
 * "expect" region must hold the expected bytes.  A file without an
 * expectation must run without a fault.  The files of known_failing[]
 * are reported as TODO while they fail, and fail once they pass (the
 * list must then shrink).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hw/agx/agx-usc.h"

/* Files the interpreter does not run yet, and why */
static const struct {
    const char *file;
    const char *why;
} known_failing[] = {
    { NULL, NULL },
};

#define PAGE_BITS       14
#define PAGE_SIZE       (1u << PAGE_BITS)
#define BUDGET          200000000ull

/* Sparse GPU memory: 16 KiB pages, zero until written */
typedef struct Page {
    uint8_t bytes[PAGE_SIZE];
    bool dirty;                 /* written by a launch */
} Page;

typedef struct Mem {
    GHashTable *pages;          /* VA >> PAGE_BITS -> Page */
    bool running;               /* writes now come from a launch */
} Mem;

static Page *page(Mem *m, uint64_t va, bool create)
{
    gpointer key = GSIZE_TO_POINTER(va >> PAGE_BITS);
    Page *p = g_hash_table_lookup(m->pages, key);

    if (!p && create) {
        p = g_new0(Page, 1);
        g_hash_table_insert(m->pages, key, p);
    }
    return p;
}

static void mem_copy(Mem *m, uint64_t va, void *buf, uint32_t len,
                     bool is_write)
{
    uint8_t *b = buf;

    while (len) {
        uint32_t off = va & (PAGE_SIZE - 1);
        uint32_t n = MIN(len, PAGE_SIZE - off);
        Page *p = page(m, va, is_write);

        if (is_write) {
            memcpy(p->bytes + off, b, n);
            p->dirty |= m->running;
        } else if (p) {
            memcpy(b, p->bytes + off, n);
        } else {
            memset(b, 0, n);
        }
        va += n;
        b += n;
        len -= n;
    }
}

/* Recorded memory: not over what a launch already wrote */
static void mem_load(Mem *m, uint64_t va, const uint8_t *buf, uint32_t len)
{
    uint32_t i;

    for (i = 0; i < len; i++) {
        Page *p = page(m, va + i, true);

        if (!p->dirty) {
            p->bytes[(va + i) & (PAGE_SIZE - 1)] = buf[i];
        }
    }
}

static bool mem_read(void *opaque, uint64_t va, void *buf, uint32_t len,
                     uint64_t *fault_va)
{
    mem_copy(opaque, va, buf, len, false);
    return true;
}

static bool mem_write(void *opaque, uint64_t va, const void *buf,
                      uint32_t len, uint64_t *fault_va)
{
    mem_copy(opaque, va, (void *)buf, len, true);
    return true;
}

static const AgxUscMemOps mem_ops = {
    .read = mem_read,
    .write = mem_write,
};

/* A launch of the submission being read: its CDM block and USC words */
typedef struct Pending {
    uint64_t usc_base, heap;
    uint8_t blk[32];
    uint8_t words[256];
    uint32_t words_len;
} Pending;

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;

    while (n--) {
        v = v << 8 | p[n];
    }
    return v;
}

/* "HEX" into @out (at most @max bytes); the byte count */
static uint32_t unhex(const char *s, uint8_t *out, uint32_t max)
{
    uint32_t n = 0;

    while (s[0] && s[1] && n < max) {
        unsigned v;

        if (sscanf(s, "%2x", &v) != 1) {
            break;
        }
        out[n++] = v;
        s += 2;
    }
    return n;
}

/*
 * The launch state of a CDM launch block and its USC words, uniforms
 * read from @m; false (with a message) if a word is not understood
 */
static bool setup_launch(Mem *m, uint64_t usc_base, uint64_t heap,
                         const uint8_t *blk, const uint8_t *w, uint32_t wlen,
                         AgxUscLaunch *l)
{
    uint32_t w0 = le(blk, 4), w1 = le(blk + 4, 4), i = 0, k;
    uint32_t sampler_stride = ((w0 >> 9) & 7) >= 6 ? 24 : 8;
    uint16_t halves[2 * AGX_USC_UNIFORMS];

    memset(l, 0, sizeof(*l));
    l->usc_base = usc_base;
    l->soft_faults = true;
    l->sampler_heap_va = heap;
    l->preamble_gpr_halves = (((w0 >> 12) & 15) ?: 16) * 16;
    switch ((w0 >> 27) & 3) {
    case 0:
        for (k = 0; k < 3; k++) {
            l->global[k] = le(blk + 8 + 4 * k, 4);
            l->local[k] = le(blk + 20 + 4 * k, 4);
        }
        break;
    case 1: {
        uint64_t va = (le(blk + 8, 4) & 0xff) << 32 | le(blk + 12, 4);
        uint32_t groups[3];

        mem_copy(m, va, groups, sizeof(groups), false);
        for (k = 0; k < 3; k++) {
            l->local[k] = le(blk + 16 + 4 * k, 4);
            l->global[k] = groups[k] * l->local[k];
        }
        break;
    }
    default: {
        uint64_t va = (le(blk + 8, 4) & 0xff) << 32 | le(blk + 12, 4);
        uint32_t grid[6];

        mem_copy(m, va, grid, sizeof(grid), false);
        for (k = 0; k < 3; k++) {
            l->global[k] = grid[k];
            l->local[k] = grid[3 + k];
        }
        break;
    }
    }
    memset(halves, 0, sizeof(halves));
    (void)w1;
    while (i < wlen) {
        uint64_t v = le(w + i, MIN(8, wlen - i));
        uint32_t start = (v >> 8) & 0xff, n;

        switch (w[i]) {
        case 0x1d:
        case 0x3d:
            n = ((v >> 20) & 0x3f) ?: 64;
            start += w[i] == 0x3d ? 256 : 0;
            if (start + n > 2 * AGX_USC_UNIFORMS) {
                g_test_message("uniform word past the uniform file");
                return false;
            }
            mem_copy(m, (v >> 26) << 2, &halves[start], 2 * n, false);
            i += 8;
            break;
        case 0xdd:
        case 0x9d:
            n = (v >> 20) & 0x7f;
            for (k = 0; k < n && start + k < AGX_USC_TEX_STATES; k++) {
                uint64_t va = ((v >> 27) & ((1ull << 36) - 1)) << 3;

                if (w[i] == 0xdd) {
                    l->tex_state_va[start + k] = va + 24 * k;
                } else {
                    l->sampler_state_va[start + k] = va + sampler_stride * k;
                }
            }
            i += 8;
            break;
        case 0x4d:
            l->shared_bytes = v & 0x100 ? ((((v >> 24) & 0xff) ?: 256) * 256)
                                        : 0;
            /*
             * An imageblock (cmdbuf.xml "USC Shared": layout 15:10, 0x2f
             * 32x32; samples log2 17:16; sample stride 23:20 in 8 bytes)
             */
            if ((v & 0x100) && ((v >> 10) & 0x3f) == 0x2f) {
                l->tile_width = l->tile_height = 32;
                l->tile_samples = 1u << ((v >> 16) & 3);
                l->tile_sample_bytes = ((v >> 20) & 15) * 8;
            }
            i += 4;
            break;
        case 0x0d:
            l->main_pc = (uint32_t)(v >> 16);
            i += 6;
            break;
        case 0x8d:
            l->gpr_halves = (((v >> 8) & 0x1f) ?: 32) * 8;
            l->stack_bytes = (v >> 18) & 15 ? 1 : 0;
            i += 4;
            break;
        case 0x38:
            l->preamble_pc = (uint32_t)(v >> 32);
            l->has_preamble = true;
            i = wlen;
            break;
        case 0x88:
            i = wlen;
            break;
        case 0x58:
            i += 4;
            break;
        default:
            g_test_message("USC word 0x%02x not understood", w[i]);
            return false;
        }
    }
    for (k = 0; k < AGX_USC_UNIFORMS; k++) {
        l->uniforms[k] = halves[2 * k] | (uint32_t)halves[2 * k + 1] << 16;
    }
    return true;
}

static bool run_launch(Mem *m, AgxUscLaunch *l)
{
    uint64_t budget = BUDGET;
    uint32_t tg[3], n[3], k;
    AgxUscFault fault;
    AgxUscStatus st = AGX_USC_OK;

    m->running = true;
    if (l->has_preamble) {
        st = agx_usc_run_preamble(l, &mem_ops, m, &budget, &fault);
    }
    for (k = 0; k < 3; k++) {
        n[k] = l->local[k] ? (l->global[k] + l->local[k] - 1) / l->local[k]
                           : 0;
    }
    for (tg[2] = 0; st == AGX_USC_OK && tg[2] < n[2]; tg[2]++) {
        for (tg[1] = 0; st == AGX_USC_OK && tg[1] < n[1]; tg[1]++) {
            for (tg[0] = 0; st == AGX_USC_OK && tg[0] < n[0]; tg[0]++) {
                st = agx_usc_run_threadgroup(l, tg, &mem_ops, m, &budget,
                                             &fault);
            }
        }
    }
    m->running = false;
    if (st != AGX_USC_OK) {
        g_test_message("launch stopped: status %d, fault %d at pc 0x%" PRIx64
                       " va 0x%" PRIx64 " insn 0x%016" PRIx64, st, fault.kind,
                       fault.pc, fault.va, fault.insn);
        return false;
    }
    return true;
}

/* Compares an expect region; the first difference as a message */
static bool check_expect(Mem *m, uint64_t va, const uint8_t *want,
                         uint32_t len)
{
    g_autofree uint8_t *got = g_malloc(len);
    uint32_t i;

    mem_copy(m, va, got, len, false);
    for (i = 0; i < len; i++) {
        if (got[i] != want[i]) {
            g_test_message("expect at 0x%" PRIx64 ": byte %u is 0x%02x, "
                           "want 0x%02x", va, i, got[i], want[i]);
            return false;
        }
    }
    return true;
}

/*
 * One corpus file.  Regions ("code", "mem", "expect") are followed by
 * their "data OFFSET HEX" rows; launch blocks and USC word lists are
 * "words" lines after a "launch" line.
 */
static void test_file(gconstpointer data)
{
    const char *path = data;
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    Mem m = { g_hash_table_new_full(NULL, NULL, NULL, g_free), false };
    uint8_t *region = NULL, blk[32], words[256];
    uint64_t region_va = 0, usc_base = 0, heap = 0, launch_at = 0;
    uint32_t region_len = 0, blk_len = 0, words_len = 0;
    enum { NONE, LOAD, EXPECT } kind = NONE;
    GArray *expects = g_array_new(false, false, sizeof(uint8_t *));
    GArray *launches = g_array_new(false, true, sizeof(Pending));
    int state = 0;      /* 1: after "launch", 2: block read */
    bool ok = true;
    guint i, k;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    lines = g_strsplit(text, "\n", -1);
    for (i = 0; lines[i] && ok; i++) {
        char *l = lines[i], what[16];
        unsigned long long a = 0, b = 0;
        char hexbuf[520];

        if (g_str_has_prefix(l, "data ")) {
            if (sscanf(l, "data %llx %519s", &a, hexbuf) == 2 && region &&
                a < region_len) {
                unhex(hexbuf, region + a, region_len - a);
            }
            continue;
        }
        /* a region ends at the next line that is not a row */
        if (region && kind == LOAD) {
            mem_load(&m, region_va, region, region_len);
            g_free(region);
        } else if (region && kind == EXPECT) {
            uint8_t *e = g_malloc(region_len + 12);

            memcpy(e, &region_va, 8);
            memcpy(e + 8, &region_len, 4);
            memcpy(e + 12, region, region_len);
            g_array_append_val(expects, e);
            g_free(region);
        }
        region = NULL;
        kind = NONE;
        if (sscanf(l, "%15s", what) != 1 || what[0] == '#') {
            continue;
        }
        if (!strcmp(what, "submit")) {
            sscanf(l, "submit %*u queue %*u usc-base %llx", &a);
            usc_base = a;
            g_array_set_size(launches, 0);
        } else if (!strcmp(what, "compute")) {
            sscanf(l, "compute %*d cdm %*x end %*x helper %*x %*x %*x "
                   "sampler-heap %llx", &a);
            heap = a;
        } else if (!strcmp(what, "launch")) {
            sscanf(l, "launch %*d at %llx", &a);
            launch_at = a;
            state = 1;
        } else if (!strcmp(what, "words")) {
            static char hexw[1024];

            if (sscanf(l, "words %llx %llu %1023s", &a, &b, hexw) != 3) {
                continue;
            }
            if (state == 1 && a == launch_at) {
                blk_len = unhex(hexw, blk, sizeof(blk));
                state = 2;
            } else if (state == 2) {
                words_len = unhex(hexw, words, sizeof(words));
                state = 0;
                if (blk_len >= 16) {
                    Pending *p;

                    /* set up when the submission's memory is in */
                    g_array_set_size(launches, launches->len + 1);
                    p = &g_array_index(launches, Pending, launches->len - 1);
                    p->usc_base = usc_base;
                    p->heap = heap;
                    memcpy(p->blk, blk, sizeof(blk));
                    memcpy(p->words, words, words_len);
                    p->words_len = words_len;
                }
            }
        } else if (!strcmp(what, "code") || !strcmp(what, "mem") ||
                   !strcmp(what, "expect")) {
            if (!strcmp(what, "expect")) {
                sscanf(l, "expect %*s %llx %llu", &a, &b);
                kind = EXPECT;
            } else {
                sscanf(l, "%*s %llx %llu", &a, &b);
                kind = LOAD;
            }
            region_va = a;
            region_len = b;
            region = g_malloc0(region_len);
        } else if (!strcmp(what, "end")) {
            /* the submission's memory is in: run its launches */
            for (k = 0; k < launches->len && ok; k++) {
                Pending *p = &g_array_index(launches, Pending, k);
                AgxUscLaunch run;

                ok = setup_launch(&m, p->usc_base, p->heap, p->blk, p->words,
                                  p->words_len, &run) &&
                     run_launch(&m, &run);
            }
        }
    }
    g_free(region);
    for (k = 0; k < expects->len; k++) {
        uint8_t *e = g_array_index(expects, uint8_t *, k);
        uint64_t va;
        uint32_t len;

        memcpy(&va, e, 8);
        memcpy(&len, e + 8, 4);
        ok = ok && check_expect(&m, va, e + 12, len);
        g_free(e);
    }
    g_array_free(expects, true);
    g_array_free(launches, true);
    g_hash_table_destroy(m.pages);
    for (k = 0; known_failing[k].file; k++) {
        if (g_str_has_suffix(path, known_failing[k].file)) {
            if (ok) {
                g_test_message("passes now: take it off known_failing[]");
                g_test_fail();
            } else {
                g_test_incomplete(known_failing[k].why);
            }
            return;
        }
    }
    if (!ok) {
        g_test_fail();
    }
}

static gint by_name(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    const char *dir = g_getenv("USC_CORPUS") ?: USC_CORPUS_DIR;
    g_autoptr(GDir) d = NULL;
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    const char *n;
    guint i;

    g_test_init(&argc, &argv, NULL);
    d = g_dir_open(dir, 0, NULL);
    while (d && (n = g_dir_read_name(d))) {
        if (g_str_has_suffix(n, ".txt")) {
            g_ptr_array_add(names, g_strdup(n));
        }
    }
    g_ptr_array_sort(names, by_name);
    for (i = 0; i < names->len; i++) {
        const char *name = g_ptr_array_index(names, i);
        g_autofree char *base = g_strndup(name, strlen(name) - 4);
        g_autofree char *tpath = g_strdup_printf("/usc-corpus/%s", base);

        g_test_add_data_func_full(tpath,
                                  g_build_filename(dir, name, NULL),
                                  test_file, g_free);
    }
    return g_test_run();
}
