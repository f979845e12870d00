/*
 * AGX G13 firmware ABI tables (12.3 and 13.5): agx-abi.h's layouts, one
 * table per version
 *
 * No offset is written here: they are laid out at build time from the
 * field lists in core/agx-structs.def, which names the sources and checks
 * the sizes the driver asserts.  tests/unit/test-abi.c checks invariants
 * of the result (sizes, bounds, the tags both driver generations agree
 * on).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/agx/agx-abi.h"

/*
 * One table per ABI, from the generated layouts (agx-structs.h, from
 * core/agx-structs.def).  L(V, STRUCT, FIELD) is the offset of FIELD in
 * STRUCT on ABI V.
 *
 * HwDataA: the model reads no field of it, and checks only the part
 * every driver maps: m1n1's Python layout has no high word of the
 * driver's U64 fast_die0_sensor_present before 13.0b4 (0x3d68 bytes on
 * 12.3), and m1n1 allocates HwDataA flush against the end of a page.
 *
 * DeviceControl tags: newer drivers insert Unk0d from 13.3 on (so
 * GrowTVBAck is 0x0e on 13.5); the 2023 drivers and m1n1 still send 0x0d
 * there, and neither generation sends the other's tag, so both are
 * GrowTVBAck.  UpdateIdleTS is m1n1's, sent right after its Initialize,
 * at a tag past the end of the driver's enum; drm/asahi never sends it.
 *
 * Pending stamp slot: gpu.rs mark_pending_events, (info >> 4) & 0x7f from
 * 13.5 on, (info >> 3) & 0x7f before.
 */
#define L(v, s, f)      AGX_ ## v ## _ ## s ## _ ## f

#define AGX_ABI(v, maj, min, shift) { \
    .version = AGX_FW_ ## v, \
    .name = #maj "." #min, \
    .compat = { maj, min, 0 }, \
    .initdata_size = L(v, INIT_DATA, SIZE), \
    .id_unk_buf = L(v, INIT_DATA, UNK_BUF), \
    .id_runtime_pointers = L(v, INIT_DATA, RUNTIME_POINTERS), \
    .id_globals = L(v, INIT_DATA, GLOBALS), \
    .id_fw_status = L(v, INIT_DATA, FW_STATUS), \
    .id_uat_page_size = L(v, INIT_DATA, UAT_PAGE_SIZE), \
    .id_uat_level_info = L(v, INIT_DATA, UAT_LEVEL_INFO), \
    .id_host_mapped_fw_allocations = \
        L(v, INIT_DATA, HOST_MAPPED_FW_ALLOCATIONS), \
    .globals_size = L(v, GLOBALS, SIZE), \
    .gl_pending_submissions = L(v, GLOBALS, PENDING_SUBMISSIONS), \
    .gl_fault_control = L(v, GLOBALS, FAULT_CONTROL), \
    .gl_do_init = L(v, GLOBALS, DO_INIT), \
    .gl_idle_off_delay_ms = L(v, GLOBALS, IDLE_OFF_DELAY_MS), \
    .gl_pending_stamps = L(v, GLOBALS, PENDING_STAMPS), \
    .gl_fault_info = L(v, GLOBALS, FAULT_INFO), \
    .pending_stamp_slot_shift = (shift), \
    .hwdata_a_size = L(v, HW_DATA_A, SIZE), \
    .hwdata_a_min_size = L(v, HW_DATA_A, SIZE) - \
        (L(v, HW_DATA_A, FAST_DIE0_SENSOR_PRESENT_HI) == AGX_FIELD_ABSENT ? \
         0 : 4), \
    .hwa_pwr_status = L(v, HW_DATA_A, PWR_STATUS), \
    .hwdata_b_size = L(v, HW_DATA_B, SIZE), \
    .hwb_io_mappings = L(v, HW_DATA_B, IO_MAPPINGS), \
    .hwb_num_io_mappings = L(v, HW_DATA_B, IO_MAPPINGS_COUNT), \
    .hwb_chip_id = L(v, HW_DATA_B, CHIP_ID), \
    .hwb_uat_ttb_base = L(v, HW_DATA_B, UAT_TTB_BASE), \
    .hwb_gpu_core_id = L(v, HW_DATA_B, GPU_CORE_ID), \
    .hwb_gpu_rev_id = L(v, HW_DATA_B, GPU_REV_ID), \
    .hwb_num_cores = L(v, HW_DATA_B, NUM_CORES), \
    .dc_grow_tvb_ack = L(v, DEVICE_CONTROL, GROW_TVB_ACK), \
    .dc_grow_tvb_ack_2023 = L(v, DEVICE_CONTROL2023, GROW_TVB_ACK), \
    .dc_update_idle_ts = AGX_DC_UPDATE_IDLE_TS, \
    .dc_recover_channel = L(v, DEVICE_CONTROL, RECOVER_CHANNEL), \
    .dc_destroy_context = L(v, DEVICE_CONTROL, DESTROY_CONTEXT), \
    .dc_initialize = L(v, DEVICE_CONTROL, INITIALIZE), \
    .dc_destroy_ctx_0 = L(v, DESTROY_CONTEXT_MSG, CTX_0), \
    .dc_destroy_gpu_context = L(v, DESTROY_CONTEXT_MSG, GPU_CONTEXT), \
    .stats_msg_size = L(v, STATS_MSG, SIZE), \
}

static const AgxAbi agx_abis[AGX_FW_NUM_VERSIONS] = {
    [AGX_FW_V12_3] = AGX_ABI(V12_3, 12, 3, 3),
    [AGX_FW_V13_5] = AGX_ABI(V13_5, 13, 5, 4),
};

const AgxAbi *agx_abi_get(AgxFwVersion version)
{
    return version < AGX_FW_NUM_VERSIONS ? &agx_abis[version] : NULL;
}

const AgxAbi *agx_abi_by_name(const char *name)
{
    for (int i = 0; i < AGX_FW_NUM_VERSIONS; i++) {
        if (name && !strcmp(agx_abis[i].name, name)) {
            return &agx_abis[i];
        }
    }
    return NULL;
}
