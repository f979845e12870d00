/*
 * Apple S5L UART ("apple,s5l-uart"), as on t8103
 *
 * A Samsung S3C-style UART with 16-byte FIFOs whose interrupt enables sit
 * in UCON and whose interrupt flags sit in UTRSTAT (write 1 to clear).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_APPLE_APPLE_S5L_UART_H
#define HW_APPLE_APPLE_S5L_UART_H

#include "chardev/char-fe.h"
#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_APPLE_S5L_UART "apple-s5l-uart"
OBJECT_DECLARE_SIMPLE_TYPE(AppleS5LUARTState, APPLE_S5L_UART)

#define APPLE_S5L_UART_SIZE     0x1000
#define APPLE_S5L_UART_FIFO     16

struct AppleS5LUARTState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;
    CharBackend chr;
    qemu_irq irq;

    uint32_t ulcon;
    uint32_t ucon;
    uint32_t ufcon;
    uint32_t umcon;
    uint32_t utrstat;           /* the interrupt flags only */
    uint32_t ubrdiv;
    uint8_t rx_fifo[APPLE_S5L_UART_FIFO];
    uint32_t rx_head;
    uint32_t rx_count;
};

#endif
