/*
 * Apple ASC mailbox (v4)
 *
 * Register layout as Linux's drivers/soc/apple/mailbox.c and m1n1 use it.
 * The four interrupt lines are pure functions of the FIFO levels: v4 has
 * no mask or ack registers.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/apple/apple-log.h"
#include "hw/irq.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "hw/apple/apple-mbox.h"
#include "trace.h"

REG32(A2I_CONTROL, 0x110)
REG32(I2A_CONTROL, 0x114)
    FIELD(CONTROL, FULL, 16, 1)
    FIELD(CONTROL, EMPTY, 17, 1)
    FIELD(CONTROL, COUNT, 20, 4)
REG64(A2I_SEND0, 0x800)
REG64(A2I_SEND1, 0x808)
REG64(A2I_RECV0, 0x810)         /* coprocessor side */
REG64(A2I_RECV1, 0x818)
REG64(I2A_SEND0, 0x820)
REG64(I2A_SEND1, 0x828)
REG64(I2A_RECV0, 0x830)
REG64(I2A_RECV1, 0x838)

static bool fifo_full(const AppleMboxFifo *f)
{
    return f->count == APPLE_MBOX_FIFO_DEPTH;
}

static void fifo_push(AppleMboxFifo *f, uint64_t msg0, uint64_t msg1)
{
    uint32_t tail = (f->head + f->count) % APPLE_MBOX_FIFO_DEPTH;

    f->msg0[tail] = msg0;
    f->msg1[tail] = msg1;
    f->count++;
}

static void fifo_pop(AppleMboxFifo *f)
{
    f->head = (f->head + 1) % APPLE_MBOX_FIFO_DEPTH;
    f->count--;
}

static uint32_t fifo_control(const AppleMboxFifo *f)
{
    uint32_t v = 0;

    v = FIELD_DP32(v, CONTROL, FULL, fifo_full(f));
    v = FIELD_DP32(v, CONTROL, EMPTY, f->count == 0);
    return FIELD_DP32(v, CONTROL, COUNT, f->count);
}

static void apple_mbox_update(AppleMboxState *s)
{
    qemu_set_irq(s->irq[APPLE_MBOX_IRQ_SEND_EMPTY], s->a2i.count == 0);
    qemu_set_irq(s->irq[APPLE_MBOX_IRQ_SEND_NOT_EMPTY], s->a2i.count != 0);
    qemu_set_irq(s->irq[APPLE_MBOX_IRQ_RECV_EMPTY], s->i2a.count == 0);
    qemu_set_irq(s->irq[APPLE_MBOX_IRQ_RECV_NOT_EMPTY], s->i2a.count != 0);
}

static void apple_mbox_notify(AppleMboxState *s)
{
    if (s->notify) {
        s->notify(s->opaque);
    }
}

void apple_mbox_set_notify(AppleMboxState *s, void (*notify)(void *opaque),
                           void *opaque)
{
    s->notify = notify;
    s->opaque = opaque;
}

bool apple_mbox_iop_recv(AppleMboxState *s, uint64_t *msg0, uint64_t *msg1)
{
    if (!s->a2i.count) {
        return false;
    }
    *msg0 = s->a2i.msg0[s->a2i.head];
    *msg1 = s->a2i.msg1[s->a2i.head];
    fifo_pop(&s->a2i);
    apple_mbox_update(s);
    return true;
}

bool apple_mbox_iop_can_send(AppleMboxState *s)
{
    return !fifo_full(&s->i2a);
}

bool apple_mbox_iop_send(AppleMboxState *s, uint64_t msg0, uint64_t msg1)
{
    if (fifo_full(&s->i2a)) {
        return false;
    }
    fifo_push(&s->i2a, msg0, msg1);
    apple_mbox_update(s);
    return true;
}

/* The AP commits a message by writing SEND1 */
static void apple_mbox_a2i_commit(AppleMboxState *s, uint64_t msg1)
{
    if (fifo_full(&s->a2i)) {
        apple_log_mask(LOG_GUEST_ERROR, OBJECT(s),
                       "A2I FIFO overflow, message 0x%016" PRIx64
                       " 0x%016" PRIx64 " dropped\n", s->send0, msg1);
        return;
    }
    fifo_push(&s->a2i, s->send0, msg1);
    apple_mbox_update(s);
    apple_mbox_notify(s);
}

static uint64_t apple_mbox_read(void *opaque, hwaddr addr, unsigned size)
{
    AppleMboxState *s = opaque;
    AppleMboxFifo *f = &s->i2a;
    hwaddr reg = addr & ~7ULL;
    unsigned shift = (addr & 4) * 8;
    uint64_t val = 0;

    switch (addr) {
    case A_A2I_CONTROL:
        val = fifo_control(&s->a2i);
        break;
    case A_I2A_CONTROL:
        val = fifo_control(&s->i2a);
        break;
    case A_I2A_RECV0:
    case A_I2A_RECV0 + 4:
    case A_I2A_RECV1:
    case A_I2A_RECV1 + 4:
        if (!f->count) {
            apple_log_mask(LOG_GUEST_ERROR, OBJECT(s),
                           "read of empty I2A FIFO\n");
            break;
        }
        val = reg == A_I2A_RECV0 ? f->msg0[f->head] : f->msg1[f->head];
        val >>= shift;
        /* The message is consumed once its second half has been read */
        if (addr == A_I2A_RECV1) {
            fifo_pop(f);
            apple_mbox_update(s);
            apple_mbox_notify(s);
        }
        break;
    case A_A2I_RECV0 ... A_I2A_SEND1 + 7:
        apple_log_mask(LOG_GUEST_ERROR, OBJECT(s),
                       "AP read of coprocessor-side "
                       "register 0x%" HWADDR_PRIx "\n", addr);
        break;
    default:
        apple_log_mask(LOG_UNIMP, OBJECT(s),
                       "unimplemented read at 0x%" HWADDR_PRIx
                       "\n", addr);
        break;
    }
    if (size == 4) {
        val = (uint32_t)val;
    }
    trace_apple_mbox_read(addr, size, val);
    return val;
}

static void apple_mbox_write(void *opaque, hwaddr addr, uint64_t val,
                             unsigned size)
{
    AppleMboxState *s = opaque;

    trace_apple_mbox_write(addr, size, val);
    switch (addr) {
    case A_A2I_SEND0:
        s->send0 = size == 8 ? val : deposit64(s->send0, 0, 32, val);
        break;
    case A_A2I_SEND0 + 4:
        s->send0 = deposit64(s->send0, 32, 32, val);
        break;
    case A_A2I_SEND1:
        apple_mbox_a2i_commit(s, (uint32_t)val);
        break;
    case A_A2I_SEND1 + 4:
        /* The upper half of msg1 carries nothing */
        break;
    case A_A2I_CONTROL:
    case A_I2A_CONTROL:
        apple_log_mask(LOG_GUEST_ERROR, OBJECT(s), "write to read-only CONTROL "
                       "register 0x%" HWADDR_PRIx "\n", addr);
        break;
    case A_A2I_RECV0 ... A_I2A_RECV1 + 7:
        apple_log_mask(LOG_GUEST_ERROR, OBJECT(s), "AP write to %s register 0x%"
                       HWADDR_PRIx "\n",
                       addr >= A_I2A_RECV0 ? "read-only" : "coprocessor-side",
                       addr);
        break;
    default:
        apple_log_mask(LOG_UNIMP, OBJECT(s), "unimplemented write at 0x%"
                       HWADDR_PRIx "\n", addr);
        break;
    }
}

static const MemoryRegionOps apple_mbox_ops = {
    .read = apple_mbox_read,
    .write = apple_mbox_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 4,
    .valid.max_access_size = 8,
    .impl.min_access_size = 4,
    .impl.max_access_size = 8,
};

static void apple_mbox_reset_hold(Object *obj, ResetType type)
{
    AppleMboxState *s = APPLE_MBOX(obj);

    memset(&s->a2i, 0, sizeof(s->a2i));
    memset(&s->i2a, 0, sizeof(s->i2a));
    s->send0 = 0;
    apple_mbox_update(s);
}

static void apple_mbox_init(Object *obj)
{
    AppleMboxState *s = APPLE_MBOX(obj);

    memory_region_init_io(&s->iomem, obj, &apple_mbox_ops, s,
                          "apple-asc-mailbox", APPLE_MBOX_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(obj), &s->iomem);
    for (int i = 0; i < APPLE_MBOX_NUM_IRQS; i++) {
        sysbus_init_irq(SYS_BUS_DEVICE(obj), &s->irq[i]);
    }
}

static bool apple_mbox_fifo_valid(void *opaque, int version_id)
{
    AppleMboxFifo *f = opaque;

    return f->head < APPLE_MBOX_FIFO_DEPTH &&
           f->count <= APPLE_MBOX_FIFO_DEPTH;
}

static const VMStateDescription vmstate_apple_mbox_fifo = {
    .name = "apple-asc-mailbox/fifo",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64_ARRAY(msg0, AppleMboxFifo, APPLE_MBOX_FIFO_DEPTH),
        VMSTATE_UINT64_ARRAY(msg1, AppleMboxFifo, APPLE_MBOX_FIFO_DEPTH),
        VMSTATE_UINT32(head, AppleMboxFifo),
        VMSTATE_UINT32(count, AppleMboxFifo),
        VMSTATE_VALIDATE("fifo pointers in range", apple_mbox_fifo_valid),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_apple_mbox = {
    .name = TYPE_APPLE_MBOX,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(a2i, AppleMboxState, 1, vmstate_apple_mbox_fifo,
                       AppleMboxFifo),
        VMSTATE_STRUCT(i2a, AppleMboxState, 1, vmstate_apple_mbox_fifo,
                       AppleMboxFifo),
        VMSTATE_UINT64(send0, AppleMboxState),
        VMSTATE_END_OF_LIST()
    }
};

static void apple_mbox_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Apple ASC mailbox (v4)";
    dc->vmsd = &vmstate_apple_mbox;
    rc->phases.hold = apple_mbox_reset_hold;
}

static const TypeInfo apple_mbox_types[] = {
    {
        .name = TYPE_APPLE_MBOX,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(AppleMboxState),
        .instance_init = apple_mbox_init,
        .class_init = apple_mbox_class_init,
    },
};

DEFINE_TYPES(apple_mbox_types)
