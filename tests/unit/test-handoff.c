/*
 * Unit tests for the firmware side of the UAT handoff
 *
 * The test plays the driver.  Its side of the Dekker lock is a small state
 * machine that makes one shared-memory access per step, in the order the
 * driver's Handoff::lock()/unlock() make them.  AP steps can be run from
 * inside the firmware's own memory accesses, so every interleaving of the
 * two sides can be tried.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-handoff.h"
#include "unit-helpers.h"

#define RAM_BASE        0x900000000ULL
#define RAM_SIZE        0x1000
#define HANDOFF_PA      (RAM_BASE + 0x400)
#define OUTSIDE_RAM     0x100000ULL

#define FLUSH(i)        (AGX_HANDOFF_FLUSH + (i) * 0x18)

/* The AP's program counter: each state is one memory access */
typedef enum ApPc {
    AP_IDLE,
    AP_RAISE,           /* lock_ap = 1 (and a full barrier) */
    AP_CHECK,           /* lock_fw == 0 ? in : look at turn */
    AP_TURN,            /* turn != 0 ? back off : check again */
    AP_LOWER,           /* lock_ap = 0 */
    AP_WAIT,            /* spin until turn == 0 */
    AP_RERAISE,         /* lock_ap = 1 */
    AP_IN,              /* holds the lock */
    AP_GIVE_TURN,       /* unlock: turn = 1 */
    AP_DROP,            /* unlock: lock_ap = 0 */
} ApPc;

typedef struct Fixture {
    uint8_t ram[RAM_SIZE];
    AgxHandoff h;
    unsigned fw_accesses;

    ApPc ap;
    bool ap_again;              /* lock again right after each unlock */
    unsigned ap_entries;        /* times the AP got the lock */
    unsigned ap_backoffs;

    /* AP steps to run before each firmware access, in order */
    const unsigned *sched;
    unsigned sched_len;
    unsigned sched_pos;
} Fixture;

static uint8_t *hf(Fixture *fx, unsigned off)
{
    return fx->ram + (HANDOFF_PA - RAM_BASE) + off;
}

/* Both sides in at once: the one thing that must never happen */
static void check_exclusion(Fixture *fx)
{
    g_assert_false(fx->ap == AP_IN && fx->h.locked);
}

static void ap_step(Fixture *fx)
{
    switch (fx->ap) {
    case AP_IDLE:
    case AP_IN:
        break;
    case AP_RAISE:
    case AP_RERAISE:
        *hf(fx, AGX_HANDOFF_LOCK_AP) = 1;
        fx->ap = AP_CHECK;
        break;
    case AP_CHECK:
        if (*hf(fx, AGX_HANDOFF_LOCK_FW) == 0) {
            fx->ap = AP_IN;
            fx->ap_entries++;
        } else {
            fx->ap = AP_TURN;
        }
        break;
    case AP_TURN:
        fx->ap = apple_ld32(hf(fx, AGX_HANDOFF_TURN)) ? AP_LOWER : AP_CHECK;
        break;
    case AP_LOWER:
        *hf(fx, AGX_HANDOFF_LOCK_AP) = 0;
        fx->ap_backoffs++;
        fx->ap = AP_WAIT;
        break;
    case AP_WAIT:
        if (apple_ld32(hf(fx, AGX_HANDOFF_TURN)) == 0) {
            fx->ap = AP_RERAISE;
        }
        break;
    case AP_GIVE_TURN:
        apple_st32(hf(fx, AGX_HANDOFF_TURN), 1);
        fx->ap = AP_DROP;
        break;
    case AP_DROP:
        *hf(fx, AGX_HANDOFF_LOCK_AP) = 0;
        fx->ap = fx->ap_again ? AP_RAISE : AP_IDLE;
        break;
    }
    check_exclusion(fx);
}

/* A busy AP: one step in the critical section, then unlock and retry */
static void ap_step_busy(Fixture *fx)
{
    if (fx->ap == AP_IN) {
        fx->ap = AP_GIVE_TURN;
    }
    ap_step(fx);
}

static void ap_run(Fixture *fx, unsigned steps)
{
    for (unsigned i = 0; i < steps; i++) {
        ap_step(fx);
    }
}

/* Run the AP until it holds the lock; false if it does not within @max */
static bool ap_lock(Fixture *fx, unsigned max)
{
    for (unsigned i = 0; i < max && fx->ap != AP_IN; i++) {
        if (fx->ap == AP_IDLE) {
            fx->ap = AP_RAISE;
        }
        ap_step(fx);
    }
    return fx->ap == AP_IN;
}

static void ap_unlock(Fixture *fx)
{
    g_assert_cmpint(fx->ap, ==, AP_IN);
    fx->ap = AP_GIVE_TURN;
    ap_run(fx, 2);
}

/* Run the scheduled AP steps for the next firmware access (or gap) */
static void interleave(Fixture *fx, bool busy)
{
    unsigned n = 0;

    check_exclusion(fx);
    if (fx->sched_pos < fx->sched_len) {
        n = fx->sched[fx->sched_pos++];
    }
    for (unsigned i = 0; i < n; i++) {
        if (busy) {
            ap_step_busy(fx);
        } else {
            ap_step(fx);
        }
    }
}

static bool fx_phys_rw(void *opaque, uint64_t pa, void *buf, uint64_t len,
                       bool is_write)
{
    Fixture *fx = opaque;

    interleave(fx, fx->ap_again);
    if (!flat_ram_rw(fx->ram, RAM_BASE, RAM_SIZE, pa, buf, len, is_write)) {
        return false;
    }
    fx->fw_accesses++;
    return true;
}

static void fx_reset(Fixture *fx)
{
    memset(fx, 0, sizeof(*fx));
    /* The padding around the lock fields must stay untouched */
    memset(fx->ram, 0xcc, sizeof(fx->ram));
    memset(hf(fx, 0), 0, AGX_HANDOFF_SIZE);
    *hf(fx, 0x12) = 0xcc;
    *hf(fx, 0x13) = 0xcc;
    agx_handoff_init(&fx->h, fx_phys_rw, fx, HANDOFF_PA);
}

static void fx_setup(Fixture *fx, gconstpointer data)
{
    fx_reset(fx);
}

static void fx_teardown(Fixture *fx, gconstpointer data)
{
    g_assert_cmphex(*hf(fx, 0x12), ==, 0xcc);
    g_assert_cmphex(*hf(fx, 0x13), ==, 0xcc);
    g_assert_cmphex(fx->ram[HANDOFF_PA - RAM_BASE - 1], ==, 0xcc);
    g_assert_cmphex(*hf(fx, AGX_HANDOFF_SIZE), ==, 0xcc);
}

static void schedule(Fixture *fx, const unsigned *sched, unsigned len)
{
    fx->sched = sched;
    fx->sched_len = len;
    fx->sched_pos = 0;
}

/* Boot */

static void test_boot_writes_magic(Fixture *fx, gconstpointer data)
{
    apple_st64(hf(fx, AGX_HANDOFF_MAGIC_AP), AGX_HANDOFF_MAGIC);
    g_assert_true(agx_handoff_boot(&fx->h));
    g_assert_cmphex(apple_ld64(hf(fx, AGX_HANDOFF_MAGIC_FW)), ==,
                    0x4b1d000000000002ULL);
    g_assert_cmphex(apple_ld64(hf(fx, AGX_HANDOFF_MAGIC_AP)), ==,
                    AGX_HANDOFF_MAGIC);
    g_assert_cmphex(*hf(fx, AGX_HANDOFF_LOCK_FW), ==, 0);
}

/* The driver polls for the magic while it holds the lock */
static void test_boot_while_ap_holds_lock(Fixture *fx, gconstpointer data)
{
    g_assert_true(ap_lock(fx, 10));
    g_assert_true(agx_handoff_boot(&fx->h));
    g_assert_cmphex(apple_ld64(hf(fx, AGX_HANDOFF_MAGIC_FW)), ==,
                    AGX_HANDOFF_MAGIC);
    ap_unlock(fx);
}

/* Lock, uncontended */

static void test_free_lock_is_taken(Fixture *fx, gconstpointer data)
{
    g_assert_true(agx_handoff_try_lock(&fx->h));
    g_assert_true(fx->h.locked);
    g_assert_cmphex(*hf(fx, AGX_HANDOFF_LOCK_FW), ==, 1);
    agx_handoff_unlock(&fx->h);
    g_assert_false(fx->h.locked);
    g_assert_cmphex(*hf(fx, AGX_HANDOFF_LOCK_FW), ==, 0);
    g_assert_cmphex(apple_ld32(hf(fx, AGX_HANDOFF_TURN)), ==, 0);
}

static void test_lock_fails_while_ap_holds(Fixture *fx, gconstpointer data)
{
    g_assert_true(ap_lock(fx, 10));
    g_assert_false(agx_handoff_try_lock(&fx->h));
    g_assert_false(fx->h.locked);
    g_assert_cmphex(*hf(fx, AGX_HANDOFF_LOCK_FW), ==, 0);
    g_assert_cmphex(*hf(fx, AGX_HANDOFF_LOCK_AP), ==, 1);
    ap_unlock(fx);
    g_assert_cmphex(apple_ld32(hf(fx, AGX_HANDOFF_TURN)), ==, 1);
    g_assert_true(agx_handoff_try_lock(&fx->h));
    agx_handoff_unlock(&fx->h);
}

static void test_ap_waits_while_fw_holds(Fixture *fx, gconstpointer data)
{
    g_assert_true(agx_handoff_try_lock(&fx->h));
    g_assert_false(ap_lock(fx, 100));
    agx_handoff_unlock(&fx->h);
    g_assert_true(ap_lock(fx, 10));
    ap_unlock(fx);
}

/* After the AP's unlock (turn 1) it backs off, and gets in once we leave */
static void test_ap_backs_off_while_fw_holds(Fixture *fx, gconstpointer data)
{
    g_assert_true(ap_lock(fx, 10));
    ap_unlock(fx);
    g_assert_true(agx_handoff_try_lock(&fx->h));
    g_assert_false(ap_lock(fx, 100));
    g_assert_cmpint(fx->ap, ==, AP_WAIT);
    g_assert_cmphex(*hf(fx, AGX_HANDOFF_LOCK_AP), ==, 0);
    agx_handoff_unlock(&fx->h);
    g_assert_true(ap_lock(fx, 10));
}

static void test_lock_is_idempotent(Fixture *fx, gconstpointer data)
{
    g_assert_true(agx_handoff_try_lock(&fx->h));
    fx->fw_accesses = 0;
    g_assert_true(agx_handoff_try_lock(&fx->h));
    g_assert_cmpuint(fx->fw_accesses, ==, 0);
    agx_handoff_unlock(&fx->h);
    fx->fw_accesses = 0;
    agx_handoff_unlock(&fx->h);
    g_assert_cmpuint(fx->fw_accesses, ==, 0);
}

/* Lock, contended: the two orders */

/* The AP raised its flag first: the firmware gives up, the AP gets in */
static void test_contention_ap_first(Fixture *fx, gconstpointer data)
{
    fx->ap = AP_RAISE;
    ap_step(fx);
    g_assert_false(agx_handoff_try_lock(&fx->h));
    g_assert_true(ap_lock(fx, 10));
    g_assert_cmpuint(fx->ap_backoffs, ==, 0);
}

/*
 * The firmware raised its flag first and the AP, its turn used up, backs
 * off before the firmware looks: the firmware gets in, then the AP.
 */
static void test_contention_fw_first(Fixture *fx, gconstpointer data)
{
    /* raise lock_fw, [AP: raise, check, turn, lower], read lock_ap */
    static const unsigned sched[] = { 0, 4 };

    apple_st32(hf(fx, AGX_HANDOFF_TURN), 1);
    fx->ap = AP_RAISE;
    schedule(fx, sched, G_N_ELEMENTS(sched));
    g_assert_true(agx_handoff_try_lock(&fx->h));
    g_assert_cmpint(fx->ap, ==, AP_WAIT);
    ap_run(fx, 50);
    g_assert_cmpint(fx->ap, ==, AP_WAIT);
    agx_handoff_unlock(&fx->h);
    g_assert_true(ap_lock(fx, 10));
    g_assert_cmpuint(fx->ap_backoffs, ==, 1);
}

/*
 * Both flags up, the firmware saw the AP's and gives up while the AP,
 * seeing ours with turn 1, backs off to wait for turn 0.  Only the
 * firmware can write turn 0: giving up must, or the AP waits forever.
 */
static void test_contention_both_back_off(Fixture *fx, gconstpointer data)
{
    /* lock_fw = 1, [AP raise], read lock_ap, [AP check, turn, lower] */
    static const unsigned sched[] = { 0, 1, 3 };

    apple_st32(hf(fx, AGX_HANDOFF_TURN), 1);
    fx->ap = AP_RAISE;
    schedule(fx, sched, G_N_ELEMENTS(sched));
    g_assert_false(agx_handoff_try_lock(&fx->h));
    g_assert_cmpuint(fx->ap_backoffs, ==, 1);
    g_assert_true(ap_lock(fx, 10));
}

/*
 * Every interleaving of a busy AP (lock, unlock, lock again, ...) with
 * @rounds firmware try_lock()s (each unlocked at once on success), from
 * every AP state reachable in its first @pre steps, for both initial
 * turns: the two are never in at once, and afterwards the AP always gets
 * in on its own.  Between two firmware accesses the AP makes 0 to
 * @max_steps steps.
 */
typedef struct Exploration {
    unsigned rounds;
    unsigned max_steps;
    unsigned pre;
} Exploration;

enum { POINTS_PER_ROUND = 5, MAX_POINTS = 16 };

static const Exploration explore_one = { 1, 4, 12 };
static const Exploration explore_two = { 2, 2, 10 };

static void explore_once(Fixture *fx, const Exploration *e,
                         const unsigned *sched, unsigned points,
                         unsigned turn, unsigned pre, unsigned *won,
                         unsigned *lost)
{
    fx_reset(fx);
    apple_st32(hf(fx, AGX_HANDOFF_TURN), turn);
    fx->ap_again = true;
    fx->ap = AP_RAISE;
    for (unsigned i = 0; i < pre; i++) {
        ap_step_busy(fx);
    }
    schedule(fx, sched, points);

    for (unsigned r = 0; r < e->rounds; r++) {
        if (agx_handoff_try_lock(&fx->h)) {
            (*won)++;
            interleave(fx, true);               /* inside our section */
            agx_handoff_unlock(&fx->h);
        } else {
            (*lost)++;
            g_assert_cmphex(*hf(fx, AGX_HANDOFF_LOCK_FW), ==, 0);
        }
        while (fx->sched_pos < (r + 1) * POINTS_PER_ROUND) {
            interleave(fx, true);
        }
    }
    interleave(fx, true);

    /* No deadlock: the AP alone gets in within a few steps */
    fx->ap_again = false;
    if (!ap_lock(fx, 16)) {
        g_autoptr(GString) s = g_string_new(NULL);

        for (unsigned i = 0; i < points; i++) {
            g_string_append_printf(s, "%u", sched[i]);
        }
        g_test_message("turn %u pre %u schedule %s: AP stuck in state %d",
                       turn, pre, s->str, fx->ap);
        g_assert_not_reached();
    }
}

static void test_all_interleavings(Fixture *fx, gconstpointer data)
{
    const Exploration *e = data;
    unsigned points = e->rounds * POINTS_PER_ROUND + 1;
    unsigned base = e->max_steps + 1;
    unsigned sched[MAX_POINTS];
    unsigned combos = 1, won = 0, lost = 0, backoffs = 0;

    g_assert_cmpuint(points, <=, MAX_POINTS);
    for (unsigned i = 0; i < points; i++) {
        combos *= base;
    }
    for (unsigned turn = 0; turn < 2; turn++) {
        for (unsigned pre = 0; pre < e->pre; pre++) {
            for (unsigned c = 0; c < combos; c++) {
                for (unsigned i = 0, v = c; i < points; i++, v /= base) {
                    sched[i] = v % base;
                }
                explore_once(fx, e, sched, points, turn, pre, &won, &lost);
                backoffs += fx->ap_backoffs;
            }
        }
    }
    /* The exploration reached both outcomes and the AP's back-off */
    g_test_message("%u firmware wins, %u give-ups, %u AP back-offs", won,
                   lost, backoffs);
    g_assert_cmpuint(won, >, 0);
    g_assert_cmpuint(lost, >, 0);
    g_assert_cmpuint(backoffs, >, 0);
    fx_reset(fx);
}

/* cur_slot */

static void test_cur_slot_needs_lock(Fixture *fx, gconstpointer data)
{
    apple_st32(hf(fx, AGX_HANDOFF_CUR_SLOT), 0);
    g_assert_false(agx_handoff_set_cur_slot(&fx->h, 7));
    g_assert_cmphex(apple_ld32(hf(fx, AGX_HANDOFF_CUR_SLOT)), ==, 0);
}

static void test_cur_slot_set_and_read(Fixture *fx, gconstpointer data)
{
    g_assert_true(agx_handoff_try_lock(&fx->h));
    g_assert_true(agx_handoff_set_cur_slot(&fx->h, 7));
    agx_handoff_unlock(&fx->h);
    g_assert_cmphex(apple_ld32(hf(fx, 0x18)), ==, 7);
    g_assert_cmphex(agx_handoff_cur_slot(&fx->h), ==, 7);
    g_assert_true(agx_handoff_try_lock(&fx->h));
    g_assert_true(agx_handoff_set_cur_slot(&fx->h, 0xffffffff));
    agx_handoff_unlock(&fx->h);
    g_assert_cmphex(apple_ld32(hf(fx, 0x18)), ==, 0xffffffff);
    g_assert_cmphex(apple_ld32(hf(fx, 0x1c)), ==, 0);
}

/* Flush requests */

static void request_flush(Fixture *fx, unsigned slot, uint64_t state,
                          uint64_t addr, uint64_t size)
{
    apple_st64(hf(fx, FLUSH(slot)), state);
    apple_st64(hf(fx, FLUSH(slot) + 8), addr);
    apple_st64(hf(fx, FLUSH(slot) + 16), size);
}

static void test_flush_requested_becomes_done(Fixture *fx,
                                              gconstpointer data)
{
    uint64_t addr = 0, size = 0;

    request_flush(fx, 3, 1, 0x1234560000ULL, 0x8000);
    request_flush(fx, 4, 1, 0x4444, 0x4000);
    g_assert_true(agx_handoff_complete_flush(&fx->h, 3, &addr, &size));
    g_assert_cmphex(addr, ==, 0x1234560000ULL);
    g_assert_cmphex(size, ==, 0x8000);
    g_assert_cmphex(apple_ld64(hf(fx, 0x20 + 3 * 0x18)), ==, 2);
    /* The neighbour is untouched */
    g_assert_cmphex(apple_ld64(hf(fx, FLUSH(4))), ==, 1);
}

/* Slot 64 (kernel mappings) is the last one, right before unk2 */
static void test_flush_kernel_slot(Fixture *fx, gconstpointer data)
{
    uint64_t addr, size;

    *hf(fx, AGX_HANDOFF_UNK2) = 0x5a;
    request_flush(fx, 64, 1, 0xffffffa000004000ULL, 0xc000);
    g_assert_true(agx_handoff_complete_flush(&fx->h, 64, &addr, &size));
    g_assert_cmphex(addr, ==, 0xffffffa000004000ULL);
    g_assert_cmphex(size, ==, 0xc000);
    g_assert_cmphex(apple_ld64(hf(fx, 0x620)), ==, 2);
    g_assert_cmphex(*hf(fx, 0x638), ==, 0x5a);
}

static void test_flush_not_requested_is_left(Fixture *fx, gconstpointer data)
{
    uint64_t addr, size;

    for (uint64_t state = 0; state < 4; state++) {
        if (state == 1) {
            continue;
        }
        request_flush(fx, 9, state, 0xdead000012340000ULL, 0x4000);
        g_assert_false(agx_handoff_complete_flush(&fx->h, 9, &addr, &size));
        g_assert_cmphex(apple_ld64(hf(fx, FLUSH(9))), ==, state);
    }
}

static void test_flush_slot_out_of_range(Fixture *fx, gconstpointer data)
{
    uint64_t addr, size;

    g_assert_false(agx_handoff_complete_flush(&fx->h, 65, &addr, &size));
    g_assert_false(agx_handoff_complete_flush(&fx->h, ~0u, &addr, &size));
    g_assert_cmpuint(fx->fw_accesses, ==, 0);
}

/* A handoff region outside guest RAM fails cleanly */
static void test_outside_ram(Fixture *fx, gconstpointer data)
{
    uint64_t addr, size;

    agx_handoff_init(&fx->h, fx_phys_rw, fx, OUTSIDE_RAM);
    g_assert_false(agx_handoff_boot(&fx->h));
    g_assert_false(agx_handoff_try_lock(&fx->h));
    g_assert_false(fx->h.locked);
    g_assert_cmphex(agx_handoff_cur_slot(&fx->h), ==, 0xffffffff);
    g_assert_false(agx_handoff_complete_flush(&fx->h, 0, &addr, &size));
    g_assert_cmpuint(fx->fw_accesses, ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    FX_ADD("/handoff/boot/writes-magic-fw", test_boot_writes_magic);
    FX_ADD("/handoff/boot/works-while-ap-holds-lock",
           test_boot_while_ap_holds_lock);
    FX_ADD("/handoff/lock/free-lock-is-taken", test_free_lock_is_taken);
    FX_ADD("/handoff/lock/fails-while-ap-holds-it",
           test_lock_fails_while_ap_holds);
    FX_ADD("/handoff/lock/ap-waits-while-fw-holds-it",
           test_ap_waits_while_fw_holds);
    FX_ADD("/handoff/lock/ap-backs-off-while-fw-holds-it",
           test_ap_backs_off_while_fw_holds);
    FX_ADD("/handoff/lock/taking-twice-is-harmless", test_lock_is_idempotent);
    FX_ADD("/handoff/lock/contention-ap-first-ap-wins",
           test_contention_ap_first);
    FX_ADD("/handoff/lock/contention-fw-first-fw-wins",
           test_contention_fw_first);
    FX_ADD("/handoff/lock/contention-giving-up-hands-turn-to-ap",
           test_contention_both_back_off);
    g_test_add("/handoff/lock/all-interleavings-of-one-try-are-safe",
               Fixture, &explore_one, fx_setup, test_all_interleavings,
               fx_teardown);
    g_test_add("/handoff/lock/all-interleavings-of-two-tries-are-safe",
               Fixture, &explore_two, fx_setup, test_all_interleavings,
               fx_teardown);
    FX_ADD("/handoff/cur-slot/needs-the-lock", test_cur_slot_needs_lock);
    FX_ADD("/handoff/cur-slot/set-and-read", test_cur_slot_set_and_read);
    FX_ADD("/handoff/flush/requested-becomes-done",
           test_flush_requested_becomes_done);
    FX_ADD("/handoff/flush/kernel-slot-64", test_flush_kernel_slot);
    FX_ADD("/handoff/flush/not-requested-is-left-alone",
           test_flush_not_requested_is_left);
    FX_ADD("/handoff/flush/slot-out-of-range", test_flush_slot_out_of_range);
    FX_ADD("/handoff/bad/handoff-outside-ram", test_outside_ram);
    return g_test_run();
}
