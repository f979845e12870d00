/*
 * Apple S5L UART ("apple,s5l-uart"), as on t8103
 *
 * Registers and bits as Linux's drivers/tty/serial/samsung_tty.c drives
 * the Apple variant (include/linux/serial_s3c.h): S3C2410-style UFSTAT,
 * interrupt enables in UCON, write-1-to-clear interrupt flags in UTRSTAT.
 * Transmission is immediate, so the TX FIFO always reads empty and every
 * byte sent raises the TX threshold flag.  The RX timeout is not timed: a
 * received batch below the RX threshold raises the timeout flags at once.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "hw/apple/apple-s5l-uart.h"
#include "trace.h"

REG32(ULCON, 0x00)
REG32(UCON, 0x04)
    FIELD(UCON, RXTO_ENA, 9, 1)
    FIELD(UCON, RXTO_LEGACY_ENA, 11, 1)
    FIELD(UCON, RXTHRESH_ENA, 12, 1)
    FIELD(UCON, TXTHRESH_ENA, 13, 1)
REG32(UFCON, 0x08)
    FIELD(UFCON, FIFO_ENA, 0, 1)
    FIELD(UFCON, RESET_RX, 1, 1)
    FIELD(UFCON, RESET_TX, 2, 1)
    FIELD(UFCON, RX_TRIG, 4, 2)
REG32(UMCON, 0x0c)
REG32(UTRSTAT, 0x10)
    FIELD(UTRSTAT, RXDR, 0, 1)
    FIELD(UTRSTAT, TXFE, 1, 1)
    FIELD(UTRSTAT, TXE, 2, 1)
    FIELD(UTRSTAT, RXTO_LEGACY, 3, 1)
    FIELD(UTRSTAT, RXTHRESH, 4, 1)
    FIELD(UTRSTAT, TXTHRESH, 5, 1)
    FIELD(UTRSTAT, RXTO, 9, 1)
REG32(UERSTAT, 0x14)
REG32(UFSTAT, 0x18)
    FIELD(UFSTAT, RX_COUNT, 0, 4)
    FIELD(UFSTAT, TX_COUNT, 4, 4)
    FIELD(UFSTAT, RX_FULL, 8, 1)
    FIELD(UFSTAT, TX_FULL, 9, 1)
REG32(UMSTAT, 0x1c)
    FIELD(UMSTAT, CTS, 0, 1)
REG32(UTXH, 0x20)
REG32(URXH, 0x24)
REG32(UBRDIV, 0x28)

#define UTRSTAT_FLAGS   (R_UTRSTAT_RXTO_LEGACY_MASK | \
                         R_UTRSTAT_RXTHRESH_MASK | \
                         R_UTRSTAT_TXTHRESH_MASK | \
                         R_UTRSTAT_RXTO_MASK)
#define UFCON_RW_MASK   (~(R_UFCON_RESET_RX_MASK | R_UFCON_RESET_TX_MASK))

static const char *uart_name(AppleS5LUARTState *s)
{
    return object_get_canonical_path_component(OBJECT(s));
}

static unsigned uart_rx_capacity(AppleS5LUARTState *s)
{
    return FIELD_EX32(s->ufcon, UFCON, FIFO_ENA) ? APPLE_S5L_UART_FIFO : 1;
}

/* RX trigger levels of the S3C2410 layout: 4, 8, 12 or 16 bytes */
static unsigned uart_rx_trigger(AppleS5LUARTState *s)
{
    return (FIELD_EX32(s->ufcon, UFCON, RX_TRIG) + 1) * 4;
}

static void uart_update(AppleS5LUARTState *s)
{
    uint32_t f = s->utrstat;
    bool level;

    level = (FIELD_EX32(f, UTRSTAT, RXTHRESH) &&
             FIELD_EX32(s->ucon, UCON, RXTHRESH_ENA)) ||
            (FIELD_EX32(f, UTRSTAT, TXTHRESH) &&
             FIELD_EX32(s->ucon, UCON, TXTHRESH_ENA)) ||
            (FIELD_EX32(f, UTRSTAT, RXTO) &&
             FIELD_EX32(s->ucon, UCON, RXTO_ENA)) ||
            (FIELD_EX32(f, UTRSTAT, RXTO_LEGACY) &&
             FIELD_EX32(s->ucon, UCON, RXTO_LEGACY_ENA));
    qemu_set_irq(s->irq, level);
}

static uint32_t uart_utrstat(AppleS5LUARTState *s)
{
    uint32_t v = s->utrstat;

    v = FIELD_DP32(v, UTRSTAT, RXDR, s->rx_count != 0);
    v = FIELD_DP32(v, UTRSTAT, TXFE, 1);
    return FIELD_DP32(v, UTRSTAT, TXE, 1);
}

static uint32_t uart_ufstat(AppleS5LUARTState *s)
{
    if (s->rx_count >= APPLE_S5L_UART_FIFO) {
        return FIELD_DP32(0, UFSTAT, RX_FULL, 1);
    }
    return FIELD_DP32(0, UFSTAT, RX_COUNT, s->rx_count);
}

static uint32_t uart_pop_rx(AppleS5LUARTState *s)
{
    uint8_t c;

    if (!s->rx_count) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: URXH read with nothing "
                      "received\n", uart_name(s));
        return 0;
    }
    c = s->rx_fifo[s->rx_head];
    s->rx_head = (s->rx_head + 1) % APPLE_S5L_UART_FIFO;
    s->rx_count--;
    qemu_chr_fe_accept_input(&s->chr);
    return c;
}

static void uart_transmit(AppleS5LUARTState *s, uint8_t c)
{
    /* Blocking, like most of QEMU's simple UARTs: no TX FIFO to model */
    qemu_chr_fe_write_all(&s->chr, &c, 1);
    s->utrstat = FIELD_DP32(s->utrstat, UTRSTAT, TXTHRESH, 1);
}

static void uart_write_ufcon(AppleS5LUARTState *s, uint32_t val)
{
    if (FIELD_EX32(val, UFCON, RESET_RX)) {
        s->rx_head = 0;
        s->rx_count = 0;
        qemu_chr_fe_accept_input(&s->chr);
    }
    s->ufcon = val & UFCON_RW_MASK;
}

static uint64_t uart_read(void *opaque, hwaddr addr, unsigned size)
{
    AppleS5LUARTState *s = opaque;
    uint64_t val = 0;

    switch (addr) {
    case A_ULCON:
        val = s->ulcon;
        break;
    case A_UCON:
        val = s->ucon;
        break;
    case A_UFCON:
        val = s->ufcon;
        break;
    case A_UMCON:
        val = s->umcon;
        break;
    case A_UTRSTAT:
        val = uart_utrstat(s);
        break;
    case A_UERSTAT:
        /* No line errors on a chardev */
        break;
    case A_UFSTAT:
        val = uart_ufstat(s);
        break;
    case A_UMSTAT:
        val = FIELD_DP32(0, UMSTAT, CTS, 1);
        break;
    case A_URXH:
        val = uart_pop_rx(s);
        break;
    case A_UBRDIV:
        val = s->ubrdiv;
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: read of unknown or write-only "
                      "register 0x%" HWADDR_PRIx "\n", uart_name(s), addr);
        break;
    }
    trace_apple_s5l_uart_read(addr, val);
    return val;
}

static void uart_write(void *opaque, hwaddr addr, uint64_t val64,
                       unsigned size)
{
    AppleS5LUARTState *s = opaque;
    uint32_t val = val64;

    trace_apple_s5l_uart_write(addr, val);
    switch (addr) {
    case A_ULCON:
        s->ulcon = val;
        break;
    case A_UCON:
        s->ucon = val;
        break;
    case A_UFCON:
        uart_write_ufcon(s, val);
        break;
    case A_UMCON:
        s->umcon = val;
        break;
    case A_UTRSTAT:
        s->utrstat &= ~(val & UTRSTAT_FLAGS);
        break;
    case A_UTXH:
        uart_transmit(s, val);
        break;
    case A_UBRDIV:
        s->ubrdiv = val;
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: write of 0x%08x to unknown or "
                      "read-only register 0x%" HWADDR_PRIx "\n",
                      uart_name(s), val, addr);
        return;
    }
    uart_update(s);
}

static const MemoryRegionOps uart_ops = {
    .read = uart_read,
    .write = uart_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 4,
    .valid.max_access_size = 4,
    .impl.min_access_size = 4,
    .impl.max_access_size = 4,
};

static int uart_can_receive(void *opaque)
{
    AppleS5LUARTState *s = opaque;
    unsigned capacity = uart_rx_capacity(s);

    return s->rx_count < capacity ? capacity - s->rx_count : 0;
}

/*
 * The backend delivers what uart_can_receive() promised, maybe after the
 * guest has turned the FIFO off: the bytes in flight are still accepted,
 * up to what the FIFO holds, and FIFO-less reception resumes once they
 * were read (uart_can_receive() says 0 until then).
 */
static void uart_receive(void *opaque, const uint8_t *buf, int size)
{
    AppleS5LUARTState *s = opaque;
    unsigned capacity = uart_rx_capacity(s);

    for (int i = 0; i < size; i++) {
        if (s->rx_count >= APPLE_S5L_UART_FIFO) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: RX FIFO overrun, %d bytes "
                          "dropped\n", uart_name(s), size - i);
            break;
        }
        s->rx_fifo[(s->rx_head + s->rx_count) % APPLE_S5L_UART_FIFO] = buf[i];
        s->rx_count++;
    }
    trace_apple_s5l_uart_receive(size, s->rx_count);
    if (s->rx_count >= MIN(uart_rx_trigger(s), capacity)) {
        s->utrstat = FIELD_DP32(s->utrstat, UTRSTAT, RXTHRESH, 1);
    } else {
        s->utrstat = FIELD_DP32(s->utrstat, UTRSTAT, RXTO, 1);
        s->utrstat = FIELD_DP32(s->utrstat, UTRSTAT, RXTO_LEGACY, 1);
    }
    uart_update(s);
}

static void uart_reset_hold(Object *obj, ResetType type)
{
    AppleS5LUARTState *s = APPLE_S5L_UART(obj);

    s->ulcon = 0;
    s->ucon = 0;
    s->ufcon = 0;
    s->umcon = 0;
    s->utrstat = 0;
    s->ubrdiv = 0;
    s->rx_head = 0;
    s->rx_count = 0;
}

static void uart_reset_exit(Object *obj, ResetType type)
{
    uart_update(APPLE_S5L_UART(obj));
}

static void uart_init(Object *obj)
{
    AppleS5LUARTState *s = APPLE_S5L_UART(obj);

    memory_region_init_io(&s->iomem, obj, &uart_ops, s, TYPE_APPLE_S5L_UART,
                          APPLE_S5L_UART_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(obj), &s->iomem);
    sysbus_init_irq(SYS_BUS_DEVICE(obj), &s->irq);
}

static void uart_realize(DeviceState *dev, Error **errp)
{
    AppleS5LUARTState *s = APPLE_S5L_UART(dev);

    qemu_chr_fe_set_handlers(&s->chr, uart_can_receive, uart_receive,
                             NULL, NULL, s, NULL, true);
}

static bool uart_fifo_valid(void *opaque, int version_id)
{
    AppleS5LUARTState *s = opaque;

    return s->rx_head < APPLE_S5L_UART_FIFO &&
           s->rx_count <= APPLE_S5L_UART_FIFO;
}

static const VMStateDescription vmstate_apple_s5l_uart = {
    .name = TYPE_APPLE_S5L_UART,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(ulcon, AppleS5LUARTState),
        VMSTATE_UINT32(ucon, AppleS5LUARTState),
        VMSTATE_UINT32(ufcon, AppleS5LUARTState),
        VMSTATE_UINT32(umcon, AppleS5LUARTState),
        VMSTATE_UINT32(utrstat, AppleS5LUARTState),
        VMSTATE_UINT32(ubrdiv, AppleS5LUARTState),
        VMSTATE_UINT8_ARRAY(rx_fifo, AppleS5LUARTState, APPLE_S5L_UART_FIFO),
        VMSTATE_UINT32(rx_head, AppleS5LUARTState),
        VMSTATE_UINT32(rx_count, AppleS5LUARTState),
        VMSTATE_VALIDATE("RX FIFO pointers in range", uart_fifo_valid),
        VMSTATE_END_OF_LIST()
    }
};

static const Property uart_properties[] = {
    DEFINE_PROP_CHR("chardev", AppleS5LUARTState, chr),
};

static void uart_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Apple S5L UART";
    dc->realize = uart_realize;
    dc->vmsd = &vmstate_apple_s5l_uart;
    device_class_set_props(dc, uart_properties);
    rc->phases.hold = uart_reset_hold;
    rc->phases.exit = uart_reset_exit;
}

static const TypeInfo uart_types[] = {
    {
        .name = TYPE_APPLE_S5L_UART,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(AppleS5LUARTState),
        .instance_init = uart_init,
        .class_init = uart_class_init,
    },
};

DEFINE_TYPES(uart_types)
