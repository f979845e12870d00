/*
 * Replays the render corpus (tests/unit/render-corpus: whole frames of
 * the Mesa guest's gles-scene and vk-draw, recorded by usc-dump.so, see
 * its README.md) through the in-process firmware: each recorded render
 * command as a vertex job (the vertex data master) then a fragment job
 * (the fragment pipe) over the scene it binned, each compute command (the
 * read-back copies) as a compute job, on the recorded memory mapped in a
 * user VM at the recorded addresses.  A submission's memory is loaded
 * before it runs, except pages the replayed jobs wrote (the recorder may
 * have read them after the GPU did).  Afterwards the memory the program
 * read back (the "after" rows) must hold what the program saw: the image
 * its checks compared with llvmpipe's or lavapipe's.  Two tests per file:
 * /render-corpus/<file> in the default slices, and
 * /render-corpus/slices-of-7/<file> in slices of 7 instructions, which end
 * inside tiles and vertex batches.
 *
 * The firmware parameters are those drm/asahi writes from each command's
 * fields (its asahi_params.c), set by name through the model's parameter
 * table; the tiled vertex buffer, tilemap and scene are this test's, as
 * the kernel's are the driver's.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "agx-fake.h"
#include "hw/agx/agx-params.h"

#define VM_SLOT         1
#define PAGE            0x4000ULL
#define TVB_PAGES       64              /* 32 KiB each */
#define MAX_CMDS        16

/* One command of a submission: its record line's fields */
typedef struct Cmd {
    bool render;
    GHashTable *fields;                 /* name -> value, as strings */
} Cmd;

typedef struct Replay {
    Fake f;
    FakeQueue vq, fq, cq;
    GHashTable *pages;                  /* VA >> 14 -> kernel VA */
    GHashTable *objects;                /* handle << 40 | off >> 14 -> KVA */
    GHashTable *written;                /* KVAs of pages the GPU wrote */
    uint64_t usc_base;
    Cmd cmds[MAX_CMDS];
    int ncmds;
    /* the kernel's objects of a render */
    uint64_t info, ctl, plist, tvb, tilemap, scene, stats;
} Replay;

/* --- the user VM --------------------------------------------------------- */

static uint64_t page_kva(Replay *r, uint64_t va)
{
    gpointer key = GSIZE_TO_POINTER(va / PAGE);
    uint64_t kva = GPOINTER_TO_SIZE(g_hash_table_lookup(r->pages, key));

    if (!kva) {
        kva = fake_alloc(&r->f, PAGE);
        fake_map_gpu(&r->f, VM_SLOT, va & ~(PAGE - 1), kva, PAGE, true);
        g_hash_table_insert(r->pages, key, GSIZE_TO_POINTER(kva));
    }
    return kva;
}

/*
 * Object @handle's bytes from @offset, bound at @va: two binds of one
 * object are views of the same memory
 */
static void vm_bind(Replay *r, uint64_t va, uint64_t len, uint32_t handle,
                    uint64_t offset)
{
    for (uint64_t p = 0; p < len; p += PAGE) {
        gpointer key = GSIZE_TO_POINTER((uint64_t)handle << 40 |
                                        (offset + p) / PAGE);
        gpointer vkey = GSIZE_TO_POINTER((va + p) / PAGE);
        uint64_t kva = GPOINTER_TO_SIZE(g_hash_table_lookup(r->objects,
                                                            key));

        if (g_hash_table_contains(r->pages, vkey)) {
            continue;
        }
        if (!kva) {
            kva = fake_alloc(&r->f, PAGE);
            g_hash_table_insert(r->objects, key, GSIZE_TO_POINTER(kva));
        }
        fake_map_gpu(&r->f, VM_SLOT, va + p, kva, PAGE, true);
        g_hash_table_insert(r->pages, vkey, GSIZE_TO_POINTER(kva));
    }
}

static void vm_rw(Replay *r, uint64_t va, uint8_t *buf, uint64_t len,
                  bool write)
{
    while (len) {
        uint64_t off = va & (PAGE - 1), n = MIN(len, PAGE - off);
        uint8_t *p = fake_ptr_n(&r->f, page_kva(r, va) + off, n);

        if (write) {
            memcpy(p, buf, n);
        } else {
            memcpy(buf, p, n);
        }
        va += n;
        buf += n;
        len -= n;
    }
}

/* --- firmware parameters, by name ---------------------------------------- */

static void put_param(Replay *r, uint64_t rec, unsigned pipe,
                      const char *name, uint64_t v)
{
    const AgxCmdLayout *l = r->f.layout;
    const AgxParamsField *f = agx_params_fields(pipe);
    uint64_t at;

    while (f->name && strcmp(f->name, name)) {
        f++;
    }
    g_assert_nonnull(f->name);
    at = rec + f->off[r->f.fw.abi->version];
    if (f->block == AGX_PARAMS_OP_A) {
        at += l->params[pipe][0];
    } else if (f->block == AGX_PARAMS_OP_B) {
        at += l->params[pipe][1];
    }
    switch (f->width) {
    case 8:
        apple_st64(fake_ptr_n(&r->f, at, 8), v);
        break;
    case 4:
        apple_st32(fake_ptr_n(&r->f, at, 4), v);
        break;
    default:
        g_assert_not_reached();
    }
}

static uint64_t field(const Cmd *c, const char *name)
{
    const char *v = g_hash_table_lookup(c->fields, name);

    g_assert_nonnull(v);
    return g_ascii_strtoull(v, NULL, 16);
}

/* --- the jobs ------------------------------------------------------------ */

/* The small slices of the second replay of each file, in instructions */
#define REPLAY_SMALL_SLICE      7


static void run_until(Replay *r, FakeQueue *q)
{
    for (int i = 0; i < 200 && fake_stamp(&r->f, q->slot) != q->value;
         i++) {
        fake_run(&r->f, 10000);
    }
    g_assert_false(fake_crashed(&r->f));
    g_assert_cmpuint(r->f.fault_events, ==, 0);
    g_assert_cmpuint(fake_stamp(&r->f, q->slot), ==, q->value);
}

/* drm/asahi's tiling: the region size of the tilemap, in words */
static uint32_t rgn_size(const Cmd *c)
{
    uint32_t uw = field(c, "utile-width") ?: 32;
    uint32_t uh = field(c, "utile-height") ?: 32;
    uint32_t tx = (field(c, "width") + 31) / 32;
    uint32_t ty = (field(c, "height") + 31) / 32;
    uint32_t mx = APPLE_ROUND_UP((tx + 3) / 4, 4);
    uint32_t my = APPLE_ROUND_UP((ty + 3) / 4, 4);

    return APPLE_ROUND_UP(5 * mx * my * (32 / uw) * (32 / uh), 4) / 4;
}

static void render(Replay *r, const Cmd *c)
{
    const AgxCmdLayout *l = r->f.layout;
    const AgxJobAbi *ja = r->f.fw.job_abi;
    uint32_t rgn = rgn_size(c);
    uint64_t rec;

    /* The kernel's side: a tiled vertex buffer, tilemap and scene */
    if (!r->info) {
        r->info = fake_alloc(&r->f, 0xc0);
        r->ctl = fake_alloc(&r->f, 0x40);
        r->plist = fake_alloc(&r->f, 4 * TVB_PAGES);
        r->tvb = APPLE_ROUND_UP(fake_alloc(&r->f, (TVB_PAGES + 1) * 0x8000),
                                0x8000);
        for (int i = 0; i < TVB_PAGES; i++) {
            apple_st32(fake_ptr(&r->f, r->plist + 4 * i), (r->tvb >> 15) + i);
        }
        apple_st32(fake_ptr(&r->f, r->info + ja->bi_block_count), 1);
        apple_st64(fake_ptr(&r->f, r->info + ja->bi_block_ctl), r->ctl);
        apple_st64(fake_ptr(&r->f, r->info + ja->bi_page_list), r->plist);
        r->scene = fake_alloc(&r->f, 0x48);
        r->stats = fake_alloc(&r->f, 0x40);
        apple_st64(fake_ptr(&r->f, r->scene + 0x2c), r->stats);
    }
    r->tilemap = fake_alloc(&r->f, 4 * rgn * 16);

    /* The vertex job: asahi_params_vertex() */
    rec = fake_add_vertex_run(&r->f, &r->vq, r->scene, r->info);
    apple_st32(fake_ptr_n(&r->f, rec + l->vm_slot[AGX_PIPE_VERTEX], 4),
               VM_SLOT);
    put_param(r, rec, AGX_PIPE_VERTEX, "buffer", r->info);
    put_param(r, rec, AGX_PIPE_VERTEX, "scene", r->scene);
    put_param(r, rec, AGX_PIPE_VERTEX, "encoder.sampler_array",
              field(c, "sampler-heap"));
    put_param(r, rec, AGX_PIPE_VERTEX, "tiling.rgn_size", rgn);
    apple_st32(fake_ptr_n(&r->f, rec + l->params[AGX_PIPE_VERTEX][0] + 0xc,
                          4),
               (field(c, "width") - 1) | (field(c, "height") - 1) << 16);
    put_param(r, rec, AGX_PIPE_VERTEX, "tiling.unk_28",
              field(c, "layers") > 1 ? 0xe000 | (field(c, "layers") - 1)
                                     : 0x8000);
    put_param(r, rec, AGX_PIPE_VERTEX, "params1.tvb_tilemap", r->tilemap);
    put_param(r, rec, AGX_PIPE_VERTEX, "params1.vdm_ctrl_stream_base",
              field(c, "vdm"));
    put_param(r, rec, AGX_PIPE_VERTEX, "params1.usc_exec_base_ta",
              r->usc_base);
    fake_kick(&r->f, &r->vq);
    run_until(r, &r->vq);

    /* The fragment job: asahi_params_fragment() */
    rec = fake_add_run(&r->f, &r->fq, NULL);
    apple_st32(fake_ptr_n(&r->f, rec + l->vm_slot[AGX_PIPE_FRAGMENT], 4),
               VM_SLOT);
    put_param(r, rec, AGX_PIPE_FRAGMENT, "tvb_tilemap", r->tilemap);
    put_param(r, rec, AGX_PIPE_FRAGMENT, "samples", field(c, "samples"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "encoder.sampler_array",
              field(c, "sampler-heap"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params1.bg.rsrc_spec",
              field(c, "bg-rsrc"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params1.bg.address",
              field(c, "bg-usc"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params1.isp_scissor_base",
              field(c, "scissor"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params1.isp_oclqry_base",
              field(c, "oclqry"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params1.zls_ctrl",
              field(c, "zls-ctrl"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params1.z_load",
              field(c, "depth-base"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params1.z_store",
              field(c, "depth-base"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params1.s_load",
              field(c, "stencil-base"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params1.s_store",
              field(c, "stencil-base"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params1.aux_fb_info.width",
              field(c, "width"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params1.aux_fb_info.height",
              field(c, "height"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params1.usc_exec_base_isp",
              r->usc_base);
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params2.eot_rsrc_spec",
              field(c, "eot-rsrc"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params2.eot_usc",
              field(c, "eot-usc"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params2.isp_bgobjdepth",
              field(c, "bgobjdepth"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params3.isp_bgobjvals",
              field(c, "bgobjvals"));
    put_param(r, rec, AGX_PIPE_FRAGMENT, "params3.sample_size",
              field(c, "sample-size"));
    fake_kick(&r->f, &r->fq);
    run_until(r, &r->fq);
}

static void compute(Replay *r, const Cmd *c)
{
    const AgxCmdLayout *l = r->f.layout;
    uint64_t rec = fake_add_run(&r->f, &r->cq, NULL);

    apple_st32(fake_ptr_n(&r->f, rec + l->vm_slot[AGX_PIPE_COMPUTE], 4),
               VM_SLOT);
    put_param(r, rec, AGX_PIPE_COMPUTE, "encoder.sampler_array",
              field(c, "sampler-heap"));
    put_param(r, rec, AGX_PIPE_COMPUTE, "params1.cdm_ctrl_stream_base",
              field(c, "cdm"));
    put_param(r, rec, AGX_PIPE_COMPUTE, "params1.usc_exec_base_cp",
              r->usc_base);
    put_param(r, rec, AGX_PIPE_COMPUTE, "params2.cdm_ctrl_stream_end",
              field(c, "end"));
    fake_kick(&r->f, &r->cq);
    run_until(r, &r->cq);
}

/* --- the file ------------------------------------------------------------ */

static Cmd *new_cmd(Replay *r, bool is_render, char **w, int from)
{
    Cmd *c;

    g_assert_cmpint(r->ncmds, <, MAX_CMDS);
    c = &r->cmds[r->ncmds++];
    c->render = is_render;
    c->fields = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                      g_free);
    for (int i = from; w[i] && w[i + 1]; i += 2) {
        g_hash_table_insert(c->fields, g_strdup(w[i]), g_strdup(w[i + 1]));
    }
    return c;
}

/* The pages of the VM, to see which the GPU writes */
static GHashTable *vm_snapshot(Replay *r)
{
    GHashTable *copy = g_hash_table_new_full(NULL, NULL, NULL, g_free);
    GHashTableIter it;
    gpointer key, kva;

    g_hash_table_iter_init(&it, r->pages);
    while (g_hash_table_iter_next(&it, &key, &kva)) {
        g_hash_table_insert(copy, kva,
                            g_memdup2(fake_ptr_n(&r->f, GPOINTER_TO_SIZE(kva),
                                                 PAGE), PAGE));
    }
    return copy;
}

#ifdef RENDER_BENCH
/*
 * bench-render: this file built again, timing each render command
 * (vertex job then fragment job) BENCH_RUNS times, each from the memory
 * the submission started with
 */
#define BENCH_RUNS      40

static double bench_secs;
static unsigned bench_frames;

/* The process's CPU time (the machine may be shared) */
static double cpu_secs(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bench_render(Replay *r, const Cmd *c, GHashTable *before)
{
    for (int k = 0; k < BENCH_RUNS; k++) {
        GHashTableIter it;
        gpointer kva, bytes;
        double t0;

        g_hash_table_iter_init(&it, before);
        while (g_hash_table_iter_next(&it, &kva, &bytes)) {
            memcpy(fake_ptr_n(&r->f, GPOINTER_TO_SIZE(kva), PAGE), bytes,
                   PAGE);
        }
        t0 = cpu_secs();
        render(r, c);
        bench_secs += cpu_secs() - t0;
        bench_frames++;
    }
}
#endif

static void end_submission(Replay *r)
{
    g_autoptr(GHashTable) before = vm_snapshot(r);
    GHashTableIter it;
    gpointer kva, bytes;

    for (int i = 0; i < r->ncmds; i++) {
        if (r->cmds[i].render) {
#ifdef RENDER_BENCH
            bench_render(r, &r->cmds[i], before);
            continue;
#endif
            render(r, &r->cmds[i]);
        } else {
            compute(r, &r->cmds[i]);
        }
        g_hash_table_destroy(r->cmds[i].fields);
    }
    r->ncmds = 0;
    g_hash_table_iter_init(&it, before);
    while (g_hash_table_iter_next(&it, &kva, &bytes)) {
        if (memcmp(fake_ptr_n(&r->f, GPOINTER_TO_SIZE(kva), PAGE), bytes,
                   PAGE)) {
            g_hash_table_add(r->written, kva);
        }
    }
}

/* A file to replay, in slices of @slice instructions (0: the default) */
typedef struct Replayed {
    char *path;
    uint64_t slice;
} Replayed;

static void replayed_free(gpointer data)
{
    Replayed *rp = data;

    g_free(rp->path);
    g_free(rp);
}

static void test_file(gconstpointer data)
{
    const Replayed *rp = data;
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    Replay *r = g_new0(Replay, 1);
    uint64_t region = 0, rows = 0, bad = 0, first_bad = 0;
    bool after = false;

    g_assert_true(g_file_get_contents(rp->path, &text, NULL, NULL));
    fake_init(&r->f, AGX_FW_V13_5);
    r->f.fw.cdm_slice = rp->slice;
    r->pages = g_hash_table_new(NULL, NULL);
    r->objects = g_hash_table_new(NULL, NULL);
    r->written = g_hash_table_new(NULL, NULL);
    apple_st32(fake_ptr_n(&r->f, r->f.fw.globals_va +
                          r->f.fw.abi->gl_fault_control, 4), 0xb);
    fake_queue_init(&r->f, &r->vq, AGX_PIPE_VERTEX, 0, 3);
    fake_queue_init(&r->f, &r->fq, AGX_PIPE_FRAGMENT, 0, 4);
    fake_queue_init(&r->f, &r->cq, AGX_PIPE_COMPUTE, 0, 5);
    lines = g_strsplit(text, "\n", -1);
    for (int i = 0; lines[i]; i++) {
        g_auto(GStrv) w = g_strsplit(lines[i], " ", -1);
        uint8_t buf[64];
        size_t n;

        if (!w[0] || !w[1] || w[0][0] == '#') {
            continue;
        }
        if (!strcmp(w[0], "submit")) {
            r->usc_base = g_ascii_strtoull(w[5], NULL, 16);
        } else if (!strcmp(w[0], "bind") && w[2] && w[3] && w[4]) {
            vm_bind(r, g_ascii_strtoull(w[1], NULL, 16),
                    g_ascii_strtoull(w[2], NULL, 10),
                    g_ascii_strtoull(w[3], NULL, 10),
                    g_ascii_strtoull(w[4], NULL, 16));
        } else if (!strcmp(w[0], "render")) {
            new_cmd(r, true, w, 2);
        } else if (!strcmp(w[0], "compute")) {
            new_cmd(r, false, w, 2);
        } else if (!strcmp(w[0], "mem") || !strcmp(w[0], "code") ||
                   !strcmp(w[0], "after")) {
            region = g_ascii_strtoull(w[1], NULL, 16);
            after = !strcmp(w[0], "after");
        } else if (!strcmp(w[0], "data") && w[2]) {
            uint64_t va = region + g_ascii_strtoull(w[1], NULL, 16);
            uint8_t got[64];

            n = strlen(w[2]) / 2;
            g_assert_cmpuint(n, <=, sizeof(buf));
            for (size_t k = 0; k < n; k++) {
                buf[k] = g_ascii_xdigit_value(w[2][2 * k]) << 4 |
                         g_ascii_xdigit_value(w[2][2 * k + 1]);
            }
            if (!after) {
                if (!g_hash_table_contains(r->written, GSIZE_TO_POINTER(
                        page_kva(r, va)))) {
                    vm_rw(r, va, buf, n, true);
                }
                continue;
            }
            rows++;
            vm_rw(r, va, got, n, false);
            if (memcmp(got, buf, n) && !bad++) {
                first_bad = va;
            }
        } else if (!strcmp(w[0], "end")) {
            end_submission(r);
        }
    }
    g_assert_cmpuint(rows, >, 0);
    if (bad) {
        g_test_message("%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                       " rows read back differ, the first at 0x%"
                       G_GINT64_MODIFIER "x", bad, rows, first_bad);
    }
    g_assert_cmpuint(bad, ==, 0);
    if (rp->slice) {
        /* the slices ended inside tiles and vertex batches */
        g_assert_cmpuint(r->f.fw.frag.suspensions, >, 0);
        g_assert_cmpuint(r->f.fw.vdm.suspensions, >, 0);
    }
    g_hash_table_destroy(r->pages);
    g_hash_table_destroy(r->objects);
    g_hash_table_destroy(r->written);
    fake_free(&r->f);
    g_free(r);
}

int main(int argc, char **argv)
{
    const char *dir = g_getenv("RENDER_CORPUS") ?: RENDER_CORPUS_DIR;
    g_autoptr(GDir) d = NULL;
    const char *name;

    /* meson's render-corpus-general-paths: the render's general code only */
    agx_usc_general_paths = g_getenv("AGX_USC_GENERAL_PATHS") != NULL;
    g_test_init(&argc, &argv, NULL);
    d = g_dir_open(dir, 0, NULL);
    while (d && (name = g_dir_read_name(d))) {
        g_autofree char *base = NULL;

        if (!g_str_has_suffix(name, ".txt")) {
            continue;
        }
        base = g_strndup(name, strlen(name) - 4);
        /* whole, and in small slices: the same bytes */
        for (int i = 0; i < 2; i++) {
            g_autofree char *path = NULL;
            Replayed *rp = g_new0(Replayed, 1);

            rp->path = g_build_filename(dir, name, NULL);
            rp->slice = i ? REPLAY_SMALL_SLICE : 0;
            path = i ? g_strdup_printf("/render-corpus/slices-of-%d/%s",
                                       REPLAY_SMALL_SLICE, base)
                     : g_strdup_printf("/render-corpus/%s", base);
#ifdef RENDER_BENCH
            if (i) {
                /* the benchmark replays the default slices only */
                replayed_free(rp);
                continue;
            }
#endif
            g_test_add_data_func_full(path, rp, test_file, replayed_free);
        }
    }
#ifdef RENDER_BENCH
    {
        int ret = g_test_run();

        printf("%-44s %8.1f frames/s (%u frames, %.2f s of CPU)\n",
               "render corpus (vertex + fragment jobs)",
               bench_frames / bench_secs, bench_frames, bench_secs);
        return ret;
    }
#endif
    return g_test_run();
}
