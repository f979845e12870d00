/*
 * Apple Interrupt Controller, version 1 (AIC on t8103)
 *
 * Register layout as Linux's drivers/irqchip/irq-apple-aic.c and m1n1
 * use it.  Lines are level-triggered; a line is pending while its input is
 * high or its software bit is set.  The registers at 0x2000 are a view of
 * the CPU that makes the access.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "hw/core/cpu.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "hw/apple/apple-aic.h"
#include "trace.h"

REG32(INFO, 0x0004)
    FIELD(INFO, NR_IRQ, 0, 16)
REG32(CONFIG, 0x0010)
REG32(WHOAMI, 0x2000)
REG32(EVENT, 0x2004)
    FIELD(EVENT, NUM, 0, 16)
    FIELD(EVENT, TYPE, 16, 8)
    FIELD(EVENT, DIE, 24, 8)
REG32(IPI_SEND, 0x2008)
REG32(IPI_ACK, 0x200c)
REG32(IPI_MASK_SET, 0x2024)
REG32(IPI_MASK_CLR, 0x2028)
REG32(TARGET_CPU, 0x3000)
REG32(SW_SET, 0x4000)
REG32(SW_CLR, 0x4080)
REG32(MASK_SET, 0x4100)
REG32(MASK_CLR, 0x4180)
REG32(HW_STATE, 0x4200)
/* Per-CPU views of the IPI registers: CPU n's at CPU_IPI_BASE + n * 0x80 */
REG32(CPU_IPI_BASE, 0x5000)
REG32(CPU_IPI_SET, 0x08)
REG32(CPU_IPI_CLR, 0x0c)
REG32(CPU_IPI_MASK_SET, 0x24)
REG32(CPU_IPI_MASK_CLR, 0x28)

#define CPU_IPI_STRIDE      0x80
#define IRQ_ARRAY_BYTES     (APPLE_AIC_IRQ_WORDS * 4)

#define EVENT_TYPE_IRQ      1
#define EVENT_TYPE_IPI      4
#define EVENT_IPI_OTHER     1
#define EVENT_IPI_SELF      2

#define IPI_BITS            (APPLE_AIC_IPI_OTHER | APPLE_AIC_IPI_SELF)

static const char *aic_name(AppleAICState *s)
{
    return object_get_canonical_path_component(OBJECT(s));
}

/* The CPU making the access; qtest accesses act as CPU 0 */
static unsigned aic_current_cpu(AppleAICState *s)
{
    if (current_cpu && current_cpu->cpu_index < s->num_cpu) {
        return current_cpu->cpu_index;
    }
    return 0;
}

static uint32_t aic_pending_word(AppleAICState *s, unsigned w)
{
    return (s->hw_level[w] | s->sw_pending[w]) & ~s->mask[w];
}

/* Lowest pending, unmasked line routed to @cpu, or -1 */
static int aic_next_irq(AppleAICState *s, unsigned cpu)
{
    for (unsigned w = 0; w < DIV_ROUND_UP(s->num_irq, 32); w++) {
        uint32_t word = aic_pending_word(s, w);

        while (word) {
            unsigned irq = w * 32 + ctz32(word);

            if (s->target[irq] & BIT(cpu)) {
                return irq;
            }
            word &= word - 1;
        }
    }
    return -1;
}

static uint32_t aic_ipi_active(AppleAICState *s, unsigned cpu)
{
    return s->ipi_pending[cpu] & ~s->ipi_mask[cpu];
}

static void aic_update(AppleAICState *s)
{
    for (unsigned cpu = 0; cpu < s->num_cpu; cpu++) {
        bool level = aic_ipi_active(s, cpu) || aic_next_irq(s, cpu) >= 0;

        qemu_set_irq(s->irq[cpu], level);
    }
}

static void aic_set_irq(void *opaque, int irq, int level)
{
    AppleAICState *s = opaque;

    trace_apple_aic_set_irq(irq, level);
    if (level) {
        s->hw_level[irq / 32] |= BIT(irq % 32);
    } else {
        s->hw_level[irq / 32] &= ~BIT(irq % 32);
    }
    aic_update(s);
}

/* Read-to-acknowledge: hand out the best event for @cpu and mask it */
static uint32_t aic_ack_event(AppleAICState *s, unsigned cpu)
{
    uint32_t ipi = aic_ipi_active(s, cpu);
    uint32_t event = 0;
    int irq = aic_next_irq(s, cpu);

    if (irq >= 0) {
        s->mask[irq / 32] |= BIT(irq % 32);
        event = FIELD_DP32(event, EVENT, TYPE, EVENT_TYPE_IRQ);
        event = FIELD_DP32(event, EVENT, NUM, irq);
    } else if (ipi & APPLE_AIC_IPI_OTHER) {
        s->ipi_mask[cpu] |= APPLE_AIC_IPI_OTHER;
        event = FIELD_DP32(event, EVENT, TYPE, EVENT_TYPE_IPI);
        event = FIELD_DP32(event, EVENT, NUM, EVENT_IPI_OTHER);
    } else if (ipi & APPLE_AIC_IPI_SELF) {
        s->ipi_mask[cpu] |= APPLE_AIC_IPI_SELF;
        event = FIELD_DP32(event, EVENT, TYPE, EVENT_TYPE_IPI);
        event = FIELD_DP32(event, EVENT, NUM, EVENT_IPI_SELF);
    }
    trace_apple_aic_event(cpu, event);
    aic_update(s);
    return event;
}

static uint32_t aic_check_ipi_bits(AppleAICState *s, hwaddr addr,
                                   uint32_t val)
{
    if (val & ~IPI_BITS) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: reserved IPI bits 0x%08x "
                      "written at 0x%" HWADDR_PRIx "\n", aic_name(s),
                      val & ~IPI_BITS, addr);
    }
    return val & IPI_BITS;
}

/* The IPI registers of @cpu, reached through its own or the local view */
static void aic_write_ipi(AppleAICState *s, unsigned cpu, hwaddr reg,
                          hwaddr addr, uint32_t val)
{
    val = aic_check_ipi_bits(s, addr, val);
    switch (reg) {
    case A_CPU_IPI_SET:
        s->ipi_pending[cpu] |= val;
        break;
    case A_CPU_IPI_CLR:
        s->ipi_pending[cpu] &= ~val;
        break;
    case A_CPU_IPI_MASK_SET:
        s->ipi_mask[cpu] |= val;
        break;
    case A_CPU_IPI_MASK_CLR:
        s->ipi_mask[cpu] &= ~val;
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: write to unknown per-CPU IPI "
                      "register 0x%" HWADDR_PRIx "\n", aic_name(s), addr);
        return;
    }
    aic_update(s);
}

static void aic_send_ipi(AppleAICState *s, uint32_t cpus)
{
    uint32_t valid = MAKE_64BIT_MASK(0, s->num_cpu);

    if (cpus & ~valid) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: IPI_SEND to absent CPUs 0x%08x\n",
                      aic_name(s), cpus & ~valid);
    }
    cpus &= valid;
    for (unsigned cpu = 0; cpu < s->num_cpu; cpu++) {
        if (cpus & BIT(cpu)) {
            s->ipi_pending[cpu] |= APPLE_AIC_IPI_OTHER;
        }
    }
    aic_update(s);
}

static bool aic_irq_in_range(AppleAICState *s, unsigned irq, hwaddr addr,
                             bool write)
{
    if (irq < s->num_irq) {
        return true;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "%s: %s of TARGET_CPU for line %u, but "
                  "there are %u lines (0x%" HWADDR_PRIx ")\n", aic_name(s),
                  write ? "write" : "read", irq, s->num_irq, addr);
    return false;
}

/*
 * The lines of word @word of the SW, MASK and HW_STATE arrays that exist:
 * the arrays are laid out for APPLE_AIC_MAX_IRQ lines, but as TARGET_CPU,
 * they hold nothing for lines beyond num-irq.  An access that names such
 * lines is logged; their bits read as 0 and writes to them are dropped.
 */
static uint32_t aic_word_lines(AppleAICState *s, unsigned word, hwaddr addr,
                               uint32_t written, bool write)
{
    uint32_t lines;

    if (word * 32 >= s->num_irq) {
        lines = 0;
    } else if (s->num_irq - word * 32 >= 32) {
        lines = UINT32_MAX;
    } else {
        lines = MAKE_64BIT_MASK(0, s->num_irq - word * 32);
    }
    if (write ? written & ~lines : !lines) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: %s of lines %u..%u, but there "
                      "are %u lines (0x%" HWADDR_PRIx ")\n", aic_name(s),
                      write ? "write" : "read", word * 32, word * 32 + 31,
                      s->num_irq, addr);
    }
    return lines;
}

static uint64_t aic_read(void *opaque, hwaddr addr, unsigned size)
{
    AppleAICState *s = opaque;
    unsigned cpu = aic_current_cpu(s);
    unsigned word = (addr & (IRQ_ARRAY_BYTES - 1)) / 4;
    uint64_t val = 0;

    switch (addr) {
    case A_INFO:
        val = FIELD_DP32(0, INFO, NR_IRQ, s->num_irq);
        break;
    case A_CONFIG:
        break;
    case A_WHOAMI:
        val = cpu;
        break;
    case A_EVENT:
        val = aic_ack_event(s, cpu);
        break;
    case A_IPI_MASK_SET:
    case A_IPI_MASK_CLR:
        val = s->ipi_mask[cpu];
        break;
    case A_TARGET_CPU ... A_TARGET_CPU + APPLE_AIC_MAX_IRQ * 4 - 1:
        if (aic_irq_in_range(s, (addr - A_TARGET_CPU) / 4, addr, false)) {
            val = s->target[(addr - A_TARGET_CPU) / 4];
        }
        break;
    case A_SW_SET ... A_SW_SET + IRQ_ARRAY_BYTES - 1:
    case A_SW_CLR ... A_SW_CLR + IRQ_ARRAY_BYTES - 1:
        val = s->sw_pending[word] & aic_word_lines(s, word, addr, 0, false);
        break;
    case A_MASK_SET ... A_MASK_SET + IRQ_ARRAY_BYTES - 1:
    case A_MASK_CLR ... A_MASK_CLR + IRQ_ARRAY_BYTES - 1:
        val = s->mask[word] & aic_word_lines(s, word, addr, 0, false);
        break;
    case A_HW_STATE ... A_HW_STATE + IRQ_ARRAY_BYTES - 1:
        val = s->hw_level[word] & aic_word_lines(s, word, addr, 0, false);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: read of unknown register 0x%"
                      HWADDR_PRIx "\n", aic_name(s), addr);
        break;
    }
    trace_apple_aic_read(addr, val);
    return val;
}

static void aic_write(void *opaque, hwaddr addr, uint64_t val64,
                      unsigned size)
{
    AppleAICState *s = opaque;
    unsigned cpu = aic_current_cpu(s);
    unsigned word = (addr & (IRQ_ARRAY_BYTES - 1)) / 4;
    uint32_t val = val64;

    trace_apple_aic_write(addr, val);
    switch (addr) {
    case A_IPI_SEND:
        aic_send_ipi(s, val);
        return;
    case A_IPI_ACK:
        aic_write_ipi(s, cpu, A_CPU_IPI_CLR, addr, val);
        return;
    case A_IPI_MASK_SET:
        aic_write_ipi(s, cpu, A_CPU_IPI_MASK_SET, addr, val);
        return;
    case A_IPI_MASK_CLR:
        aic_write_ipi(s, cpu, A_CPU_IPI_MASK_CLR, addr, val);
        return;
    case A_CONFIG:
        return;
    case A_TARGET_CPU ... A_TARGET_CPU + APPLE_AIC_MAX_IRQ * 4 - 1:
        if (aic_irq_in_range(s, (addr - A_TARGET_CPU) / 4, addr, true)) {
            s->target[(addr - A_TARGET_CPU) / 4] =
                val & MAKE_64BIT_MASK(0, s->num_cpu);
        }
        break;
    case A_SW_SET ... A_SW_SET + IRQ_ARRAY_BYTES - 1:
        s->sw_pending[word] |= val & aic_word_lines(s, word, addr, val, true);
        break;
    case A_SW_CLR ... A_SW_CLR + IRQ_ARRAY_BYTES - 1:
        s->sw_pending[word] &= ~(val & aic_word_lines(s, word, addr, val,
                                                      true));
        break;
    case A_MASK_SET ... A_MASK_SET + IRQ_ARRAY_BYTES - 1:
        s->mask[word] |= val & aic_word_lines(s, word, addr, val, true);
        break;
    case A_MASK_CLR ... A_MASK_CLR + IRQ_ARRAY_BYTES - 1:
        s->mask[word] &= ~(val & aic_word_lines(s, word, addr, val, true));
        break;
    case A_CPU_IPI_BASE ... A_CPU_IPI_BASE + APPLE_AIC_MAX_CPUS *
                            CPU_IPI_STRIDE - 1: {
        unsigned target = (addr - A_CPU_IPI_BASE) / CPU_IPI_STRIDE;

        if (target >= s->num_cpu) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: write to the IPI view of "
                          "absent CPU %u (0x%" HWADDR_PRIx ")\n",
                          aic_name(s), target, addr);
            return;
        }
        aic_write_ipi(s, target, addr % CPU_IPI_STRIDE, addr, val);
        return;
    }
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: write of 0x%08x to unknown or "
                      "read-only register 0x%" HWADDR_PRIx "\n", aic_name(s),
                      val, addr);
        return;
    }
    aic_update(s);
}

static const MemoryRegionOps aic_ops = {
    .read = aic_read,
    .write = aic_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 4,
    .valid.max_access_size = 4,
    .impl.min_access_size = 4,
    .impl.max_access_size = 4,
};

static void aic_reset_hold(Object *obj, ResetType type)
{
    AppleAICState *s = APPLE_AIC(obj);

    /* Every line masked and routed to CPU 0, no IPI pending or masked */
    for (unsigned i = 0; i < APPLE_AIC_MAX_IRQ; i++) {
        s->target[i] = 1;
    }
    memset(s->sw_pending, 0, sizeof(s->sw_pending));
    memset(s->mask, 0xff, sizeof(s->mask));
    memset(s->ipi_pending, 0, sizeof(s->ipi_pending));
    memset(s->ipi_mask, 0, sizeof(s->ipi_mask));
}

static void aic_reset_exit(Object *obj, ResetType type)
{
    aic_update(APPLE_AIC(obj));
}

static void aic_init(Object *obj)
{
    AppleAICState *s = APPLE_AIC(obj);

    memory_region_init_io(&s->iomem, obj, &aic_ops, s, TYPE_APPLE_AIC,
                          APPLE_AIC_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(obj), &s->iomem);
}

static void aic_realize(DeviceState *dev, Error **errp)
{
    AppleAICState *s = APPLE_AIC(dev);

    if (s->num_irq == 0 || s->num_irq > APPLE_AIC_MAX_IRQ) {
        error_setg(errp, "num-irq must be 1..%d", APPLE_AIC_MAX_IRQ);
        return;
    }
    if (s->num_cpu == 0 || s->num_cpu > APPLE_AIC_MAX_CPUS) {
        error_setg(errp, "num-cpu must be 1..%d", APPLE_AIC_MAX_CPUS);
        return;
    }
    qdev_init_gpio_in(dev, aic_set_irq, s->num_irq);
    for (unsigned cpu = 0; cpu < s->num_cpu; cpu++) {
        sysbus_init_irq(SYS_BUS_DEVICE(dev), &s->irq[cpu]);
    }
}

static const VMStateDescription vmstate_apple_aic = {
    .name = TYPE_APPLE_AIC,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_ARRAY(target, AppleAICState, APPLE_AIC_MAX_IRQ),
        VMSTATE_UINT32_ARRAY(hw_level, AppleAICState, APPLE_AIC_IRQ_WORDS),
        VMSTATE_UINT32_ARRAY(sw_pending, AppleAICState, APPLE_AIC_IRQ_WORDS),
        VMSTATE_UINT32_ARRAY(mask, AppleAICState, APPLE_AIC_IRQ_WORDS),
        VMSTATE_UINT32_ARRAY(ipi_pending, AppleAICState, APPLE_AIC_MAX_CPUS),
        VMSTATE_UINT32_ARRAY(ipi_mask, AppleAICState, APPLE_AIC_MAX_CPUS),
        VMSTATE_END_OF_LIST()
    }
};

static const Property aic_properties[] = {
    DEFINE_PROP_UINT32("num-irq", AppleAICState, num_irq,
                       APPLE_AIC_T8103_IRQS),
    DEFINE_PROP_UINT32("num-cpu", AppleAICState, num_cpu, 1),
};

static void aic_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Apple Interrupt Controller (AICv1)";
    dc->realize = aic_realize;
    dc->vmsd = &vmstate_apple_aic;
    device_class_set_props(dc, aic_properties);
    rc->phases.hold = aic_reset_hold;
    rc->phases.exit = aic_reset_exit;
}

static const TypeInfo aic_types[] = {
    {
        .name = TYPE_APPLE_AIC,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(AppleAICState),
        .instance_init = aic_init,
        .class_init = aic_class_init,
    },
};

DEFINE_TYPES(aic_types)
