/*
 * RTKit, firmware side: the protocol an Apple coprocessor's firmware speaks
 * with the AP over the ASC mailbox
 *
 * QEMU-independent: depends on GLib and our headers only.  The owner feeds
 * messages from the AP in with rtkit_receive(), pulls messages for the AP
 * out with rtkit_outbox_pop(), and provides buffer access, time and error
 * reporting through RTKitOps.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_APPLE_RTKIT_H
#define HW_APPLE_RTKIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "hw/apple/apple-bits.h"

enum {
    RTKIT_EP_MGMT = 0x00,
    RTKIT_EP_CRASHLOG = 0x01,
    RTKIT_EP_SYSLOG = 0x02,
    RTKIT_EP_DEBUG = 0x03,
    RTKIT_EP_IOREPORT = 0x04,
    RTKIT_EP_OSLOG = 0x08,
    RTKIT_APP_EP_START = 0x20,
    RTKIT_NUM_EPS = 0x100,
};

/* msg1 of a mailbox message carries the endpoint in its low byte */
APPLE_FIELD(RTKIT_MSG1, EP, 0, 8);

/* Management message types (msg bits 59:52) */
enum {
    RTKIT_MGMT_HELLO = 0x1,
    RTKIT_MGMT_HELLO_REPLY = 0x2,
    RTKIT_MGMT_STARTEP = 0x5,
    RTKIT_MGMT_SET_IOP_PWR_STATE = 0x6,
    RTKIT_MGMT_SET_IOP_PWR_STATE_ACK = 0x7,
    RTKIT_MGMT_EPMAP = 0x8,
    RTKIT_MGMT_SET_AP_PWR_STATE = 0xb,
};

/* Power states; "running" compares the low byte only */
enum {
    RTKIT_PWR_OFF = 0x00,
    RTKIT_PWR_SLEEP = 0x01,
    RTKIT_PWR_QUIESCED = 0x10,
    RTKIT_PWR_ON = 0x20,
    RTKIT_PWR_IDLE = 0x201,
    RTKIT_PWR_INIT = 0x220,
};

/* Protocol versions this firmware offers by default */
#define RTKIT_VERSION_MIN       11
#define RTKIT_VERSION_MAX       12

/* Where the firmware is in its life */
typedef enum RTKitBootState {
    RTKIT_STOPPED,              /* coprocessor CPU not running */
    RTKIT_WAIT_HELLO_REPLY,     /* HELLO sent */
    RTKIT_WAIT_EPMAP_REPLY,     /* an EPMAP block sent */
    RTKIT_RUNNING,              /* handshake done; power states rule */
    RTKIT_DEAD,                 /* crashed or powered off: needs RUN cycle */
} RTKitBootState;

typedef enum RTKitBufferState {
    RTKIT_BUF_NONE,
    RTKIT_BUF_REQUESTED,
    RTKIT_BUF_READY,
} RTKitBufferState;

/* A buffer in AP memory that the firmware asked for */
typedef struct RTKitBuffer {
    uint64_t iova;
    uint32_t size;
    uint32_t state;             /* RTKitBufferState */
} RTKitBuffer;

#define RTKIT_OUTBOX_LEN        64
#define RTKIT_HISTORY_LEN       8
#define RTKIT_SYSLOG_ENTRIES    16
#define RTKIT_SYSLOG_MSG_SIZE   0x80
#define RTKIT_SYSLOG_CTX_SIZE   24
#define RTKIT_CRASHLOG_SIZE     0x4000
#define RTKIT_IOREPORT_SIZE     0x1000
#define RTKIT_OSLOG_SIZE        0x4000

typedef struct RTKitOps {
    /*
     * Read or write @len bytes of an AP buffer at @iova (the address the AP
     * gave in a buffer reply).  Returns false if any byte is not accessible.
     */
    bool (*buf_rw)(void *opaque, uint64_t iova, void *buf, uint64_t len,
                   bool is_write);
    /* Messages for the AP are waiting in the outbox */
    void (*outbox_notify)(void *opaque);
    /* The AP broke the protocol: log it as a guest error */
    void (*guest_error)(void *opaque, const char *msg);
    /* Virtual time in nanoseconds, for crash log time stamps */
    int64_t (*now_ns)(void *opaque);
} RTKitOps;

/* An application endpoint (>= 0x20) provided by the firmware on top */
typedef struct RTKitAppEndpoint {
    /* The AP started the endpoint */
    void (*start)(void *opaque);
    /* A message from the AP while the firmware runs */
    void (*message)(void *opaque, uint64_t msg);
    /* The firmware stopped, crashed or went to sleep */
    void (*stop)(void *opaque);
    void *opaque;
} RTKitAppEndpoint;

typedef struct RTKitState {
    /* Configuration, set before use; not migrated */
    const RTKitOps *ops;
    void *opaque;
    const char *fw_version;     /* shown in the crash log */
    uint16_t hello_min;         /* versions offered in HELLO */
    uint16_t hello_max;
    bool no_iop_power_ack;      /* fault injection: never ack boot power */
    uint32_t sys_eps;           /* system endpoints advertised, bit = ep */
    uint8_t echo_ep;            /* built-in echo endpoint, 0 = none */
    RTKitAppEndpoint app[RTKIT_NUM_EPS - RTKIT_APP_EP_START];
    uint32_t app_map[RTKIT_NUM_EPS / 32];      /* app[] with a handler */

    /* State, migrated by the owner */
    uint32_t boot_state;        /* RTKitBootState */
    uint32_t version;           /* protocol version the AP chose */
    uint32_t iop_power;
    uint32_t ap_power;
    uint32_t epmap_block;       /* block of the EPMAP message in flight */
    bool iop_ack_pending;       /* ack IOP power ON once EPMAP is done */
    uint64_t started[RTKIT_NUM_EPS / 64];
    RTKitBuffer crashlog;
    RTKitBuffer syslog;
    RTKitBuffer ioreport;
    RTKitBuffer oslog;
    bool syslog_init_sent;
    uint32_t syslog_next;       /* next syslog entry to use */
    uint32_t syslog_busy;       /* entries the AP has not acked, bit = idx */
    uint32_t syslog_dropped;
    uint64_t outbox_msg[RTKIT_OUTBOX_LEN];
    uint32_t outbox_ep[RTKIT_OUTBOX_LEN];
    uint32_t outbox_head;
    uint32_t outbox_count;
    uint32_t outbox_dropped;
    /* Recent messages in both directions, for the crash log */
    uint64_t history_msg0[RTKIT_HISTORY_LEN];
    uint64_t history_msg1[RTKIT_HISTORY_LEN];
    uint32_t history_time[RTKIT_HISTORY_LEN];
    uint32_t history_next;
} RTKitState;

void rtkit_init(RTKitState *rtk, const RTKitOps *ops, void *opaque);
void rtkit_register_endpoint(RTKitState *rtk, uint8_t ep,
                             const RTKitAppEndpoint *app);

/* The coprocessor CPU starts (RUN 0 -> 1) or stops (RUN 1 -> 0) */
void rtkit_cpu_start(RTKitState *rtk);
void rtkit_cpu_stop(RTKitState *rtk);

/* A message from the AP: msg0 is the payload, msg1's low byte the endpoint */
void rtkit_receive(RTKitState *rtk, uint64_t msg0, uint64_t msg1);

/* Take the oldest message for the AP; false if there is none */
bool rtkit_outbox_pop(RTKitState *rtk, uint64_t *msg0, uint64_t *msg1);
/* Is exactly this message still waiting in the outbox? */
bool rtkit_outbox_pending(const RTKitState *rtk, uint8_t ep, uint64_t msg);

/* Send a message to the AP on an application endpoint */
void rtkit_send(RTKitState *rtk, uint8_t ep, uint64_t msg);

/* Print a line through the syslog endpoint (dropped if not set up yet) */
void rtkit_syslog(RTKitState *rtk, const char *context, const char *text);

/*
 * Crash now: write a crash log with @reason into the crashlog buffer and
 * tell the AP.  The firmware is dead until the CPU is restarted.
 */
void rtkit_crash(RTKitState *rtk, const char *reason);

/*
 * After an incoming migration: NULL if the migrated state is one RTKit can
 * be in (boot state, outbox and syslog indices, EPMAP block in range),
 * else why not (the owner fails the migration)
 */
const char *rtkit_post_load(const RTKitState *rtk);

bool rtkit_is_running(const RTKitState *rtk);
bool rtkit_is_dead(const RTKitState *rtk);
bool rtkit_ep_started(const RTKitState *rtk, uint8_t ep);

/* Describe a message for traces: endpoint name and decoded fields */
const char *rtkit_ep_name(uint8_t ep);
void rtkit_describe(uint8_t ep, uint64_t msg, bool to_ap,
                    char *buf, size_t len);

#endif
