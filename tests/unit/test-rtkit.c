/*
 * Unit tests for the firmware side of RTKit
 *
 * The test plays the AP: it feeds messages in with rtkit_receive() and
 * checks what comes out of the outbox, the errors reported and what the
 * firmware wrote into "AP memory".
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/apple/rtkit.h"
#include "unit-helpers.h"

/* "AP memory": IOVAs [MEM_BASE, MEM_BASE + MEM_SIZE) are accessible */
#define MEM_BASE        0x10000000ULL
#define MEM_SIZE        0x40000
#define CRASHLOG_IOVA   (MEM_BASE + 0x0000)
#define SYSLOG_IOVA     (MEM_BASE + 0x8000)
#define IOREPORT_IOVA   (MEM_BASE + 0xc000)

#define TYPE(t)         ((uint64_t)(t) << 52)
#define TYPE_OF(m)      (((m) >> 52) & 0xff)

typedef struct Fixture {
    RTKitState rtk;
    uint8_t mem[MEM_SIZE];
    GPtrArray *errors;
    int notified;
    int64_t now;
    GArray *app_msgs;
    int app_started;
    int app_stopped;
} Fixture;

static bool fx_buf_rw(void *opaque, uint64_t iova, void *buf, uint64_t len,
                      bool is_write)
{
    Fixture *fx = opaque;

    if (iova < MEM_BASE || iova + len > MEM_BASE + MEM_SIZE ||
        iova + len < iova) {
        return false;
    }
    if (is_write) {
        memcpy(fx->mem + (iova - MEM_BASE), buf, len);
    } else {
        memcpy(buf, fx->mem + (iova - MEM_BASE), len);
    }
    return true;
}

static void fx_outbox_notify(void *opaque)
{
    Fixture *fx = opaque;

    fx->notified++;
}

static void fx_guest_error(void *opaque, const char *msg)
{
    Fixture *fx = opaque;

    g_ptr_array_add(fx->errors, g_strdup(msg));
}

static int64_t fx_now_ns(void *opaque)
{
    Fixture *fx = opaque;

    return fx->now += 1000;
}

static const RTKitOps fx_ops = {
    .buf_rw = fx_buf_rw,
    .outbox_notify = fx_outbox_notify,
    .guest_error = fx_guest_error,
    .now_ns = fx_now_ns,
};

static void fx_app_start(void *opaque)
{
    Fixture *fx = opaque;

    fx->app_started++;
}

static void fx_app_message(void *opaque, uint64_t msg)
{
    Fixture *fx = opaque;

    g_array_append_val(fx->app_msgs, msg);
}

static void fx_app_stop(void *opaque)
{
    Fixture *fx = opaque;

    fx->app_stopped++;
}

/* With the application endpoints 0x20 and 0x21 (and echo on 0x2f) if @apps */
static void fx_init(Fixture *fx, bool apps)
{
    RTKitAppEndpoint app = {
        .start = fx_app_start,
        .message = fx_app_message,
        .stop = fx_app_stop,
        .opaque = fx,
    };

    memset(&fx->rtk, 0, sizeof(fx->rtk));
    fx->errors = g_ptr_array_new_with_free_func(g_free);
    fx->app_msgs = g_array_new(false, false, sizeof(uint64_t));
    fx->rtk.sys_eps = (1u << RTKIT_EP_CRASHLOG) | (1u << RTKIT_EP_SYSLOG) |
                      (1u << RTKIT_EP_IOREPORT);
    fx->rtk.fw_version = "13.5";
    fx->rtk.echo_ep = apps ? 0x2f : 0;
    rtkit_init(&fx->rtk, &fx_ops, fx);
    if (apps) {
        rtkit_register_endpoint(&fx->rtk, 0x20, &app);
        rtkit_register_endpoint(&fx->rtk, 0x21, &app);
    }
}

static void fx_setup(Fixture *fx, gconstpointer data)
{
    fx_init(fx, true);
}

/* Only the system endpoints */
static void fx_setup_no_apps(Fixture *fx, gconstpointer data)
{
    fx_init(fx, false);
}

static void fx_teardown(Fixture *fx, gconstpointer data)
{
    g_ptr_array_free(fx->errors, true);
    g_array_free(fx->app_msgs, true);
}

/* The next message for the AP must be on @ep; returns its payload */
static uint64_t expect_msg(Fixture *fx, uint8_t ep)
{
    uint64_t msg0, msg1;

    g_assert_true(rtkit_outbox_pop(&fx->rtk, &msg0, &msg1));
    g_assert_cmphex(msg1, ==, ep);
    return msg0;
}

static void expect_no_msg(Fixture *fx)
{
    uint64_t msg0, msg1;

    g_assert_false(rtkit_outbox_pop(&fx->rtk, &msg0, &msg1));
}

static void expect_error(Fixture *fx, const char *fragment)
{
    g_assert_cmpuint(fx->errors->len, >=, 1);
    if (!strstr(g_ptr_array_index(fx->errors, fx->errors->len - 1),
                fragment)) {
        g_test_message("last error: %s",
                       (char *)g_ptr_array_index(fx->errors,
                                                 fx->errors->len - 1));
        g_assert_not_reached();
    }
}

static void send_ap(Fixture *fx, uint8_t ep, uint64_t msg)
{
    rtkit_receive(&fx->rtk, msg, ep);
}

static void mgmt(Fixture *fx, unsigned type, uint64_t payload)
{
    send_ap(fx, RTKIT_EP_MGMT, TYPE(type) | payload);
}

/* HELLO .. EPMAP .. IOP power ack, as Linux's apple_rtkit_boot() sees it */
static void do_handshake(Fixture *fx)
{
    uint64_t m;

    rtkit_cpu_start(&fx->rtk);
    m = expect_msg(fx, RTKIT_EP_MGMT);
    g_assert_cmpuint(TYPE_OF(m), ==, RTKIT_MGMT_HELLO);
    mgmt(fx, RTKIT_MGMT_HELLO_REPLY, 12 | (12 << 16));
    for (;;) {
        m = expect_msg(fx, RTKIT_EP_MGMT);
        g_assert_cmpuint(TYPE_OF(m), ==, RTKIT_MGMT_EPMAP);
        if (m & (1ULL << 51)) {
            mgmt(fx, RTKIT_MGMT_EPMAP, (m & (7ULL << 32)) | (1ULL << 51));
            break;
        }
        mgmt(fx, RTKIT_MGMT_EPMAP, (m & (7ULL << 32)) | 1);
    }
    m = expect_msg(fx, RTKIT_EP_MGMT);
    g_assert_cmpuint(TYPE_OF(m), ==, RTKIT_MGMT_SET_IOP_PWR_STATE_ACK);
    g_assert_cmphex(m & 0xffff, ==, RTKIT_PWR_ON);
}

static void start_ep(Fixture *fx, uint8_t ep)
{
    mgmt(fx, RTKIT_MGMT_STARTEP, ((uint64_t)ep << 32) | 2);
}

/* Start a system endpoint and answer its buffer request with @iova */
static void start_buffer_ep(Fixture *fx, uint8_t ep, uint64_t iova)
{
    uint64_t m, pages;

    start_ep(fx, ep);
    m = expect_msg(fx, ep);
    g_assert_cmpuint(TYPE_OF(m), ==, 1);
    g_assert_cmphex(m & ((1ULL << 44) - 1), ==, 0);
    pages = (m >> 44) & 0xff;
    g_assert_cmpuint(pages, >, 0);
    send_ap(fx, ep, TYPE(1) | (pages << 44) | iova);
}

static void set_ap_power(Fixture *fx, unsigned state)
{
    uint64_t m;

    mgmt(fx, RTKIT_MGMT_SET_AP_PWR_STATE, state);
    m = expect_msg(fx, RTKIT_EP_MGMT);
    g_assert_cmpuint(TYPE_OF(m), ==, RTKIT_MGMT_SET_AP_PWR_STATE);
    g_assert_cmphex(m & 0xffff, ==, state);
}

static void set_iop_power(Fixture *fx, unsigned state)
{
    uint64_t m;

    mgmt(fx, RTKIT_MGMT_SET_IOP_PWR_STATE, state);
    m = expect_msg(fx, RTKIT_EP_MGMT);
    g_assert_cmpuint(TYPE_OF(m), ==, RTKIT_MGMT_SET_IOP_PWR_STATE_ACK);
    g_assert_cmphex(m & 0xffff, ==, state);
}

/* Handshake, all system endpoints with buffers, AP power on */
static void do_boot(Fixture *fx)
{
    uint64_t m;

    do_handshake(fx);
    start_buffer_ep(fx, RTKIT_EP_CRASHLOG, CRASHLOG_IOVA);
    start_buffer_ep(fx, RTKIT_EP_SYSLOG, SYSLOG_IOVA);
    m = expect_msg(fx, RTKIT_EP_SYSLOG);
    g_assert_cmpuint(TYPE_OF(m), ==, 8);                /* INIT */
    m = expect_msg(fx, RTKIT_EP_SYSLOG);
    g_assert_cmpuint(TYPE_OF(m), ==, 5);                /* LOG */
    send_ap(fx, RTKIT_EP_SYSLOG, m);                    /* ack */
    start_buffer_ep(fx, RTKIT_EP_IOREPORT, IOREPORT_IOVA);
    set_ap_power(fx, RTKIT_PWR_ON);
    expect_no_msg(fx);
    g_assert_true(rtkit_is_running(&fx->rtk));
    g_assert_cmpuint(fx->errors->len, ==, 0);
}

static void test_hello_offers_11_to_12(Fixture *fx, gconstpointer data)
{
    uint64_t m;

    expect_no_msg(fx);
    rtkit_cpu_start(&fx->rtk);
    g_assert_cmpint(fx->notified, ==, 1);
    m = expect_msg(fx, RTKIT_EP_MGMT);
    g_assert_cmphex(m, ==, TYPE(RTKIT_MGMT_HELLO) | 11 | (12 << 16));
    expect_no_msg(fx);
}

static void test_epmap_lists_system_endpoints(Fixture *fx, gconstpointer d)
{
    uint64_t m;

    rtkit_cpu_start(&fx->rtk);
    expect_msg(fx, RTKIT_EP_MGMT);
    mgmt(fx, RTKIT_MGMT_HELLO_REPLY, 12 | (12 << 16));
    m = expect_msg(fx, RTKIT_EP_MGMT);
    /* block 0 alone: crashlog, syslog, ioreport */
    g_assert_cmphex(m, ==, TYPE(RTKIT_MGMT_EPMAP) | (1ULL << 51) |
                    (1u << 1) | (1u << 2) | (1u << 4));
}

static void test_epmap_spans_blocks(Fixture *fx, gconstpointer data)
{
    uint64_t m;

    rtkit_cpu_start(&fx->rtk);
    expect_msg(fx, RTKIT_EP_MGMT);
    mgmt(fx, RTKIT_MGMT_HELLO_REPLY, 11 | (11 << 16));
    m = expect_msg(fx, RTKIT_EP_MGMT);
    g_assert_cmphex(m, ==, TYPE(RTKIT_MGMT_EPMAP) | 0x16);
    expect_no_msg(fx);
    mgmt(fx, RTKIT_MGMT_EPMAP, 1);                      /* MORE */
    m = expect_msg(fx, RTKIT_EP_MGMT);
    /* block 1 (eps 0x20..0x3f): 0x20, 0x21 and echo 0x2f; last */
    g_assert_cmphex(m, ==, TYPE(RTKIT_MGMT_EPMAP) | (1ULL << 51) |
                    (1ULL << 32) | 0x3 | (1u << 0xf));
    /* No power ack before the AP acknowledges the last block */
    expect_no_msg(fx);
    mgmt(fx, RTKIT_MGMT_EPMAP, (1ULL << 32) | (1ULL << 51));
    m = expect_msg(fx, RTKIT_EP_MGMT);
    g_assert_cmphex(m, ==, TYPE(RTKIT_MGMT_SET_IOP_PWR_STATE_ACK) | 0x20);
    g_assert_cmpuint(fx->rtk.version, ==, 11);
    g_assert_cmpuint(fx->errors->len, ==, 0);
}

static void test_full_boot(Fixture *fx, gconstpointer data)
{
    do_boot(fx);
    g_assert_cmpint(fx->rtk.crashlog.state, ==, RTKIT_BUF_READY);
    g_assert_cmphex(fx->rtk.syslog.iova, ==, SYSLOG_IOVA);
}

static void test_syslog_line_in_buffer(Fixture *fx, gconstpointer data)
{
    const uint32_t stride = 0x20 + RTKIT_SYSLOG_MSG_SIZE;
    uint8_t *entry;
    uint64_t m;

    do_boot(fx);
    rtkit_syslog(&fx->rtk, "gpu", "hello from the firmware");
    m = expect_msg(fx, RTKIT_EP_SYSLOG);
    g_assert_cmphex(m, ==, TYPE(5) | 1);                /* entry 1 */
    entry = fx->mem + (SYSLOG_IOVA - MEM_BASE) + stride;
    g_assert_cmpstr((char *)entry + 8, ==, "gpu");
    g_assert_cmpstr((char *)entry + 0x20, ==, "hello from the firmware");
    /* The first line, at boot, is in entry 0 */
    g_assert_cmpstr((char *)entry - stride + 0x20, ==,
                    "firmware up, syslog ready");
}

static void test_syslog_waits_for_acks(Fixture *fx, gconstpointer data)
{
    do_boot(fx);
    /* Entry 0 was acked during boot: 16 more lines fill the ring */
    for (int i = 0; i < RTKIT_SYSLOG_ENTRIES; i++) {
        rtkit_syslog(&fx->rtk, "t", "line");
        g_assert_cmphex(expect_msg(fx, RTKIT_EP_SYSLOG), ==,
                        TYPE(5) | ((i + 1) % RTKIT_SYSLOG_ENTRIES));
    }
    rtkit_syslog(&fx->rtk, "t", "lost");
    expect_no_msg(fx);
    g_assert_cmpuint(fx->rtk.syslog_dropped, ==, 1);
    /* Entry 1 is next: acking another one does not help */
    send_ap(fx, RTKIT_EP_SYSLOG, TYPE(5) | 5);
    rtkit_syslog(&fx->rtk, "t", "lost too");
    expect_no_msg(fx);
    send_ap(fx, RTKIT_EP_SYSLOG, TYPE(5) | 1);
    rtkit_syslog(&fx->rtk, "t", "kept");
    g_assert_cmphex(expect_msg(fx, RTKIT_EP_SYSLOG), ==, TYPE(5) | 1);
    g_assert_cmpuint(fx->errors->len, ==, 0);
    /* Acks for entries not in flight are guest errors */
    send_ap(fx, RTKIT_EP_SYSLOG, TYPE(5) | 5);
    expect_error(fx, "syslog entry 5");
    send_ap(fx, RTKIT_EP_SYSLOG, TYPE(5) | 200);
    expect_error(fx, "syslog entry 200");
}

static void test_app_endpoint_dispatch(Fixture *fx, gconstpointer data)
{
    do_boot(fx);
    start_ep(fx, 0x20);
    g_assert_cmpint(fx->app_started, ==, 1);
    send_ap(fx, 0x20, 0x1234);
    g_assert_cmpuint(fx->app_msgs->len, ==, 1);
    g_assert_cmphex(g_array_index(fx->app_msgs, uint64_t, 0), ==, 0x1234);
    rtkit_send(&fx->rtk, 0x20, 0x5678);
    g_assert_cmphex(expect_msg(fx, 0x20), ==, 0x5678);
    /* 0x21 is advertised but not started */
    send_ap(fx, 0x21, 1);
    expect_error(fx, "not started");
    g_assert_cmpuint(fx->app_msgs->len, ==, 1);
}

static void test_echo_endpoint(Fixture *fx, gconstpointer data)
{
    do_boot(fx);
    start_ep(fx, 0x2f);
    send_ap(fx, 0x2f, 0x0123456789abcdefULL);
    g_assert_cmphex(expect_msg(fx, 0x2f), ==, ~0x0123456789abcdefULL);
}

static void test_app_message_while_idle(Fixture *fx, gconstpointer data)
{
    do_boot(fx);
    start_ep(fx, 0x20);
    set_ap_power(fx, RTKIT_PWR_IDLE);
    set_iop_power(fx, RTKIT_PWR_IDLE);
    g_assert_false(rtkit_is_running(&fx->rtk));
    send_ap(fx, 0x20, 1);
    expect_error(fx, "powered down");
    g_assert_cmpuint(fx->app_msgs->len, ==, 0);
    /* Wake from idle: no new handshake, an immediate ack */
    set_iop_power(fx, RTKIT_PWR_ON);
    set_ap_power(fx, RTKIT_PWR_ON);
    send_ap(fx, 0x20, 2);
    g_assert_cmpuint(fx->app_msgs->len, ==, 1);
}

static void test_shutdown_and_wake_reboots(Fixture *fx, gconstpointer data)
{
    uint64_t m;

    do_boot(fx);
    start_ep(fx, 0x20);
    set_ap_power(fx, RTKIT_PWR_QUIESCED);
    set_iop_power(fx, RTKIT_PWR_SLEEP);
    g_assert_cmpint(fx->app_stopped, ==, 1);
    g_assert_cmpint(fx->rtk.crashlog.state, ==, RTKIT_BUF_NONE);
    /* Waking after sleep starts over with HELLO; the ack follows EPMAP */
    mgmt(fx, RTKIT_MGMT_SET_IOP_PWR_STATE, RTKIT_PWR_ON);
    m = expect_msg(fx, RTKIT_EP_MGMT);
    g_assert_cmpuint(TYPE_OF(m), ==, RTKIT_MGMT_HELLO);
    mgmt(fx, RTKIT_MGMT_HELLO_REPLY, 12 | (12 << 16));
    expect_msg(fx, RTKIT_EP_MGMT);
    mgmt(fx, RTKIT_MGMT_EPMAP, 1);
    expect_msg(fx, RTKIT_EP_MGMT);
    mgmt(fx, RTKIT_MGMT_EPMAP, (1ULL << 32) | (1ULL << 51));
    m = expect_msg(fx, RTKIT_EP_MGMT);
    g_assert_cmphex(m, ==, TYPE(RTKIT_MGMT_SET_IOP_PWR_STATE_ACK) | 0x20);
    start_buffer_ep(fx, RTKIT_EP_CRASHLOG, CRASHLOG_IOVA);
    set_ap_power(fx, RTKIT_PWR_ON);
    g_assert_true(rtkit_is_running(&fx->rtk));
    g_assert_cmpuint(fx->errors->len, ==, 0);
}

static void test_no_iop_power_ack_knob(Fixture *fx, gconstpointer data)
{
    fx->rtk.no_iop_power_ack = true;
    rtkit_cpu_start(&fx->rtk);
    expect_msg(fx, RTKIT_EP_MGMT);
    mgmt(fx, RTKIT_MGMT_HELLO_REPLY, 12 | (12 << 16));
    expect_msg(fx, RTKIT_EP_MGMT);
    mgmt(fx, RTKIT_MGMT_EPMAP, 1);
    expect_msg(fx, RTKIT_EP_MGMT);
    mgmt(fx, RTKIT_MGMT_EPMAP, (1ULL << 32) | (1ULL << 51));
    expect_no_msg(fx);
}

/* Walk a crash log the way Linux's rtkit-crashlog.c does */
static void check_crashlog(Fixture *fx, const char *reason)
{
    const uint8_t *log = fx->mem + (CRASHLOG_IOVA - MEM_BASE);
    uint32_t size = apple_ld32(log + 8);
    bool seen_str = false, seen_ver = false, seen_mbx = false;
    bool seen_tim = false, seen_footer = false;
    uint32_t off = 0x20;

    g_assert_cmphex(apple_ld32(log), ==, 0x434c4845);     /* 'CLHE' */
    g_assert_cmpuint(size, <=, RTKIT_CRASHLOG_SIZE);
    for (int n = 0; off < size && n < 100; n++) {
        uint32_t fourcc = apple_ld32(log + off);
        uint32_t ssize = apple_ld32(log + off + 12);
        const uint8_t *p = log + off + 16;

        if (fourcc == 0x434c4845) {
            seen_footer = true;
            break;
        }
        g_assert_cmpuint(ssize, >=, 16);
        switch (fourcc) {
        case 0x43737472:                                /* 'Cstr' */
            g_assert_cmpstr((const char *)p + 4, ==, reason);
            /* The parser reads section_size bytes from the payload */
            g_assert_null(memchr(p + 4 + strlen(reason), '\n', ssize - 4 -
                                 strlen(reason)));
            seen_str = true;
            break;
        case 0x43766572:                                /* 'Cver' */
            g_assert_nonnull(strstr((const char *)p + 16, "13.5"));
            seen_ver = true;
            break;
        case 0x4374696d:                                /* 'Ctim' */
            g_assert_cmpuint(apple_ld64(p), >, 0);
            seen_tim = true;
            break;
        case 0x436d6278:                                /* 'Cmbx' */
            g_assert_cmpuint((ssize - 28) / 0x18, ==, RTKIT_HISTORY_LEN);
            seen_mbx = true;
            break;
        default:
            g_assert_not_reached();
        }
        off += ssize;
    }
    g_assert_true(seen_str && seen_ver && seen_tim && seen_mbx &&
                  seen_footer);
}

static void test_crash_writes_log_and_reports(Fixture *fx, gconstpointer d)
{
    uint64_t m;

    do_boot(fx);
    start_ep(fx, 0x20);
    rtkit_crash(&fx->rtk, "test crash");
    check_crashlog(fx, "test crash");
    m = expect_msg(fx, RTKIT_EP_CRASHLOG);
    g_assert_cmpuint(TYPE_OF(m), ==, 1);
    g_assert_cmphex(m & ((1ULL << 44) - 1), ==, CRASHLOG_IOVA);
    g_assert_true(rtkit_is_dead(&fx->rtk));
    g_assert_cmpint(fx->app_stopped, ==, 1);
    /* Dead: everything is ignored, even a wake-up */
    mgmt(fx, RTKIT_MGMT_SET_IOP_PWR_STATE, RTKIT_PWR_ON);
    send_ap(fx, 0x20, 1);
    expect_no_msg(fx);
    g_assert_cmpuint(fx->app_msgs->len, ==, 0);
    /* Until the CPU is restarted */
    rtkit_cpu_stop(&fx->rtk);
    do_handshake(fx);
}

static void test_crash_before_crashlog_buffer(Fixture *fx, gconstpointer d)
{
    do_handshake(fx);
    rtkit_crash(&fx->rtk, "early");
    expect_no_msg(fx);
    g_assert_true(rtkit_is_dead(&fx->rtk));
}

static void test_bad_hello_reply_crashes(Fixture *fx, gconstpointer data)
{
    rtkit_cpu_start(&fx->rtk);
    expect_msg(fx, RTKIT_EP_MGMT);
    mgmt(fx, RTKIT_MGMT_HELLO_REPLY, 13 | (13 << 16));
    expect_error(fx, "HELLO_REPLY picks version 13");
    g_assert_true(rtkit_is_dead(&fx->rtk));
    expect_no_msg(fx);
}

static void test_out_of_order_is_ignored(Fixture *fx, gconstpointer data)
{
    uint64_t m;

    rtkit_cpu_start(&fx->rtk);
    expect_msg(fx, RTKIT_EP_MGMT);
    mgmt(fx, RTKIT_MGMT_EPMAP, 1ULL << 51);
    expect_error(fx, "EPMAP reply without EPMAP");
    start_ep(fx, RTKIT_EP_SYSLOG);
    expect_error(fx, "before the endpoint map");
    expect_no_msg(fx);
    /* The handshake still works afterwards */
    mgmt(fx, RTKIT_MGMT_HELLO_REPLY, 12 | (12 << 16));
    m = expect_msg(fx, RTKIT_EP_MGMT);
    g_assert_cmpuint(TYPE_OF(m), ==, RTKIT_MGMT_EPMAP);
    /* A reply for the wrong block */
    mgmt(fx, RTKIT_MGMT_EPMAP, (3ULL << 32) | (1ULL << 51));
    expect_error(fx, "expected block 0");
    mgmt(fx, RTKIT_MGMT_HELLO_REPLY, 12 | (12 << 16));
    expect_error(fx, "without HELLO");
    g_assert_false(rtkit_is_dead(&fx->rtk));
}

static void test_bad_messages_are_guest_errors(Fixture *fx, gconstpointer d)
{
    do_boot(fx);
    mgmt(fx, 0x3, 0);
    expect_error(fx, "unknown management message type 0x3");
    start_ep(fx, 0x30);
    expect_error(fx, "not in the endpoint map");
    start_ep(fx, RTKIT_EP_SYSLOG);
    expect_error(fx, "started twice");
    send_ap(fx, RTKIT_EP_SYSLOG, TYPE(0x42));
    expect_error(fx, "unknown syslog message");
    send_ap(fx, RTKIT_EP_CRASHLOG, TYPE(0x2));
    expect_error(fx, "unknown crashlog message");
    send_ap(fx, RTKIT_EP_IOREPORT, TYPE(0x3));
    expect_error(fx, "unknown ioreport message");
    send_ap(fx, RTKIT_EP_IOREPORT, TYPE(0x8) | 0x1234);   /* echo: fine */
    send_ap(fx, 0x99, 0);
    expect_error(fx, "not started");
    mgmt(fx, RTKIT_MGMT_SET_IOP_PWR_STATE, 0x77);
    expect_error(fx, "unknown IOP power state");
    mgmt(fx, RTKIT_MGMT_SET_AP_PWR_STATE, 0x77);
    expect_error(fx, "unknown AP power state");
    send_ap(fx, RTKIT_EP_CRASHLOG, TYPE(1) | (4ULL << 44) | CRASHLOG_IOVA);
    expect_error(fx, "unrequested buffer");
    expect_no_msg(fx);
    g_assert_true(rtkit_is_running(&fx->rtk));
}

static void test_wild_buffer_iova_crashes(Fixture *fx, gconstpointer data)
{
    uint64_t m;

    do_handshake(fx);
    start_buffer_ep(fx, RTKIT_EP_CRASHLOG, CRASHLOG_IOVA);
    /* syslog buffer outside AP memory: the firmware crashes, with a log */
    start_buffer_ep(fx, RTKIT_EP_SYSLOG, 0xdead0000000ULL);
    expect_error(fx, "not accessible");
    m = expect_msg(fx, RTKIT_EP_CRASHLOG);
    g_assert_cmphex(m & ((1ULL << 44) - 1), ==, CRASHLOG_IOVA);
    check_crashlog(fx, "bad buffer from AP");
    g_assert_true(rtkit_is_dead(&fx->rtk));
}

static void test_short_buffer_crashes(Fixture *fx, gconstpointer data)
{
    do_handshake(fx);
    start_ep(fx, RTKIT_EP_CRASHLOG);
    expect_msg(fx, RTKIT_EP_CRASHLOG);
    send_ap(fx, RTKIT_EP_CRASHLOG, TYPE(1) | (1ULL << 44) | CRASHLOG_IOVA);
    expect_error(fx, "need 0x4000 bytes");
    g_assert_true(rtkit_is_dead(&fx->rtk));
    expect_no_msg(fx);
}

static void test_outbox_overflow_is_bounded(Fixture *fx, gconstpointer d)
{
    int n = 0;
    uint64_t m0, m1;

    do_boot(fx);
    start_ep(fx, 0x2f);
    for (int i = 0; i < RTKIT_OUTBOX_LEN + 10; i++) {
        send_ap(fx, 0x2f, i);
    }
    expect_error(fx, "does not drain");
    g_assert_cmpuint(fx->rtk.outbox_dropped, ==, 10);
    while (rtkit_outbox_pop(&fx->rtk, &m0, &m1)) {
        g_assert_cmphex(m0, ==, ~(uint64_t)n);
        n++;
    }
    g_assert_cmpint(n, ==, RTKIT_OUTBOX_LEN);
}

static void test_stopped_cpu_ignores_messages(Fixture *fx, gconstpointer d)
{
    mgmt(fx, RTKIT_MGMT_HELLO_REPLY, 12 | (12 << 16));
    expect_no_msg(fx);
    g_assert_cmpuint(fx->errors->len, ==, 0);
}

/* oslog's buffer request has its own layout: bytes, and IOVA in pages */
static void test_oslog_buffer(Fixture *fx, gconstpointer data)
{
    uint64_t m;

    fx->rtk.sys_eps |= 1u << RTKIT_EP_OSLOG;
    do_handshake(fx);
    start_ep(fx, RTKIT_EP_OSLOG);
    m = expect_msg(fx, RTKIT_EP_OSLOG);
    g_assert_cmphex(m, ==, (1ULL << 56) | ((uint64_t)RTKIT_OSLOG_SIZE << 36));
    /* The AP answers in the same layout; a short buffer is refused */
    send_ap(fx, RTKIT_EP_OSLOG, (1ULL << 56) | (0x1000ULL << 36) |
            (IOREPORT_IOVA >> 12));
    expect_error(fx, "oslog buffer of 0x1000 bytes");
    g_assert_true(rtkit_is_dead(&fx->rtk));
}

static void test_oslog_reply(Fixture *fx, gconstpointer data)
{
    fx->rtk.sys_eps |= 1u << RTKIT_EP_OSLOG;
    do_handshake(fx);
    start_ep(fx, RTKIT_EP_OSLOG);
    expect_msg(fx, RTKIT_EP_OSLOG);
    send_ap(fx, RTKIT_EP_OSLOG, (1ULL << 56) |
            ((uint64_t)RTKIT_OSLOG_SIZE << 36) | (CRASHLOG_IOVA >> 12));
    g_assert_cmpint(fx->rtk.oslog.state, ==, RTKIT_BUF_READY);
    g_assert_cmphex(fx->rtk.oslog.iova, ==, CRASHLOG_IOVA);
    send_ap(fx, RTKIT_EP_OSLOG, 5ULL << 56);
    expect_error(fx, "unknown oslog message");
}

static void test_describe(Fixture *fx, gconstpointer data)
{
    char buf[96];

    rtkit_describe(0, TYPE(1) | 11 | (12 << 16), true, buf, sizeof(buf));
    g_assert_cmpstr(buf, ==, "HELLO min 11 max 12");
    rtkit_describe(0, TYPE(8) | (1ULL << 51) | (1ULL << 32) | 3, true,
                   buf, sizeof(buf));
    g_assert_cmpstr(buf, ==, "EPMAP base 1 bitmap 0x00000003 last");
    rtkit_describe(0, TYPE(5) | (0x20ULL << 32) | 2, false, buf, sizeof(buf));
    g_assert_cmpstr(buf, ==, "STARTEP ep 0x20");
    rtkit_describe(0, TYPE(0xb) | 0x20, false, buf, sizeof(buf));
    g_assert_cmpstr(buf, ==, "SET_AP_PWR_STATE state 0x20");
    rtkit_describe(2, TYPE(5) | 3, true, buf, sizeof(buf));
    g_assert_cmpstr(buf, ==, "LOG index 3");
    rtkit_describe(1, TYPE(1) | (4ULL << 44), true, buf, sizeof(buf));
    g_assert_cmpstr(buf, ==, "BUFFER pages 4 iova 0x0");
    g_assert_cmpstr(rtkit_ep_name(0x20), ==, "app");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    FX_ADD("/rtkit/boot/hello-offers-versions-11-to-12",
           test_hello_offers_11_to_12);
    g_test_add("/rtkit/boot/epmap-lists-system-endpoints", Fixture, NULL,
               fx_setup_no_apps, test_epmap_lists_system_endpoints,
               fx_teardown);
    FX_ADD("/rtkit/boot/epmap-spans-blocks-then-acks-power",
           test_epmap_spans_blocks);
    FX_ADD("/rtkit/boot/full-boot-with-buffers", test_full_boot);
    FX_ADD("/rtkit/boot/no-iop-power-ack-knob-withholds-ack",
           test_no_iop_power_ack_knob);
    FX_ADD("/rtkit/syslog/line-lands-in-buffer", test_syslog_line_in_buffer);
    FX_ADD("/rtkit/syslog/entries-wait-for-acks", test_syslog_waits_for_acks);
    FX_ADD("/rtkit/app/messages-reach-started-endpoints",
           test_app_endpoint_dispatch);
    FX_ADD("/rtkit/app/echo-endpoint-answers-complement", test_echo_endpoint);
    FX_ADD("/rtkit/power/idle-blocks-app-messages-and-wakes",
           test_app_message_while_idle);
    FX_ADD("/rtkit/power/shutdown-then-wake-reboots",
           test_shutdown_and_wake_reboots);
    FX_ADD("/rtkit/crash/writes-log-and-reports",
           test_crash_writes_log_and_reports);
    FX_ADD("/rtkit/crash/before-crashlog-buffer-is-silent",
           test_crash_before_crashlog_buffer);
    FX_ADD("/rtkit/bad/hello-reply-version-crashes",
           test_bad_hello_reply_crashes);
    FX_ADD("/rtkit/bad/out-of-order-is-ignored", test_out_of_order_is_ignored);
    FX_ADD("/rtkit/bad/messages-are-guest-errors",
           test_bad_messages_are_guest_errors);
    FX_ADD("/rtkit/bad/wild-buffer-iova-crashes-with-log",
           test_wild_buffer_iova_crashes);
    FX_ADD("/rtkit/bad/short-buffer-crashes", test_short_buffer_crashes);
    FX_ADD("/rtkit/bad/outbox-overflow-is-bounded",
           test_outbox_overflow_is_bounded);
    FX_ADD("/rtkit/bad/stopped-cpu-ignores-messages",
           test_stopped_cpu_ignores_messages);
    FX_ADD("/rtkit/oslog/buffer-reply-is-used", test_oslog_reply);
    FX_ADD("/rtkit/oslog/short-buffer-crashes", test_oslog_buffer);
    FX_ADD("/rtkit/trace/describe-decodes-messages", test_describe);
    return g_test_run();
}
