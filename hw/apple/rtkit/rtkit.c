/*
 * RTKit, firmware side
 *
 * The management endpoint (HELLO, EPMAP, STARTEP, power states), the system
 * endpoints (crash log, syslog, ioreport) and dispatch to application
 * endpoints, as Linux's drivers/soc/apple/rtkit.c expects them from a real
 * coprocessor.  Every reaction to bad AP input is deterministic: the message
 * is reported as a guest error and then ignored, or the firmware crashes
 * the way real RTKit does.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/apple/apple-bits.h"
#include "hw/apple/rtkit.h"

/* Every RTKit message has its type in bits 59:52 (oslog excepted) */
APPLE_FIELD(RTKIT_MSG, TYPE, 52, 8);

APPLE_FIELD(RTKIT_HELLO, MINVER, 0, 16);
APPLE_FIELD(RTKIT_HELLO, MAXVER, 16, 16);
APPLE_FIELD(RTKIT_EPMAP, BITMAP, 0, 32);
APPLE_FIELD(RTKIT_EPMAP, BASE, 32, 3);
APPLE_FIELD(RTKIT_EPMAP, LAST, 51, 1);
APPLE_FIELD(RTKIT_EPMAP, MORE, 0, 1);
APPLE_FIELD(RTKIT_STARTEP, FLAG, 1, 1);
APPLE_FIELD(RTKIT_STARTEP, EP, 32, 8);
APPLE_FIELD(RTKIT_PWR, STATE, 0, 16);

APPLE_FIELD(RTKIT_BUFFER, IOVA, 0, 44);
APPLE_FIELD(RTKIT_BUFFER, PAGES, 44, 8);
/* oslog has its own layout: type 63:56, size in bytes, IOVA in pages */
APPLE_FIELD(RTKIT_OSLOG, TYPE, 56, 8);
APPLE_FIELD(RTKIT_OSLOG, SIZE, 36, 20);
APPLE_FIELD(RTKIT_OSLOG, IOVA_PAGE, 0, 36);
APPLE_FIELD(RTKIT_SYSLOG, N_ENTRIES, 0, 8);
APPLE_FIELD(RTKIT_SYSLOG, MSG_SIZE, 24, 8);
APPLE_FIELD(RTKIT_SYSLOG, INDEX, 0, 8);

enum {
    RTKIT_BUFFER_REQUEST = 1,   /* also "crashed" once the buffer exists */
    RTKIT_SYSLOG_LOG = 5,
    RTKIT_SYSLOG_INIT = 8,
    RTKIT_IOREPORT_ECHO_A = 0x8,
    RTKIT_IOREPORT_ECHO_B = 0xc,
};

#define RTKIT_PAGE_SIZE         0x1000

/* A syslog entry: a header with the context, then the text */
enum {
    RTKIT_SYSLOG_ENTRY_CTX = 0x08,
    RTKIT_SYSLOG_ENTRY_MSG = 0x20,
    RTKIT_SYSLOG_ENTRY_SIZE = RTKIT_SYSLOG_ENTRY_MSG + RTKIT_SYSLOG_MSG_SIZE,
};

/*
 * The crash log, as Linux's rtkit-crashlog.c reads it: a header, sections
 * (a 16-byte header, then the payload), and a footer section carrying the
 * header's fourcc.  Offsets in the payload of each section.
 */
enum {
    RTKIT_CRASHLOG_VERSION = 0x04,      /* in the header */
    RTKIT_CRASHLOG_TOTAL_SIZE = 0x08,
    RTKIT_CRASHLOG_HEADER_SIZE = 0x20,
    RTKIT_CRASHLOG_SEC_FOURCC = 0x00,   /* in a section header */
    RTKIT_CRASHLOG_SEC_SIZE = 0x0c,
    RTKIT_CRASHLOG_SEC_HEADER_SIZE = 0x10,
    RTKIT_CRASHLOG_CVER_TEXT = 0x10,    /* Cver: version string */
    RTKIT_CRASHLOG_CSTR_TEXT = 0x04,    /* Cstr: the reason */
    RTKIT_CRASHLOG_CSTR_PAD = 0x10,     /* NULs the AP may scan */
    RTKIT_CRASHLOG_CMBX_INDEX = 0x18,   /* Cmbx: next history entry */
    RTKIT_CRASHLOG_CMBX_ENTRIES = 0x1c,
    RTKIT_CRASHLOG_MBX_MSG0 = 0x00,     /* a Cmbx entry */
    RTKIT_CRASHLOG_MBX_MSG1 = 0x08,
    RTKIT_CRASHLOG_MBX_TIME = 0x10,
    RTKIT_CRASHLOG_MBX_SIZE = 0x18,
};
#define RTKIT_CRASHLOG_FORMAT   2
#define RTKIT_FOURCC(a, b, c, d) \
    (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

static void G_GNUC_PRINTF(2, 3) rtkit_error(RTKitState *rtk,
                                            const char *fmt, ...)
{
    va_list ap;
    g_autofree char *msg = NULL;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    rtk->ops->guest_error(rtk->opaque, msg);
}

static void rtkit_history(RTKitState *rtk, uint64_t msg0, uint64_t msg1)
{
    uint32_t i = rtk->history_next % RTKIT_HISTORY_LEN;

    rtk->history_msg0[i] = msg0;
    rtk->history_msg1[i] = msg1;
    /* Microseconds, as a 32-bit time stamp */
    rtk->history_time[i] = rtk->ops->now_ns(rtk->opaque) / 1000;
    rtk->history_next++;
}

static void rtkit_push(RTKitState *rtk, uint8_t ep, uint64_t msg)
{
    uint32_t tail;

    if (rtk->outbox_count == RTKIT_OUTBOX_LEN) {
        /* The AP stopped reading: a real firmware would stall here */
        rtk->outbox_dropped++;
        rtkit_error(rtk, "RTKit: AP does not drain the mailbox, message "
                    "0x%016" G_GINT64_MODIFIER "x to ep 0x%02x dropped",
                    msg, ep);
        return;
    }
    tail = (rtk->outbox_head + rtk->outbox_count) % RTKIT_OUTBOX_LEN;
    rtk->outbox_msg[tail] = msg;
    rtk->outbox_ep[tail] = ep;
    rtk->outbox_count++;
    rtkit_history(rtk, msg, ep);
    rtk->ops->outbox_notify(rtk->opaque);
}

static void rtkit_send_typed(RTKitState *rtk, uint8_t ep, unsigned type,
                             uint64_t payload)
{
    rtkit_push(rtk, ep, APPLE_FIELD_DP64(payload, RTKIT_MSG, TYPE, type));
}

bool rtkit_outbox_pop(RTKitState *rtk, uint64_t *msg0, uint64_t *msg1)
{
    if (!rtk->outbox_count) {
        return false;
    }
    *msg0 = rtk->outbox_msg[rtk->outbox_head];
    *msg1 = rtk->outbox_ep[rtk->outbox_head];
    rtk->outbox_head = (rtk->outbox_head + 1) % RTKIT_OUTBOX_LEN;
    rtk->outbox_count--;
    return true;
}

bool rtkit_outbox_pending(const RTKitState *rtk, uint8_t ep, uint64_t msg)
{
    for (uint32_t i = 0; i < rtk->outbox_count; i++) {
        uint32_t n = (rtk->outbox_head + i) % RTKIT_OUTBOX_LEN;

        if (rtk->outbox_ep[n] == ep && rtk->outbox_msg[n] == msg) {
            return true;
        }
    }
    return false;
}

bool rtkit_ep_started(const RTKitState *rtk, uint8_t ep)
{
    return rtk->started[ep / 64] & (1ULL << (ep % 64));
}

static void rtkit_set_started(RTKitState *rtk, uint8_t ep, bool on)
{
    if (on) {
        rtk->started[ep / 64] |= 1ULL << (ep % 64);
    } else {
        rtk->started[ep / 64] &= ~(1ULL << (ep % 64));
    }
}

static bool rtkit_ep_advertised(const RTKitState *rtk, unsigned ep)
{
    if (ep < RTKIT_APP_EP_START) {
        return ep == RTKIT_EP_MGMT || (rtk->sys_eps & (1u << ep));
    }
    return rtk->app_map[ep / 32] & (1u << (ep % 32));
}

bool rtkit_is_running(const RTKitState *rtk)
{
    return rtk->boot_state == RTKIT_RUNNING &&
           (rtk->iop_power & 0xff) == RTKIT_PWR_ON &&
           (rtk->ap_power & 0xff) == RTKIT_PWR_ON;
}

bool rtkit_is_dead(const RTKitState *rtk)
{
    return rtk->boot_state == RTKIT_DEAD;
}

/* Forget every endpoint, buffer and pending message: a fresh boot */
static void rtkit_forget(RTKitState *rtk)
{
    /* Started application endpoints, in ascending order */
    for (int w = 0; w < G_N_ELEMENTS(rtk->started); w++) {
        for (uint64_t bits = rtk->started[w]; bits; bits &= bits - 1) {
            unsigned ep = w * 64 + __builtin_ctzll(bits);
            RTKitAppEndpoint *app;

            if (ep < RTKIT_APP_EP_START) {
                continue;
            }
            app = &rtk->app[ep - RTKIT_APP_EP_START];
            if (app->stop) {
                app->stop(app->opaque);
            }
        }
    }
    memset(rtk->started, 0, sizeof(rtk->started));
    memset(&rtk->crashlog, 0, sizeof(rtk->crashlog));
    memset(&rtk->syslog, 0, sizeof(rtk->syslog));
    memset(&rtk->ioreport, 0, sizeof(rtk->ioreport));
    memset(&rtk->oslog, 0, sizeof(rtk->oslog));
    rtk->syslog_init_sent = false;
    rtk->syslog_next = 0;
    rtk->syslog_busy = 0;
    rtk->version = 0;
    rtk->epmap_block = 0;
    rtk->iop_ack_pending = false;
}

static void rtkit_send_hello(RTKitState *rtk)
{
    uint64_t msg = 0;

    msg = APPLE_FIELD_DP64(msg, RTKIT_HELLO, MINVER, rtk->hello_min);
    msg = APPLE_FIELD_DP64(msg, RTKIT_HELLO, MAXVER, rtk->hello_max);
    rtk->boot_state = RTKIT_WAIT_HELLO_REPLY;
    rtkit_send_typed(rtk, RTKIT_EP_MGMT, RTKIT_MGMT_HELLO, msg);
}

/* Boot the firmware: everything starts over with HELLO */
static void rtkit_boot(RTKitState *rtk)
{
    rtkit_forget(rtk);
    rtk->iop_power = RTKIT_PWR_ON;
    rtk->ap_power = RTKIT_PWR_OFF;
    rtk->iop_ack_pending = true;
    rtkit_send_hello(rtk);
}

void rtkit_cpu_start(RTKitState *rtk)
{
    rtk->outbox_head = rtk->outbox_count = 0;
    rtkit_boot(rtk);
}

void rtkit_cpu_stop(RTKitState *rtk)
{
    rtkit_forget(rtk);
    rtk->boot_state = RTKIT_STOPPED;
    rtk->iop_power = rtk->ap_power = RTKIT_PWR_OFF;
    rtk->outbox_head = rtk->outbox_count = 0;
}

/* Block 0 holds the system endpoints (all below RTKIT_APP_EP_START) */
G_STATIC_ASSERT(RTKIT_APP_EP_START == 32);

static uint32_t rtkit_epmap_bits(const RTKitState *rtk, unsigned block)
{
    if (block == 0) {
        return rtk->sys_eps & ~(1u << RTKIT_EP_MGMT);
    }
    return rtk->app_map[block];
}

static unsigned rtkit_epmap_last_block(const RTKitState *rtk)
{
    unsigned last = 0;

    for (unsigned b = 0; b < RTKIT_NUM_EPS / 32; b++) {
        if (rtkit_epmap_bits(rtk, b)) {
            last = b;
        }
    }
    return last;
}

static void rtkit_send_epmap(RTKitState *rtk)
{
    unsigned block = rtk->epmap_block;
    uint64_t msg = 0;

    msg = APPLE_FIELD_DP64(msg, RTKIT_EPMAP, BITMAP,
                           rtkit_epmap_bits(rtk, block));
    msg = APPLE_FIELD_DP64(msg, RTKIT_EPMAP, BASE, block);
    if (block == rtkit_epmap_last_block(rtk)) {
        msg = APPLE_FIELD_DP64(msg, RTKIT_EPMAP, LAST, 1);
    }
    rtk->boot_state = RTKIT_WAIT_EPMAP_REPLY;
    rtkit_send_typed(rtk, RTKIT_EP_MGMT, RTKIT_MGMT_EPMAP, msg);
}

static void rtkit_ack_iop_power(RTKitState *rtk, uint32_t state)
{
    rtk->iop_power = state;
    rtkit_send_typed(rtk, RTKIT_EP_MGMT, RTKIT_MGMT_SET_IOP_PWR_STATE_ACK,
                     APPLE_FIELD_DP64(0, RTKIT_PWR, STATE, state));
}

static void rtkit_rx_hello_reply(RTKitState *rtk, uint64_t msg)
{
    unsigned min = APPLE_FIELD_EX64(msg, RTKIT_HELLO, MINVER);
    unsigned max = APPLE_FIELD_EX64(msg, RTKIT_HELLO, MAXVER);

    if (rtk->boot_state != RTKIT_WAIT_HELLO_REPLY) {
        rtkit_error(rtk, "RTKit: HELLO_REPLY without HELLO, ignored");
        return;
    }
    if (min != max || min < rtk->hello_min || min > rtk->hello_max) {
        /* RTKit cannot talk an unknown protocol: it gives up */
        rtkit_error(rtk, "RTKit: HELLO_REPLY picks version %u..%u, offered "
                    "%u..%u", min, max, rtk->hello_min, rtk->hello_max);
        rtkit_crash(rtk, "unsupported RTKit protocol version");
        return;
    }
    rtk->version = min;
    rtk->epmap_block = 0;
    rtkit_send_epmap(rtk);
}

static void rtkit_rx_epmap_reply(RTKitState *rtk, uint64_t msg)
{
    unsigned base = APPLE_FIELD_EX64(msg, RTKIT_EPMAP, BASE);
    bool last = APPLE_FIELD_EX64(msg, RTKIT_EPMAP, LAST);
    bool want_last = rtk->epmap_block == rtkit_epmap_last_block(rtk);

    if (rtk->boot_state != RTKIT_WAIT_EPMAP_REPLY) {
        rtkit_error(rtk, "RTKit: EPMAP reply without EPMAP, ignored");
        return;
    }
    if (base != rtk->epmap_block || last != want_last ||
        (!last && !APPLE_FIELD_EX64(msg, RTKIT_EPMAP, MORE))) {
        rtkit_error(rtk, "RTKit: EPMAP reply for block %u%s, expected block "
                    "%u%s, ignored", base, last ? " (last)" : "",
                    rtk->epmap_block, want_last ? " (last)" : "");
        return;
    }
    if (!last) {
        rtk->epmap_block++;
        rtkit_send_epmap(rtk);
        return;
    }
    rtk->boot_state = RTKIT_RUNNING;
    if (rtk->iop_ack_pending && !rtk->no_iop_power_ack) {
        rtk->iop_ack_pending = false;
        rtkit_ack_iop_power(rtk, RTKIT_PWR_ON);
    }
}

static void rtkit_request_buffer(RTKitState *rtk, uint8_t ep,
                                 RTKitBuffer *buf, uint32_t size)
{
    buf->state = RTKIT_BUF_REQUESTED;
    buf->size = size;
    buf->iova = 0;
    rtkit_send_typed(rtk, ep, RTKIT_BUFFER_REQUEST,
                     APPLE_FIELD_DP64(0, RTKIT_BUFFER, PAGES,
                                      size / RTKIT_PAGE_SIZE));
}

static void rtkit_rx_startep(RTKitState *rtk, uint64_t msg)
{
    unsigned ep = APPLE_FIELD_EX64(msg, RTKIT_STARTEP, EP);

    if (rtk->boot_state != RTKIT_RUNNING) {
        rtkit_error(rtk, "RTKit: STARTEP 0x%02x before the endpoint map was "
                    "acknowledged, ignored", ep);
        return;
    }
    if (ep == RTKIT_EP_MGMT || !rtkit_ep_advertised(rtk, ep)) {
        rtkit_error(rtk, "RTKit: STARTEP for endpoint 0x%02x which is not "
                    "in the endpoint map, ignored", ep);
        return;
    }
    if (!APPLE_FIELD_EX64(msg, RTKIT_STARTEP, FLAG)) {
        rtkit_error(rtk, "RTKit: STARTEP 0x%02x without its flag bit", ep);
    }
    if (rtkit_ep_started(rtk, ep)) {
        rtkit_error(rtk, "RTKit: endpoint 0x%02x started twice, ignored", ep);
        return;
    }
    rtkit_set_started(rtk, ep, true);

    switch (ep) {
    case RTKIT_EP_CRASHLOG:
        rtkit_request_buffer(rtk, ep, &rtk->crashlog, RTKIT_CRASHLOG_SIZE);
        break;
    case RTKIT_EP_SYSLOG:
        rtkit_request_buffer(rtk, ep, &rtk->syslog,
                             APPLE_ROUND_UP(RTKIT_SYSLOG_ENTRIES *
                                            RTKIT_SYSLOG_ENTRY_SIZE,
                                            RTKIT_PAGE_SIZE));
        break;
    case RTKIT_EP_IOREPORT:
        rtkit_request_buffer(rtk, ep, &rtk->ioreport, RTKIT_IOREPORT_SIZE);
        break;
    case RTKIT_EP_OSLOG:
        rtk->oslog.state = RTKIT_BUF_REQUESTED;
        rtk->oslog.size = RTKIT_OSLOG_SIZE;
        rtkit_push(rtk, ep,
                   APPLE_FIELD_DP64(APPLE_FIELD_DP64(0, RTKIT_OSLOG, TYPE,
                                                     RTKIT_BUFFER_REQUEST),
                                    RTKIT_OSLOG, SIZE, RTKIT_OSLOG_SIZE));
        break;
    default:
        if (ep >= RTKIT_APP_EP_START &&
            rtk->app[ep - RTKIT_APP_EP_START].start) {
            RTKitAppEndpoint *app = &rtk->app[ep - RTKIT_APP_EP_START];

            app->start(app->opaque);
        }
        break;
    }
}

/* Power down, idle or wake the coprocessor on the AP's request */
static void rtkit_rx_iop_power(RTKitState *rtk, uint64_t msg)
{
    uint32_t state = APPLE_FIELD_EX64(msg, RTKIT_PWR, STATE);
    uint32_t old = rtk->iop_power;

    switch (state) {
    case RTKIT_PWR_ON:
    case RTKIT_PWR_INIT:
        if (old == RTKIT_PWR_SLEEP || old == RTKIT_PWR_QUIESCED) {
            /* The AP forgot everything: boot again, ack when booted */
            rtkit_boot(rtk);
        } else if (rtk->boot_state == RTKIT_RUNNING) {
            rtkit_ack_iop_power(rtk, RTKIT_PWR_ON);
        } else {
            /* Still booting: the ack follows the endpoint map */
            rtk->iop_ack_pending = true;
        }
        break;
    case RTKIT_PWR_SLEEP:
    case RTKIT_PWR_QUIESCED:
        /* The AP frees our buffers next; stop using them */
        rtkit_forget(rtk);
        rtkit_ack_iop_power(rtk, state);
        break;
    case RTKIT_PWR_IDLE:
        rtkit_ack_iop_power(rtk, state);
        break;
    case RTKIT_PWR_OFF:
        rtkit_ack_iop_power(rtk, state);
        rtkit_forget(rtk);
        rtk->boot_state = RTKIT_DEAD;
        break;
    default:
        rtkit_error(rtk, "RTKit: unknown IOP power state 0x%x, ignored",
                    state);
        break;
    }
}

static void rtkit_rx_ap_power(RTKitState *rtk, uint64_t msg)
{
    uint32_t state = APPLE_FIELD_EX64(msg, RTKIT_PWR, STATE);

    switch (state) {
    case RTKIT_PWR_OFF:
    case RTKIT_PWR_SLEEP:
    case RTKIT_PWR_QUIESCED:
    case RTKIT_PWR_ON:
    case RTKIT_PWR_IDLE:
    case RTKIT_PWR_INIT:
        rtk->ap_power = state;
        rtkit_send_typed(rtk, RTKIT_EP_MGMT, RTKIT_MGMT_SET_AP_PWR_STATE,
                         APPLE_FIELD_DP64(0, RTKIT_PWR, STATE, state));
        break;
    default:
        rtkit_error(rtk, "RTKit: unknown AP power state 0x%x, ignored",
                    state);
        break;
    }
}

static void rtkit_rx_mgmt(RTKitState *rtk, uint64_t msg)
{
    unsigned type = APPLE_FIELD_EX64(msg, RTKIT_MSG, TYPE);

    if (rtk->boot_state == RTKIT_STOPPED) {
        return;
    }
    switch (type) {
    case RTKIT_MGMT_HELLO_REPLY:
        rtkit_rx_hello_reply(rtk, msg);
        break;
    case RTKIT_MGMT_EPMAP:
        rtkit_rx_epmap_reply(rtk, msg);
        break;
    case RTKIT_MGMT_STARTEP:
        rtkit_rx_startep(rtk, msg);
        break;
    case RTKIT_MGMT_SET_IOP_PWR_STATE:
        rtkit_rx_iop_power(rtk, msg);
        break;
    case RTKIT_MGMT_SET_AP_PWR_STATE:
        rtkit_rx_ap_power(rtk, msg);
        break;
    default:
        rtkit_error(rtk, "RTKit: unknown management message type 0x%x "
                    "(0x%016" G_GINT64_MODIFIER "x), ignored", type, msg);
        break;
    }
}

/* Is [iova, iova + size) accessible?  Probes every page of it. */
static bool rtkit_buffer_ok(RTKitState *rtk, uint64_t iova, uint32_t size)
{
    uint8_t byte;

    for (uint64_t off = 0; off < size; off += RTKIT_PAGE_SIZE) {
        if (!rtk->ops->buf_rw(rtk->opaque, iova + off, &byte, 1, false)) {
            return false;
        }
    }
    return rtk->ops->buf_rw(rtk->opaque, iova + size - 1, &byte, 1, false);
}

static void rtkit_syslog_init(RTKitState *rtk);

/* The AP answers a buffer request with the IOVA of the buffer */
static void rtkit_rx_buffer(RTKitState *rtk, uint8_t ep, RTKitBuffer *buf,
                            uint64_t msg)
{
    uint64_t iova = APPLE_FIELD_EX64(msg, RTKIT_BUFFER, IOVA);
    uint64_t size = APPLE_FIELD_EX64(msg, RTKIT_BUFFER, PAGES) *
                    RTKIT_PAGE_SIZE;

    if (ep == RTKIT_EP_OSLOG) {
        iova = APPLE_FIELD_EX64(msg, RTKIT_OSLOG, IOVA_PAGE) * RTKIT_PAGE_SIZE;
        size = APPLE_FIELD_EX64(msg, RTKIT_OSLOG, SIZE);
    }

    if (buf->state != RTKIT_BUF_REQUESTED) {
        rtkit_error(rtk, "RTKit: unrequested buffer on %s endpoint, ignored",
                    rtkit_ep_name(ep));
        return;
    }
    if (size < buf->size || !iova) {
        rtkit_error(rtk, "RTKit: %s buffer of 0x%" G_GINT64_MODIFIER "x "
                    "bytes at 0x%" G_GINT64_MODIFIER "x, need 0x%x bytes",
                    rtkit_ep_name(ep), size, iova, buf->size);
        rtkit_crash(rtk, "bad buffer from AP");
        return;
    }
    if (!rtkit_buffer_ok(rtk, iova, buf->size)) {
        rtkit_error(rtk, "RTKit: %s buffer at 0x%" G_GINT64_MODIFIER "x is "
                    "not accessible", rtkit_ep_name(ep), iova);
        rtkit_crash(rtk, "bad buffer from AP");
        return;
    }
    buf->iova = iova;
    buf->state = RTKIT_BUF_READY;
    if (ep == RTKIT_EP_SYSLOG) {
        rtkit_syslog_init(rtk);
    }
}

static void rtkit_rx_crashlog(RTKitState *rtk, uint64_t msg)
{
    if (APPLE_FIELD_EX64(msg, RTKIT_MSG, TYPE) != RTKIT_BUFFER_REQUEST) {
        rtkit_error(rtk, "RTKit: unknown crashlog message 0x%016"
                    G_GINT64_MODIFIER "x, ignored", msg);
        return;
    }
    rtkit_rx_buffer(rtk, RTKIT_EP_CRASHLOG, &rtk->crashlog, msg);
}

static void rtkit_syslog_init(RTKitState *rtk)
{
    uint64_t msg = 0;

    msg = APPLE_FIELD_DP64(msg, RTKIT_SYSLOG, N_ENTRIES, RTKIT_SYSLOG_ENTRIES);
    msg = APPLE_FIELD_DP64(msg, RTKIT_SYSLOG, MSG_SIZE, RTKIT_SYSLOG_MSG_SIZE);
    rtkit_send_typed(rtk, RTKIT_EP_SYSLOG, RTKIT_SYSLOG_INIT, msg);
    rtk->syslog_init_sent = true;
    rtkit_syslog(rtk, "RTKit", "firmware up, syslog ready");
}

void rtkit_syslog(RTKitState *rtk, const char *context, const char *text)
{
    uint8_t entry[RTKIT_SYSLOG_ENTRY_SIZE] = { 0 };
    uint32_t idx = rtk->syslog_next;

    if (rtk->syslog.state != RTKIT_BUF_READY || !rtk->syslog_init_sent ||
        rtk->boot_state == RTKIT_DEAD) {
        rtk->syslog_dropped++;
        return;
    }
    if (rtk->syslog_busy & (1u << idx)) {
        /* Every entry waits for the AP's ack: the line is lost */
        rtk->syslog_dropped++;
        return;
    }
    g_strlcpy((char *)entry + RTKIT_SYSLOG_ENTRY_CTX, context,
              RTKIT_SYSLOG_CTX_SIZE);
    /* The AP crops trailing blanks and reads at most msg_size - 1 bytes */
    g_strlcpy((char *)entry + RTKIT_SYSLOG_ENTRY_MSG, text,
              RTKIT_SYSLOG_MSG_SIZE - 1);
    if (!rtk->ops->buf_rw(rtk->opaque,
                          rtk->syslog.iova + idx * sizeof(entry),
                          entry, sizeof(entry), true)) {
        rtkit_error(rtk, "RTKit: syslog buffer no longer accessible");
        rtkit_crash(rtk, "syslog buffer fault");
        return;
    }
    rtk->syslog_busy |= 1u << idx;
    rtk->syslog_next = (idx + 1) % RTKIT_SYSLOG_ENTRIES;
    rtkit_send_typed(rtk, RTKIT_EP_SYSLOG, RTKIT_SYSLOG_LOG,
                     APPLE_FIELD_DP64(0, RTKIT_SYSLOG, INDEX, idx));
}

static void rtkit_rx_syslog(RTKitState *rtk, uint64_t msg)
{
    unsigned idx;

    switch (APPLE_FIELD_EX64(msg, RTKIT_MSG, TYPE)) {
    case RTKIT_BUFFER_REQUEST:
        rtkit_rx_buffer(rtk, RTKIT_EP_SYSLOG, &rtk->syslog, msg);
        break;
    case RTKIT_SYSLOG_LOG:
        /* The AP acks each line by echoing it */
        idx = APPLE_FIELD_EX64(msg, RTKIT_SYSLOG, INDEX);
        if (idx >= RTKIT_SYSLOG_ENTRIES || !(rtk->syslog_busy & (1u << idx))) {
            rtkit_error(rtk, "RTKit: ack for syslog entry %u which was not "
                        "sent, ignored", idx);
            break;
        }
        rtk->syslog_busy &= ~(1u << idx);
        break;
    default:
        rtkit_error(rtk, "RTKit: unknown syslog message 0x%016"
                    G_GINT64_MODIFIER "x, ignored", msg);
        break;
    }
}

static void rtkit_rx_oslog(RTKitState *rtk, uint64_t msg)
{
    if (APPLE_FIELD_EX64(msg, RTKIT_OSLOG, TYPE) != RTKIT_BUFFER_REQUEST) {
        rtkit_error(rtk, "RTKit: unknown oslog message 0x%016"
                    G_GINT64_MODIFIER "x, ignored", msg);
        return;
    }
    rtkit_rx_buffer(rtk, RTKIT_EP_OSLOG, &rtk->oslog, msg);
}

static void rtkit_rx_ioreport(RTKitState *rtk, uint64_t msg)
{
    switch (APPLE_FIELD_EX64(msg, RTKIT_MSG, TYPE)) {
    case RTKIT_BUFFER_REQUEST:
        rtkit_rx_buffer(rtk, RTKIT_EP_IOREPORT, &rtk->ioreport, msg);
        break;
    case RTKIT_IOREPORT_ECHO_A:
    case RTKIT_IOREPORT_ECHO_B:
        /* Acks of ioreport updates; this firmware sends none */
        break;
    default:
        rtkit_error(rtk, "RTKit: unknown ioreport message 0x%016"
                    G_GINT64_MODIFIER "x, ignored", msg);
        break;
    }
}

void rtkit_send(RTKitState *rtk, uint8_t ep, uint64_t msg)
{
    if (rtk->boot_state == RTKIT_DEAD || rtk->boot_state == RTKIT_STOPPED) {
        return;
    }
    rtkit_push(rtk, ep, msg);
}

/* The built-in echo endpoint answers with the complement of each message */
static void rtkit_echo_message(void *opaque, uint64_t msg)
{
    RTKitState *rtk = opaque;

    rtkit_send(rtk, rtk->echo_ep, ~msg);
}

void rtkit_receive(RTKitState *rtk, uint64_t msg0, uint64_t msg1)
{
    unsigned ep = APPLE_FIELD_EX64(msg1, RTKIT_MSG1, EP);
    RTKitAppEndpoint *app;

    if (rtk->boot_state == RTKIT_STOPPED || rtk->boot_state == RTKIT_DEAD) {
        /* Nobody is listening */
        return;
    }
    rtkit_history(rtk, msg0, msg1);

    if (ep == RTKIT_EP_MGMT) {
        rtkit_rx_mgmt(rtk, msg0);
        return;
    }
    if (!rtkit_ep_started(rtk, ep)) {
        rtkit_error(rtk, "RTKit: message 0x%016" G_GINT64_MODIFIER "x to "
                    "endpoint 0x%02x which is not started, ignored",
                    msg0, ep);
        return;
    }
    switch (ep) {
    case RTKIT_EP_CRASHLOG:
        rtkit_rx_crashlog(rtk, msg0);
        return;
    case RTKIT_EP_SYSLOG:
        rtkit_rx_syslog(rtk, msg0);
        return;
    case RTKIT_EP_IOREPORT:
        rtkit_rx_ioreport(rtk, msg0);
        return;
    case RTKIT_EP_OSLOG:
        rtkit_rx_oslog(rtk, msg0);
        return;
    }
    if (ep < RTKIT_APP_EP_START) {
        rtkit_error(rtk, "RTKit: message to system endpoint 0x%02x which "
                    "takes none, ignored", ep);
        return;
    }
    if (!rtkit_is_running(rtk)) {
        rtkit_error(rtk, "RTKit: message to endpoint 0x%02x while powered "
                    "down (IOP 0x%x, AP 0x%x), ignored", ep, rtk->iop_power,
                    rtk->ap_power);
        return;
    }
    app = &rtk->app[ep - RTKIT_APP_EP_START];
    app->message(app->opaque, msg0);
}

/* Crash log writer: a header, sections, and a footer */
typedef struct RTKitCrashLog {
    uint8_t *buf;
    uint32_t size;
    uint32_t len;
} RTKitCrashLog;

static uint8_t *crashlog_section(RTKitCrashLog *cl, uint32_t fourcc,
                                 uint32_t payload_len)
{
    uint32_t size = APPLE_ROUND_UP(RTKIT_CRASHLOG_SEC_HEADER_SIZE + payload_len,
                                   8);
    uint8_t *sec;

    /* Room for the footer stays */
    if (cl->len + size + RTKIT_CRASHLOG_SEC_HEADER_SIZE > cl->size) {
        return NULL;
    }
    sec = cl->buf + cl->len;
    apple_st32(sec + RTKIT_CRASHLOG_SEC_FOURCC, fourcc);
    apple_st32(sec + RTKIT_CRASHLOG_SEC_SIZE, size);
    cl->len += size;
    return sec + RTKIT_CRASHLOG_SEC_HEADER_SIZE;
}

static void crashlog_write(RTKitState *rtk, RTKitCrashLog *cl,
                           const char *reason)
{
    g_autofree char *version = g_strdup_printf("RTKit QEMU HLE, firmware %s",
                                               rtk->fw_version ?: "unknown");
    uint32_t n = MIN(rtk->history_next, RTKIT_HISTORY_LEN);
    uint8_t *p;

    /* Header; its size field is filled in last */
    apple_st32(cl->buf, RTKIT_FOURCC('C', 'L', 'H', 'E'));
    apple_st32(cl->buf + RTKIT_CRASHLOG_VERSION, RTKIT_CRASHLOG_FORMAT);
    cl->len = RTKIT_CRASHLOG_HEADER_SIZE;

    p = crashlog_section(cl, RTKIT_FOURCC('C', 'v', 'e', 'r'),
                         RTKIT_CRASHLOG_CVER_TEXT + strlen(version) + 1);
    if (p) {
        memcpy(p + RTKIT_CRASHLOG_CVER_TEXT, version, strlen(version) + 1);
    }
    /*
     * The AP scans the text for newlines up to section_size bytes past the
     * payload start, i.e. 16 bytes beyond the section: pad them with NULs.
     */
    p = crashlog_section(cl, RTKIT_FOURCC('C', 's', 't', 'r'),
                         RTKIT_CRASHLOG_CSTR_TEXT + strlen(reason) + 1 +
                         RTKIT_CRASHLOG_CSTR_PAD);
    if (p) {
        memcpy(p + RTKIT_CRASHLOG_CSTR_TEXT, reason, strlen(reason) + 1);
    }
    p = crashlog_section(cl, RTKIT_FOURCC('C', 't', 'i', 'm'), 8);
    if (p) {
        apple_st64(p, rtk->ops->now_ns(rtk->opaque));
    }
    p = crashlog_section(cl, RTKIT_FOURCC('C', 'm', 'b', 'x'),
                         RTKIT_CRASHLOG_CMBX_ENTRIES +
                         n * RTKIT_CRASHLOG_MBX_SIZE);
    if (p) {
        apple_st32(p + RTKIT_CRASHLOG_CMBX_INDEX,
                   rtk->history_next % RTKIT_HISTORY_LEN);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t h = (rtk->history_next - n + i) % RTKIT_HISTORY_LEN;
            uint8_t *e = p + RTKIT_CRASHLOG_CMBX_ENTRIES +
                         i * RTKIT_CRASHLOG_MBX_SIZE;

            apple_st64(e + RTKIT_CRASHLOG_MBX_MSG0, rtk->history_msg0[h]);
            apple_st64(e + RTKIT_CRASHLOG_MBX_MSG1, rtk->history_msg1[h]);
            apple_st32(e + RTKIT_CRASHLOG_MBX_TIME, rtk->history_time[h]);
        }
    }
    /* Footer: a section that carries the header's fourcc */
    apple_st32(cl->buf + cl->len + RTKIT_CRASHLOG_SEC_FOURCC,
               RTKIT_FOURCC('C', 'L', 'H', 'E'));
    cl->len += RTKIT_CRASHLOG_SEC_HEADER_SIZE;
    apple_st32(cl->buf + RTKIT_CRASHLOG_TOTAL_SIZE, cl->len);
}

void rtkit_crash(RTKitState *rtk, const char *reason)
{
    bool can_report = rtk->crashlog.state == RTKIT_BUF_READY &&
                      rtk->boot_state != RTKIT_DEAD &&
                      rtk->boot_state != RTKIT_STOPPED;
    RTKitCrashLog cl;

    if (rtk->boot_state == RTKIT_STOPPED || rtk->boot_state == RTKIT_DEAD) {
        return;
    }
    if (can_report) {
        cl.size = rtk->crashlog.size;
        cl.buf = g_malloc0(cl.size);
        crashlog_write(rtk, &cl, reason);
        if (!rtk->ops->buf_rw(rtk->opaque, rtk->crashlog.iova, cl.buf,
                              cl.size, true)) {
            rtkit_error(rtk, "RTKit: crash log buffer no longer accessible");
            can_report = false;
        }
        g_free(cl.buf);
    }
    if (can_report) {
        /* Once the buffer exists, a second "buffer request" means crashed */
        rtkit_send_typed(rtk, RTKIT_EP_CRASHLOG, RTKIT_BUFFER_REQUEST,
                         APPLE_FIELD_DP64(rtk->crashlog.iova, RTKIT_BUFFER,
                                          PAGES, rtk->crashlog.size /
                                          RTKIT_PAGE_SIZE));
    }
    for (int i = 0; i < G_N_ELEMENTS(rtk->app); i++) {
        unsigned ep = RTKIT_APP_EP_START + i;

        if (rtkit_ep_started(rtk, ep) && rtk->app[i].stop) {
            rtk->app[i].stop(rtk->app[i].opaque);
        }
    }
    rtk->boot_state = RTKIT_DEAD;
}

void rtkit_register_endpoint(RTKitState *rtk, uint8_t ep,
                             const RTKitAppEndpoint *app)
{
    uint32_t bit = 1u << (ep % 32);

    g_assert(ep >= RTKIT_APP_EP_START);
    rtk->app[ep - RTKIT_APP_EP_START] = *app;
    if (app->message) {
        rtk->app_map[ep / 32] |= bit;
    } else {
        rtk->app_map[ep / 32] &= ~bit;
    }
}

const char *rtkit_post_load(const RTKitState *rtk)
{
    if (rtk->boot_state > RTKIT_DEAD) {
        return "RTKit boot state out of range";
    }
    if (rtk->outbox_head >= RTKIT_OUTBOX_LEN ||
        rtk->outbox_count > RTKIT_OUTBOX_LEN) {
        return "RTKit outbox index or count out of range";
    }
    if (rtk->syslog_next >= RTKIT_SYSLOG_ENTRIES) {
        return "RTKit syslog entry out of range";
    }
    if (rtk->epmap_block >= RTKIT_NUM_EPS / 32) {
        return "RTKit EPMAP block out of range";
    }
    return NULL;
}

void rtkit_init(RTKitState *rtk, const RTKitOps *ops, void *opaque)
{
    rtk->ops = ops;
    rtk->opaque = opaque;
    if (!rtk->hello_min && !rtk->hello_max) {
        rtk->hello_min = RTKIT_VERSION_MIN;
        rtk->hello_max = RTKIT_VERSION_MAX;
    }
    if (rtk->echo_ep >= RTKIT_APP_EP_START) {
        RTKitAppEndpoint echo = {
            .message = rtkit_echo_message,
            .opaque = rtk,
        };

        rtkit_register_endpoint(rtk, rtk->echo_ep, &echo);
    }
    rtk->boot_state = RTKIT_STOPPED;
}

const char *rtkit_ep_name(uint8_t ep)
{
    switch (ep) {
    case RTKIT_EP_MGMT:
        return "mgmt";
    case RTKIT_EP_CRASHLOG:
        return "crashlog";
    case RTKIT_EP_SYSLOG:
        return "syslog";
    case RTKIT_EP_DEBUG:
        return "debug";
    case RTKIT_EP_IOREPORT:
        return "ioreport";
    case RTKIT_EP_OSLOG:
        return "oslog";
    default:
        return ep >= RTKIT_APP_EP_START ? "app" : "system";
    }
}

static const char *rtkit_mgmt_name(unsigned type, bool to_ap)
{
    switch (type) {
    case RTKIT_MGMT_HELLO:
        return "HELLO";
    case RTKIT_MGMT_HELLO_REPLY:
        return "HELLO_REPLY";
    case RTKIT_MGMT_STARTEP:
        return "STARTEP";
    case RTKIT_MGMT_SET_IOP_PWR_STATE:
        return "SET_IOP_PWR_STATE";
    case RTKIT_MGMT_SET_IOP_PWR_STATE_ACK:
        return "IOP_PWR_STATE_ACK";
    case RTKIT_MGMT_EPMAP:
        return to_ap ? "EPMAP" : "EPMAP_REPLY";
    case RTKIT_MGMT_SET_AP_PWR_STATE:
        return to_ap ? "AP_PWR_STATE_ACK" : "SET_AP_PWR_STATE";
    default:
        return "unknown";
    }
}

void rtkit_describe(uint8_t ep, uint64_t msg, bool to_ap,
                    char *buf, size_t len)
{
    unsigned type = APPLE_FIELD_EX64(msg, RTKIT_MSG, TYPE);

    switch (ep) {
    case RTKIT_EP_MGMT:
        switch (type) {
        case RTKIT_MGMT_HELLO:
        case RTKIT_MGMT_HELLO_REPLY:
            g_snprintf(buf, len, "%s min %u max %u",
                       rtkit_mgmt_name(type, to_ap),
                       (unsigned)APPLE_FIELD_EX64(msg, RTKIT_HELLO, MINVER),
                       (unsigned)APPLE_FIELD_EX64(msg, RTKIT_HELLO, MAXVER));
            return;
        case RTKIT_MGMT_EPMAP:
            g_snprintf(buf, len, "%s base %u bitmap 0x%08x%s",
                       rtkit_mgmt_name(type, to_ap),
                       (unsigned)APPLE_FIELD_EX64(msg, RTKIT_EPMAP, BASE),
                       (unsigned)APPLE_FIELD_EX64(msg, RTKIT_EPMAP, BITMAP),
                       APPLE_FIELD_EX64(msg, RTKIT_EPMAP, LAST) ? " last" : "");
            return;
        case RTKIT_MGMT_STARTEP:
            g_snprintf(buf, len, "STARTEP ep 0x%02x",
                       (unsigned)APPLE_FIELD_EX64(msg, RTKIT_STARTEP, EP));
            return;
        default:
            g_snprintf(buf, len, "%s state 0x%x",
                       rtkit_mgmt_name(type, to_ap),
                       (unsigned)APPLE_FIELD_EX64(msg, RTKIT_PWR, STATE));
            return;
        }
    case RTKIT_EP_CRASHLOG:
    case RTKIT_EP_SYSLOG:
    case RTKIT_EP_IOREPORT:
        if (type == RTKIT_BUFFER_REQUEST) {
            g_snprintf(buf, len, "%s pages %u iova 0x%" G_GINT64_MODIFIER "x",
                       ep == RTKIT_EP_CRASHLOG && to_ap &&
                       APPLE_FIELD_EX64(msg, RTKIT_BUFFER, IOVA) ?
                       "CRASHED" : "BUFFER",
                       (unsigned)APPLE_FIELD_EX64(msg, RTKIT_BUFFER, PAGES),
                       (uint64_t)APPLE_FIELD_EX64(msg, RTKIT_BUFFER, IOVA));
            return;
        }
        if (ep == RTKIT_EP_SYSLOG && type == RTKIT_SYSLOG_INIT) {
            g_snprintf(buf, len, "INIT entries %u size 0x%x",
                       (unsigned)APPLE_FIELD_EX64(msg, RTKIT_SYSLOG, N_ENTRIES),
                       (unsigned)APPLE_FIELD_EX64(msg, RTKIT_SYSLOG, MSG_SIZE));
            return;
        }
        if (ep == RTKIT_EP_SYSLOG && type == RTKIT_SYSLOG_LOG) {
            g_snprintf(buf, len, "LOG index %u",
                       (unsigned)APPLE_FIELD_EX64(msg, RTKIT_SYSLOG, INDEX));
            return;
        }
        /* fall through */
    default:
        if (ep >= RTKIT_APP_EP_START) {
            /* The application's own format: decoded by its traces */
            g_snprintf(buf, len, "payload 0x%016" G_GINT64_MODIFIER "x", msg);
            return;
        }
        g_snprintf(buf, len, "type 0x%x payload 0x%016" G_GINT64_MODIFIER "x",
                   type, msg);
        return;
    }
}
