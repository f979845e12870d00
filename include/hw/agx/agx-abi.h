/*
 * AGX G13 firmware ABIs: the layouts that differ between firmware versions
 *
 * One table per firmware version, read by generic code: the firmware model
 * never branches on the version itself, it looks offsets, sizes and
 * message tags up here.  Offsets are from the start of each structure.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_ABI_H
#define HW_AGX_AGX_ABI_H

#include <stdint.h>

typedef enum AgxFwVersion {
    AGX_FW_V12_3,
    AGX_FW_V13_5,
    AGX_FW_NUM_VERSIONS,
} AgxFwVersion;

typedef struct AgxAbi {
    AgxFwVersion version;
    const char *name;                   /* "13.5" */
    uint32_t compat[3];                 /* apple,firmware-compat */

    /* InitData */
    uint32_t initdata_size;
    uint32_t id_unk_buf;
    uint32_t id_runtime_pointers;
    uint32_t id_globals;
    uint32_t id_fw_status;
    uint32_t id_uat_page_size;          /* u16, then u8 bits, u8 levels */
    uint32_t id_uat_level_info;         /* 3 x 0x20 */
    uint32_t id_host_mapped_fw_allocations;

    /* Globals */
    uint32_t globals_size;
    uint32_t gl_pending_submissions;
    uint32_t gl_fault_control;
    uint32_t gl_do_init;
    uint32_t gl_idle_off_delay_ms;
    uint32_t gl_pending_stamps;         /* 256 x {u32 info, u32 value} */
    uint32_t gl_fault_info;
    uint32_t pending_stamp_slot_shift;  /* info >> shift & 0x7f = slot */

    /* HwDataA / HwDataB */
    uint32_t hwdata_a_size;
    uint32_t hwdata_a_min_size;         /* the least a driver maps */
    uint32_t hwa_pwr_status;
    uint32_t hwdata_b_size;
    uint32_t hwb_io_mappings;
    uint32_t hwb_num_io_mappings;
    uint32_t hwb_chip_id;
    uint32_t hwb_uat_ttb_base;
    uint32_t hwb_gpu_core_id;
    uint32_t hwb_gpu_rev_id;
    uint32_t hwb_num_cores;

    /* DeviceControl message tags */
    uint32_t dc_grow_tvb_ack;
    uint32_t dc_grow_tvb_ack_2023;      /* m1n1 and 2023 drivers' tag */
    uint32_t dc_update_idle_ts;
    uint32_t dc_recover_channel;
    uint32_t dc_destroy_context;
    uint32_t dc_initialize;
    /* DestroyContext fields */
    uint32_t dc_destroy_ctx_0;          /* u8 ctx_0, then ctx_1, ctx_4 */
    uint32_t dc_destroy_gpu_context;    /* u64 */

    /* Stats ring element size */
    uint32_t stats_msg_size;
} AgxAbi;

const AgxAbi *agx_abi_get(AgxFwVersion version);
/* "13.5" or "12.3"; NULL if unknown */
const AgxAbi *agx_abi_by_name(const char *name);

/* RuntimePointers: the same on every G13 ABI */
enum {
    AGX_RP_SIZE = 0x6bc0,
    AGX_RP_PIPES = 0x000,               /* [4 priorities] x {vtx, frag, comp} */
    AGX_RP_DEVICE_CONTROL = 0x0c0,
    AGX_RP_EVENT = 0x0d0,
    AGX_RP_FW_LOG = 0x0e0,
    AGX_RP_KTRACE = 0x0f0,
    AGX_RP_STATS = 0x100,
    AGX_RP_STATS_VTX = 0x170,
    AGX_RP_STATS_FRAG = 0x178,
    AGX_RP_STATS_COMP = 0x180,
    AGX_RP_HWDATA_A = 0x188,
    AGX_RP_HWDATA_B = 0x1a0,
    AGX_RP_FWLOG_BUF = 0x1b0,
    AGX_RP_BUFFER_MGR_CTL_GPU = 0x214,
    AGX_RP_BUFFER_MGR_CTL_FW = 0x21c,
    AGX_RP_HEAD_SIZE = 0x230,           /* what the firmware reads of it */
};

/* FwStatus */
enum {
    AGX_FWS_SIZE = 0x80,
    AGX_FWS_FWCTL = 0x00,               /* {state, ring} */
    AGX_FWS_HALT_COUNT = 0x10,
    AGX_FWS_HALTED = 0x20,
    AGX_FWS_RESUME = 0x30,
};

#endif
