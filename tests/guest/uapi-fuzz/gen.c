/*
 * uapi-fuzz: generating programs and mutating them
 *
 * Values are drawn per argument kind from what the UAPI makes of them
 * (page-aligned sizes and addresses in Mesa's user range, barriers, sync
 * types), with a share of edge values; references go to an earlier call
 * that made the kind of resource wanted, and one is made first when none
 * did, as syzkaller does.
 */

#include <string.h>

#include "uapi-fuzz.h"

#define GPU_PAGE 0x4000ULL
/* Mesa's VA layout (src/asahi/lib/agx_device.c) */
#define MESA_USC_BASE 0x1100000000ULL
#define MESA_USER_VA 0x1200000000ULL
#define MESA_KERNEL_SIZE (32ULL << 30)

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

void rnd_seed(uint64_t seed)
{
    rnd_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

/* xorshift64* */
uint64_t rnd(void)
{
    rnd_state ^= rnd_state >> 12;
    rnd_state ^= rnd_state << 25;
    rnd_state ^= rnd_state >> 27;
    return rnd_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t below(uint64_t n)
{
    return n ? rnd() % n : 0;
}

static bool one_in(uint64_t n)
{
    return below(n) == 0;
}

static uint64_t edge_value(void)
{
    static const uint64_t edges[] = {
        0, 1, 2, 3, 4, 7, 8, 16, 0x40, 0x7f, 0x80, 0xff, 0x100, 0x3fff,
        0x4000, 0x4001, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff,
        0x80000000, 0xffffffff, 0x100000000ULL, 0x7fffffffffffffffULL,
        0x8000000000000000ULL, ~0ULL, ~0ULL - 0x3fff,
    };

    return edges[below(sizeof(edges) / sizeof(edges[0]))];
}

static uint64_t gen_value(ValKind k)
{
    if (k != V_ZERO && one_in(20)) {
        return one_in(4) ? rnd() : edge_value();
    }
    switch (k) {
    case V_ANY:
        return one_in(2) ? below(256) : edge_value();
    case V_ZERO:
        return one_in(30) ? (one_in(2) ? 1 : edge_value()) : 0;
    case V_FLAGS:
        return one_in(3) ? 0 : below(16);
    case V_SIZE:
        if (one_in(10)) {
            return one_in(2) ? 0 : below(0x10000);
        }
        return GPU_PAGE * (1 + below(one_in(4) ? 256 : 16));
    case V_OFFSET:
        if (one_in(2)) {
            return 0;
        }
        return one_in(4) ? below(0x400) * 8 : GPU_PAGE * below(16);
    case V_VA:
        switch (below(8)) {
        case 0:
            return MESA_USC_BASE + GPU_PAGE * below(4);
        case 1:
            return exec_vm_start + GPU_PAGE * below(4);
        case 2:
            return exec_vm_end - MESA_KERNEL_SIZE + GPU_PAGE * below(4);
        case 3:
            return (1ULL << 36) + GPU_PAGE * below(4);
        default:
            return MESA_USER_VA + GPU_PAGE * below(16) +
                   (one_in(8) ? 0x1000 * below(4) : 0);
        }
    case V_KSTART:
        if (one_in(4)) {
            return exec_vm_end - exec_vm_kernel_min * (1 + below(4));
        }
        return exec_vm_end - MESA_KERNEL_SIZE;
    case V_KEND:
        return one_in(4) ? exec_vm_end - GPU_PAGE * below(4) : exec_vm_end;
    case V_BARRIER:
        switch (below(6)) {
        case 0:
            return 0xffff;
        case 1:
            return 1 + below(3);
        default:
            return 0;
        }
    case V_CMDTYPE:
        return below(5) + (one_in(10) ? below(8) : 0);
    case V_SYNCTYPE:
        return one_in(10) ? 2 + below(4) : below(2);
    case V_POINT:
        return one_in(2) ? 0 : 1 + below(6);
    case V_PRIO:
        return below(one_in(8) ? 8 : 3);
    case V_MS:
        return below(4) ? below(10) : below(51);
    case V_SMALL:
        return below(4) ? 1 + below(2) : below(16);
    case V_WIDTH:
        return 1ULL << below(4);
    case V_PIXELS:
        switch (below(5)) {
        case 0:
            return 1 + below(4096);
        case 1:
            return 256;
        default:
            return 64;
        }
    }
    return 0;
}

/* The call that makes each kind of resource */
static int maker_of(ResKind k)
{
    static const char *const makers[RES__COUNT] = {
        [RES_FD] = "open",
        [RES_VM] = "vm_create",
        [RES_BO] = "gem_create",
        [RES_MAP] = "mmap",
        [RES_QUEUE] = "queue_create",
        [RES_SYNCOBJ] = "syncobj_create",
        [RES_TSOBJ] = "bind_object",
        [RES_DMABUF] = "prime_export",
        [RES_SYNCFILE] = "syncobj_export",
    };

    return makers[k] ? op_by_name(makers[k]) : -1;
}

/* A random earlier call (before pos) that makes kind k, or -1 */
static int pick_ref(const Prog *p, int pos, ResKind k)
{
    int found[MAX_CALLS], n = 0, i;

    for (i = 0; i < pos; i++) {
        if (ops[p->calls[i].op].ret == k) {
            found[n++] = i;
        }
    }
    if (!n) {
        return -1;
    }
    /* The most recent one most often */
    return one_in(2) ? found[n - 1] : found[below(n)];
}

/* Opens a gap at pos: later references to calls at or after pos move */
static void shift_up(Prog *p, int pos)
{
    int i, j;

    memmove(&p->calls[pos + 1], &p->calls[pos],
            (p->n - pos) * sizeof(p->calls[0]));
    p->n++;
    for (i = pos + 1; i < p->n; i++) {
        for (j = 0; j < MAX_ARGS; j++) {
            Arg *a = &p->calls[i].args[j];

            if (a->is_ref && a->val >= (uint64_t)pos) {
                a->val++;
            }
        }
    }
}

static void remove_call(Prog *p, int pos)
{
    int i, j;

    memmove(&p->calls[pos], &p->calls[pos + 1],
            (p->n - pos - 1) * sizeof(p->calls[0]));
    p->n--;
    for (i = pos; i < p->n; i++) {
        for (j = 0; j < MAX_ARGS; j++) {
            Arg *a = &p->calls[i].args[j];

            if (!a->is_ref) {
                continue;
            }
            if (a->val == (uint64_t)pos) {
                a->val = (uint64_t)-1;  /* fixed by prog_fixup */
            } else if (a->val > (uint64_t)pos) {
                a->val--;
            }
        }
    }
}

/*
 * Generates call op at pos (makes room); the resources it needs are made
 * first when none exists.  Returns the index the call ended at, or -1.
 */
static int insert_call(Prog *p, int pos, int op, int depth)
{
    const OpDesc *d = &ops[op];
    Call c;
    int j;

    if (p->n >= MAX_CALLS || depth > 6) {
        return -1;
    }
    memset(&c, 0, sizeof(c));
    c.op = op;
    for (j = 0; j < d->nargs; j++) {
        ResKind k = d->args[j].ref;
        int r;

        if (k == RES_NONE) {
            c.args[j].val = gen_value(d->args[j].val);
            continue;
        }
        r = pick_ref(p, pos, k);
        /* A new one when none exists, and now and then anyway */
        if (maker_of(k) >= 0 && (r < 0 || one_in(30))) {
            int made = insert_call(p, pos, maker_of(k), depth + 1);

            if (made >= 0) {
                r = made;
                pos = made + 1;
            }
        }
        if (r < 0 || one_in(50)) {
            c.args[j].val = one_in(2) ? below(4) : edge_value();
        } else {
            c.args[j].is_ref = true;
            c.args[j].val = r;
        }
    }
    if (p->n >= MAX_CALLS) {
        return -1;
    }
    shift_up(p, pos);
    p->calls[pos] = c;
    return pos;
}

/* Calls by weight: submissions and their builders most of all */
static int pick_op(void)
{
    static const struct {
        const char *name;
        int weight;
    } weights[] = {
        { "open", 2 }, { "close", 2 }, { "get_params", 1 },
        { "get_time", 1 }, { "vm_create", 3 }, { "vm_destroy", 2 },
        { "gem_create", 4 }, { "gem_close", 2 }, { "mmap", 2 },
        { "munmap", 1 }, { "write64", 2 }, { "fill", 1 },
        { "vm_bind", 6 }, { "bind_op", 3 }, { "vm_bind_list", 2 },
        { "bind_object", 2 }, { "unbind_object", 1 },
        { "queue_create", 4 }, { "queue_destroy", 2 },
        { "cmd_compute", 6 }, { "cmd_render", 6 }, { "cmd_attach", 3 },
        { "cmd_raw", 2 }, { "cmd_set", 4 }, { "cmd_ts", 2 },
        { "sync_in", 3 }, { "sync_out", 4 }, { "submit", 10 },
        { "syncobj_create", 3 }, { "syncobj_destroy", 1 },
        { "syncobj_wait", 3 }, { "syncobj_signal", 2 },
        { "syncobj_reset", 1 }, { "syncobj_transfer", 2 },
        { "syncobj_query", 1 }, { "syncobj_export", 2 },
        { "syncobj_import", 1 }, { "sync_file_wait", 2 },
        { "prime_export", 2 }, { "prime_import", 2 },
        { "dmabuf_sync_file", 1 }, { "sleep", 1 }, { "collide", 1 },
    };
    int total = 0, i, r;

    for (i = 0; i < (int)(sizeof(weights) / sizeof(weights[0])); i++) {
        total += weights[i].weight;
    }
    r = below(total);
    for (i = 0; r >= weights[i].weight; i++) {
        r -= weights[i].weight;
    }
    return op_by_name(weights[i].name);
}

void prog_fixup(Prog *p)
{
    int i, j;

    for (i = 0; i < p->n; i++) {
        Call *c = &p->calls[i];

        for (j = 0; j < ops[c->op].nargs; j++) {
            Arg *a = &c->args[j];
            int r;

            /* Forward, dangling or to another kind of resource: repaired */
            if (!a->is_ref || (a->val < (uint64_t)i &&
                               ops[p->calls[a->val].op].ret ==
                               ops[c->op].args[j].ref)) {
                continue;
            }
            r = pick_ref(p, i, ops[c->op].args[j].ref);
            if (r < 0) {
                a->is_ref = false;
                a->val = 0;
            } else {
                a->val = r;
            }
        }
        for (j = ops[c->op].nargs; j < MAX_ARGS; j++) {
            c->args[j].is_ref = false;
            c->args[j].val = 0;
        }
    }
}

void prog_generate(Prog *p, int ncalls)
{
    p->n = 0;
    while (p->n < ncalls && p->n < MAX_CALLS) {
        insert_call(p, p->n, pick_op(), 0);
    }
    prog_fixup(p);
}

static void mutate_arg(Prog *p)
{
    Call *c = &p->calls[below(p->n)];
    const OpDesc *d = &ops[c->op];
    Arg *a;
    int j, r;

    if (!d->nargs) {
        return;
    }
    j = below(d->nargs);
    a = &c->args[j];
    if (d->args[j].ref != RES_NONE && !one_in(10)) {
        /* Another resource of the kind wanted */
        r = pick_ref(p, c - p->calls, d->args[j].ref);
        if (r >= 0) {
            a->is_ref = true;
            a->val = r;
        }
        return;
    }
    a->is_ref = false;
    switch (below(4)) {
    case 0:
        a->val ^= 1ULL << below(64);
        break;
    case 1:
        a->val += below(9) - 4;
        break;
    case 2:
        a->val += (below(2) ? 1 : -1) * GPU_PAGE;
        break;
    default:
        a->val = gen_value(d->args[j].ref != RES_NONE ? V_ANY :
                           d->args[j].val);
        break;
    }
}

/* Copies calls [from, to) of src to position pos of p */
static void copy_block(Prog *p, int pos, const Prog *src, int from, int to)
{
    int i, j, shift = pos - from;

    for (i = from; i < to && p->n < MAX_CALLS; i++) {
        Call c = src->calls[i];

        for (j = 0; j < MAX_ARGS; j++) {
            /* References inside the block move with it, others go */
            if (c.args[j].is_ref && c.args[j].val >= (uint64_t)from) {
                c.args[j].val += shift;
            } else if (c.args[j].is_ref) {
                c.args[j].val = (uint64_t)-1;
            }
        }
        shift_up(p, pos + (i - from));
        p->calls[pos + (i - from)] = c;
    }
}

void prog_mutate(Prog *p, const Prog *other)
{
    int rounds = 1 + (one_in(2) ? below(4) : 0), i, a, b;

    for (i = 0; i < rounds; i++) {
        switch (p->n ? below(10) : 0) {
        case 0:
        case 1:
        case 2: /* a new call */
            insert_call(p, below(p->n + 1), pick_op(), 0);
            break;
        case 3: /* one call fewer */
            remove_call(p, below(p->n));
            break;
        case 4:
        case 5:
        case 6: /* another value */
            mutate_arg(p);
            break;
        case 7: /* a block again, later */
            a = below(p->n);
            b = a + 1 + below(4);
            if (b > p->n) {
                b = p->n;
            }
            {
                Prog copy = *p;

                copy_block(p, b + below(p->n - b + 1), &copy, a, b);
            }
            break;
        case 8: /* the tail of another program */
            if (other && other->n) {
                a = below(other->n);
                p->n = below(p->n + 1);
                copy_block(p, p->n, other, a, other->n);
            }
            break;
        default: /* two neighbours swapped */
            if (p->n > 1) {
                Call t;

                a = below(p->n - 1);
                t = p->calls[a];
                p->calls[a] = p->calls[a + 1];
                p->calls[a + 1] = t;
                for (b = 0; b < MAX_ARGS; b++) {
                    if (p->calls[a + 1].args[b].is_ref &&
                        p->calls[a + 1].args[b].val == (uint64_t)a) {
                        p->calls[a + 1].args[b].val = (uint64_t)-1;
                    }
                    if (p->calls[a].args[b].is_ref &&
                        p->calls[a].args[b].val == (uint64_t)a) {
                        p->calls[a].args[b].val = (uint64_t)-1;
                    }
                }
            }
            break;
        }
    }
    prog_fixup(p);
}
