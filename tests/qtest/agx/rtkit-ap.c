/*
 * qtest library: the AP side of an Apple ASC mailbox and of RTKit
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rtkit-ap.h"
#include "agx-record.h"

#define CPU_CONTROL             0x44
#define CPU_CONTROL_RUN         (1u << 4)
#define MBOX                    0x8000
#define A2I_CONTROL             (MBOX + 0x110)
#define I2A_CONTROL             (MBOX + 0x114)
#define CONTROL_FULL            (1u << 16)
#define CONTROL_EMPTY           (1u << 17)
#define A2I_SEND0               (MBOX + 0x800)
#define A2I_SEND1               (MBOX + 0x808)
#define I2A_RECV0               (MBOX + 0x830)
#define I2A_RECV1               (MBOX + 0x838)

#define TYPE(m)                 (((m) >> 52) & 0xff)
#define MK_TYPE(t)              ((uint64_t)(t) << 52)
#define PAGES(m)                (((m) >> 44) & 0xff)
#define IOVA(m)                 ((m) & ((1ULL << 44) - 1))

/* Polls of the mailbox before a missing message fails the test */
#define RECV_POLLS              1000

void rtkit_ap_init(RTKitAP *ap, QTestState *qts, uint64_t asc_base,
                   uint64_t ram_base, uint64_t ram_size)
{
    memset(ap, 0, sizeof(*ap));
    ap->qts = qts;
    ap->asc_base = asc_base;
    ap->ram_next = ram_base;
    ap->ram_end = ram_base + ram_size;
    ap->syslog = g_ptr_array_new_with_free_func(g_free);
    ap->app_msg0 = g_array_new(false, false, sizeof(uint64_t));
    ap->app_ep = g_array_new(false, false, sizeof(uint8_t));
}

void rtkit_ap_free(RTKitAP *ap)
{
    g_ptr_array_free(ap->syslog, true);
    g_array_free(ap->app_msg0, true);
    g_array_free(ap->app_ep, true);
}

uint64_t rtkit_ap_alloc(RTKitAP *ap, uint64_t size)
{
    uint64_t addr = ap->ram_next;

    size = ROUND_UP(size, 0x4000);
    g_assert_cmphex(addr + size, <=, ap->ram_end);
    ap->ram_next += size;
    agx_record_zero(addr, size);
    qtest_memset(ap->qts, addr, 0, size);
    return addr;
}

void rtkit_ap_set_run(RTKitAP *ap, bool run)
{
    uint32_t v = qtest_readl(ap->qts, ap->asc_base + CPU_CONTROL);

    v = run ? v | CPU_CONTROL_RUN : v & ~CPU_CONTROL_RUN;
    agx_record_cpu(run);
    qtest_writel(ap->qts, ap->asc_base + CPU_CONTROL, v);
}

void rtkit_ap_send(RTKitAP *ap, uint8_t ep, uint64_t msg)
{
    g_assert_false(qtest_readl(ap->qts, ap->asc_base + A2I_CONTROL) &
                   CONTROL_FULL);
    agx_record_msg(ep, msg);
    qtest_writeq(ap->qts, ap->asc_base + A2I_SEND0, msg);
    qtest_writeq(ap->qts, ap->asc_base + A2I_SEND1, ep);
    ap->msgs_sent++;
}

bool rtkit_ap_try_recv(RTKitAP *ap, uint8_t *ep, uint64_t *msg)
{
    if (qtest_readl(ap->qts, ap->asc_base + I2A_CONTROL) & CONTROL_EMPTY) {
        return false;
    }
    *msg = qtest_readq(ap->qts, ap->asc_base + I2A_RECV0);
    *ep = qtest_readq(ap->qts, ap->asc_base + I2A_RECV1);
    ap->msgs_received++;
    return true;
}

void rtkit_ap_recv(RTKitAP *ap, uint8_t *ep, uint64_t *msg)
{
    for (int i = 0; i < RECV_POLLS; i++) {
        if (rtkit_ap_try_recv(ap, ep, msg)) {
            return;
        }
    }
    g_assert_not_reached();
}

static void mgmt_send(RTKitAP *ap, unsigned type, uint64_t payload)
{
    rtkit_ap_send(ap, 0, MK_TYPE(type) | payload);
}

static void handle_mgmt(RTKitAP *ap, uint64_t msg)
{
    int min = msg & 0xffff, max = (msg >> 16) & 0xffff, want;
    uint32_t base;

    switch (TYPE(msg)) {
    case 1:                                             /* HELLO */
        g_assert_cmpint(min, <=, 12);
        g_assert_cmpint(max, >=, 11);
        want = MIN(12, max);
        ap->version = want;
        mgmt_send(ap, 2, want | (want << 16));
        break;
    case 8:                                             /* EPMAP */
        base = (msg >> 32) & 7;
        for (int i = 0; i < 32; i++) {
            if (msg & (1ULL << i)) {
                ap->endpoints[base * 32 + i] = 1;
            }
        }
        if (msg & (1ULL << 51)) {
            mgmt_send(ap, 8, ((uint64_t)base << 32) | (1ULL << 51));
            for (int ep = 1; ep < 0x20; ep++) {
                if (ap->endpoints[ep]) {
                    rtkit_ap_start_ep(ap, ep);
                }
            }
            ap->epmap_done = true;
        } else {
            mgmt_send(ap, 8, ((uint64_t)base << 32) | 1);
        }
        break;
    case 7:                                             /* IOP power ack */
        ap->iop_power = msg & 0xffff;
        break;
    case 0xb:                                           /* AP power ack */
        ap->ap_power = msg & 0xffff;
        break;
    default:
        g_assert_not_reached();
    }
}

/* A buffer request: allocate, answer with the IOVA (= physical address) */
static uint64_t handle_buffer(RTKitAP *ap, uint8_t ep, uint64_t msg)
{
    uint64_t size = PAGES(msg) << 12;
    uint64_t iova;

    g_assert_cmphex(IOVA(msg), ==, 0);
    iova = ap->alloc_iova ? ap->alloc_iova(ap->iova_opaque, size)
                          : rtkit_ap_alloc(ap, size);
    rtkit_ap_send(ap, ep, MK_TYPE(1) | (PAGES(msg) << 44) | IOVA(iova));
    return iova;
}

static void handle_syslog(RTKitAP *ap, uint64_t msg)
{
    uint32_t idx, stride;
    uint64_t entry;
    char ctx[24], *text;

    switch (TYPE(msg)) {
    case 1:
        ap->syslog_iova = handle_buffer(ap, 2, msg);
        break;
    case 8:
        ap->syslog_entries = msg & 0xff;
        ap->syslog_msg_size = (msg >> 24) & 0xff;
        break;
    case 5:
        idx = msg & 0xff;
        g_assert_cmpuint(idx, <, ap->syslog_entries);
        stride = 0x20 + ap->syslog_msg_size;
        entry = ap->syslog_iova + idx * stride;
        if (ap->iova_to_pa) {
            entry = ap->iova_to_pa(ap->iova_opaque, entry);
        }
        qtest_memread(ap->qts, entry + 8, ctx, sizeof(ctx));
        ctx[sizeof(ctx) - 1] = 0;
        text = g_malloc0(ap->syslog_msg_size + 1);
        qtest_memread(ap->qts, entry + 0x20, text, ap->syslog_msg_size);
        g_ptr_array_add(ap->syslog, g_strdup_printf("%s: %s", ctx, text));
        g_free(text);
        rtkit_ap_send(ap, 2, msg);                      /* ack */
        break;
    default:
        g_assert_not_reached();
    }
}

bool rtkit_ap_process_one(RTKitAP *ap)
{
    uint8_t ep;
    uint64_t msg;

    for (int i = 0; i < RECV_POLLS; i++) {
        if (!rtkit_ap_try_recv(ap, &ep, &msg)) {
            continue;
        }
        switch (ep) {
        case 0:
            handle_mgmt(ap, msg);
            break;
        case 1:
            g_assert_cmpuint(TYPE(msg), ==, 1);
            if (!ap->crashlog_size) {
                ap->crashlog_iova = handle_buffer(ap, 1, msg);
                ap->crashlog_size = PAGES(msg) << 12;
            } else {
                ap->crashed = true;
            }
            break;
        case 2:
            handle_syslog(ap, msg);
            break;
        case 4:
            if (TYPE(msg) == 1) {
                handle_buffer(ap, 4, msg);
            } else {
                rtkit_ap_send(ap, 4, msg);
            }
            break;
        default:
            g_assert_cmpuint(ep, >=, 0x20);
            g_array_append_val(ap->app_msg0, msg);
            g_array_append_val(ap->app_ep, ep);
            break;
        }
        return true;
    }
    return false;
}

void rtkit_ap_process_all(RTKitAP *ap)
{
    while (rtkit_ap_process_one(ap)) {
        /* bounded by what the firmware sends */
    }
}

void rtkit_ap_start_ep(RTKitAP *ap, uint8_t ep)
{
    mgmt_send(ap, 5, ((uint64_t)ep << 32) | 2);
}

void rtkit_ap_set_ap_power(RTKitAP *ap, uint32_t state)
{
    mgmt_send(ap, 0xb, state);
    for (int i = 0; i < 64 && ap->ap_power != state; i++) {
        g_assert_true(rtkit_ap_process_one(ap));
    }
    g_assert_cmphex(ap->ap_power, ==, state);
}

void rtkit_ap_set_iop_power(RTKitAP *ap, uint32_t state)
{
    ap->iop_power = ~0u;
    mgmt_send(ap, 6, state);
    for (int i = 0; i < 64 && ap->iop_power != state; i++) {
        g_assert_true(rtkit_ap_process_one(ap));
    }
    g_assert_cmphex(ap->iop_power, ==, state);
}

void rtkit_ap_boot(RTKitAP *ap)
{
    rtkit_ap_set_run(ap, true);
    for (int i = 0; i < 64 && !(ap->epmap_done && ap->iop_power == 0x20);
         i++) {
        g_assert_true(rtkit_ap_process_one(ap));
    }
    g_assert_true(ap->epmap_done);
    g_assert_cmphex(ap->iop_power, ==, 0x20);
    rtkit_ap_set_ap_power(ap, 0x20);
    rtkit_ap_process_all(ap);
}

uint64_t rtkit_ap_wait_app(RTKitAP *ap, uint8_t ep)
{
    uint64_t msg;

    for (int i = 0; i < 64; i++) {
        for (guint n = 0; n < ap->app_ep->len; n++) {
            if (g_array_index(ap->app_ep, uint8_t, n) == ep) {
                msg = g_array_index(ap->app_msg0, uint64_t, n);
                g_array_remove_index(ap->app_ep, n);
                g_array_remove_index(ap->app_msg0, n);
                return msg;
            }
        }
        g_assert_true(rtkit_ap_process_one(ap));
    }
    g_assert_not_reached();
}
