/*
 * AGX G13 firmware ABI tables (12.3 and 13.5): agx-abi.h's layouts, one
 * table per version
 *
 * Every offset and size was computed from the #[repr(C)] definitions of
 * the drm/asahi driver and checked against m1n1; the comment above the
 * tables names the sources of each structure and says where they disagree
 * and which one the table follows.  tests/unit/test-abi.c checks the
 * tables against numbers written out from the driver's structures.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include <string.h>
#include "hw/agx/agx-abi.h"

/*
 * InitData: driver fw/initdata.rs raw::InitData (GpuPointer is packed, so
 * the structure is 4-byte aligned: 0xbc bytes, 0xb4 without the 13.x
 * ver_info); m1n1 proxyclient/m1n1/fw/agx/initdata.py InitData agrees.
 *
 * Globals, HwDataA, HwDataB: driver fw/initdata.rs and m1n1
 * rust/src/gpu/raw.rs (identical layouts) for G13; m1n1's Python
 * construct layouts agree except for HwDataA on 12.3, where Python has a
 * 32-bit fast_die0_sensor_present and so 0x3d68 bytes; the Rust structures
 * (which m1n1 sizes its hw-cal-a blob with) have a U64 and 0x3d6c bytes.
 * m1n1's Python driver, run on real M1s, allocates its 0x3d68 bytes flush
 * against the end of a page, so the firmware reads no further than that:
 * the model checks HwDataA up to hwdata_a_min_size.
 *
 * DeviceControl tags: the variant index of the driver's repr(C, u32) enum
 * fw/channels.rs DeviceControlMsg, which in newer drivers gains Unk0d from
 * 13.3 on (so GrowTVBAck moves from 0x0d to 0x0e); the 2023 driver
 * (ah-/kernel-asahi 2cf78974) and m1n1's channels.py still send 0x0d on
 * 13.5, so both are GrowTVBAck there (neither generation sends the other
 * tag).  Both generations agree on DestroyContext 0x17 / 0x18 and
 * Initialize 0x19 / 0x1a (a 13.3 Unk17 precedes them); UpdateIdleTS is
 * 0x23 on both ABIs (m1n1 DC_UpdateIdleTS, sent right after DC_Init;
 * drm/asahi never sends it).
 * DestroyContext's fields from the same enum (13.3 dropped its padding).
 * Stats: 4 + STATS_SZ (0x2c before 13.0b4, 0x3c after).  Pending stamp
 * slot: gpu.rs mark_pending_events, (info >> 4) & 0x7f from 13.5 on,
 * (info >> 3) & 0x7f before.
 */
static const AgxAbi agx_abis[AGX_FW_NUM_VERSIONS] = {
    [AGX_FW_V12_3] = {
        .version = AGX_FW_V12_3,
        .name = "12.3",
        .compat = { 12, 3, 0 },
        /* No ver_info at the start: everything 8 bytes earlier */
        .initdata_size = 0xb4,
        .id_unk_buf = 0x00,
        .id_runtime_pointers = 0x10,
        .id_globals = 0x18,
        .id_fw_status = 0x20,
        .id_uat_page_size = 0x28,
        .id_uat_level_info = 0x2c,
        .id_host_mapped_fw_allocations = 0xa0,
        .globals_size = 0x11d40,
        .gl_pending_submissions = 0x8904,
        .gl_fault_control = 0x10e80,
        .gl_do_init = 0x10e84,
        .gl_idle_off_delay_ms = 0x11030,
        .gl_pending_stamps = 0x1103c,
        .gl_fault_info = 0x118c0,
        .pending_stamp_slot_shift = 3,
        .hwdata_a_size = 0x3d6c,
        .hwdata_a_min_size = 0x3d68,
        .hwa_pwr_status = 0x0c,
        .hwdata_b_size = 0xb6c,
        .hwb_io_mappings = 0x1d0,
        .hwb_num_io_mappings = 0x14,
        .hwb_chip_id = 0x450,
        .hwb_uat_ttb_base = 0x558,
        .hwb_gpu_core_id = 0x560,
        .hwb_gpu_rev_id = 0x564,
        .hwb_num_cores = 0x568,
        .dc_grow_tvb_ack = 0x0d,
        .dc_grow_tvb_ack_2023 = 0x0d,
        .dc_update_idle_ts = 0x23,
        .dc_recover_channel = 0x0e,
        .dc_destroy_context = 0x17,
        .dc_initialize = 0x19,
        .dc_destroy_ctx_0 = 0x14,
        .dc_destroy_gpu_context = 0x1c,
        .stats_msg_size = 0x30,
    },
    [AGX_FW_V13_5] = {
        .version = AGX_FW_V13_5,
        .name = "13.5",
        .compat = { 13, 5, 0 },
        .initdata_size = 0xbc,
        .id_unk_buf = 0x08,
        .id_runtime_pointers = 0x18,
        .id_globals = 0x20,
        .id_fw_status = 0x28,
        .id_uat_page_size = 0x30,
        .id_uat_level_info = 0x34,
        .id_host_mapped_fw_allocations = 0xa8,
        .globals_size = 0x12394,
        .gl_pending_submissions = 0x8974,
        .gl_fault_control = 0x10fd8,
        .gl_do_init = 0x10fdc,
        .gl_idle_off_delay_ms = 0x1119c,
        .gl_pending_stamps = 0x111a8,
        .gl_fault_info = 0x11a2c,
        .pending_stamp_slot_shift = 4,
        .hwdata_a_size = 0x421c,
        .hwdata_a_min_size = 0x421c,
        .hwa_pwr_status = 0x10,
        .hwdata_b_size = 0x1884,
        .hwb_io_mappings = 0x640,
        .hwb_num_io_mappings = 0x19,
        .hwb_chip_id = 0x968,
        .hwb_uat_ttb_base = 0xa78,
        .hwb_gpu_core_id = 0xa80,
        .hwb_gpu_rev_id = 0xa84,
        .hwb_num_cores = 0xa88,
        .dc_grow_tvb_ack = 0x0e,
        .dc_grow_tvb_ack_2023 = 0x0d,
        .dc_update_idle_ts = 0x23,
        .dc_recover_channel = 0x0f,
        .dc_destroy_context = 0x18,
        .dc_initialize = 0x1a,
        .dc_destroy_ctx_0 = 0x11,
        .dc_destroy_gpu_context = 0x14,
        .stats_msg_size = 0x40,
    },
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
