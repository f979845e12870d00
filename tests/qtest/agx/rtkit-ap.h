/*
 * qtest library: the AP side of an Apple ASC mailbox and of RTKit
 *
 * Plays what Linux's drivers/soc/apple/mailbox.c and rtkit.c do, on the
 * MMIO registers of an emulated ASC and in guest RAM, so that qtests can
 * boot a coprocessor's firmware and talk to its endpoints.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TESTS_QTEST_AGX_RTKIT_AP_H
#define TESTS_QTEST_AGX_RTKIT_AP_H

#include "libqtest.h"

#define RTKIT_AP_MAX_EPS        256

typedef struct RTKitAP {
    QTestState *qts;
    uint64_t asc_base;          /* CPU control; mailbox at +0x8000 */
    /* Guest RAM handed out for buffers, bump-allocated */
    uint64_t ram_next;
    uint64_t ram_end;

    int version;
    uint32_t iop_power;
    uint32_t ap_power;
    bool epmap_done;
    bool crashed;
    uint8_t endpoints[RTKIT_AP_MAX_EPS];     /* advertised */
    uint64_t crashlog_iova;
    uint32_t crashlog_size;
    uint64_t syslog_iova;
    uint32_t syslog_entries;
    uint32_t syslog_msg_size;
    GPtrArray *syslog;          /* lines the firmware printed */
    uint32_t msgs_sent;
    uint32_t msgs_received;

    /*
     * Buffers the firmware asks for: by default guest RAM from the bump
     * allocator, IOVA = PA.  A GPU maps them in its UAT instead.
     */
    uint64_t (*alloc_iova)(void *opaque, uint64_t size);
    uint64_t (*iova_to_pa)(void *opaque, uint64_t iova);
    void *iova_opaque;

    /* Messages on application endpoints, in arrival order */
    GArray *app_msg0;
    GArray *app_ep;
} RTKitAP;

void rtkit_ap_init(RTKitAP *ap, QTestState *qts, uint64_t asc_base,
                   uint64_t ram_base, uint64_t ram_size);
void rtkit_ap_free(RTKitAP *ap);

/* Mailbox level */
void rtkit_ap_send(RTKitAP *ap, uint8_t ep, uint64_t msg);
bool rtkit_ap_try_recv(RTKitAP *ap, uint8_t *ep, uint64_t *msg);
/* Wait (bounded) for the next message; fails the test if none comes */
void rtkit_ap_recv(RTKitAP *ap, uint8_t *ep, uint64_t *msg);

/* Set CPU_CONTROL.RUN */
void rtkit_ap_set_run(RTKitAP *ap, bool run);

/*
 * Handle one message the way Linux's RTKit does (management, system
 * endpoints; application messages are queued in app_msg0/app_ep).
 * Returns false if nothing arrived within the bound.
 */
bool rtkit_ap_process_one(RTKitAP *ap);
/* Process until the mailbox stays empty */
void rtkit_ap_process_all(RTKitAP *ap);

/* apple_rtkit_boot(): RUN, handshake, system endpoints, AP power on */
void rtkit_ap_boot(RTKitAP *ap);
void rtkit_ap_start_ep(RTKitAP *ap, uint8_t ep);
void rtkit_ap_set_ap_power(RTKitAP *ap, uint32_t state);
void rtkit_ap_set_iop_power(RTKitAP *ap, uint32_t state);

/* Wait for the next application message on @ep; returns its payload */
uint64_t rtkit_ap_wait_app(RTKitAP *ap, uint8_t ep);

/* Bump-allocate @size bytes of guest RAM (zeroed), 16K aligned */
uint64_t rtkit_ap_alloc(RTKitAP *ap, uint64_t size);

#endif
