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
#include "agx-structs.h"            /* generated from core/agx-structs.def */

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

/*
 * RuntimePointers and FwStatus: the same on every G13 ABI (the generated
 * AGX_<STRUCT>_<FIELD> exists only where every ABI agrees)
 */
enum {
    AGX_RP_SIZE = AGX_RUNTIME_POINTERS_SIZE,
    /* [4 priorities] x {vtx, frag, comp} */
    AGX_RP_PIPES = AGX_RUNTIME_POINTERS_PIPES,
    AGX_RP_DEVICE_CONTROL = AGX_RUNTIME_POINTERS_DEVICE_CONTROL,
    AGX_RP_EVENT = AGX_RUNTIME_POINTERS_EVENT,
    AGX_RP_FW_LOG = AGX_RUNTIME_POINTERS_FW_LOG,
    AGX_RP_KTRACE = AGX_RUNTIME_POINTERS_KTRACE,
    AGX_RP_STATS = AGX_RUNTIME_POINTERS_STATS,
    AGX_RP_STATS_VTX = AGX_RUNTIME_POINTERS_STATS_VTX,
    AGX_RP_STATS_FRAG = AGX_RUNTIME_POINTERS_STATS_FRAG,
    AGX_RP_STATS_COMP = AGX_RUNTIME_POINTERS_STATS_COMP,
    AGX_RP_HWDATA_A = AGX_RUNTIME_POINTERS_HWDATA_A,
    AGX_RP_HWDATA_B = AGX_RUNTIME_POINTERS_HWDATA_B,
    AGX_RP_FWLOG_BUF = AGX_RUNTIME_POINTERS_FWLOG_BUF,
    AGX_RP_BUFFER_MGR_CTL_GPU = AGX_RUNTIME_POINTERS_BUFFER_MGR_CTL_GPU,
    AGX_RP_BUFFER_MGR_CTL_FW = AGX_RUNTIME_POINTERS_BUFFER_MGR_CTL_FW,
    AGX_RP_HEAD_SIZE = AGX_RUNTIME_POINTERS_HEAD_END, /* what the model reads */
    AGX_FWS_SIZE = AGX_FW_STATUS_SIZE,
    AGX_FWS_FWCTL = AGX_FW_STATUS_FWCTL,        /* {state, ring} */
    AGX_FWS_HALT_COUNT = AGX_FW_STATUS_HALT_COUNT,
    AGX_FWS_HALTED = AGX_FW_STATUS_HALTED,
    AGX_FWS_RESUME = AGX_FW_STATUS_RESUME,
    /* m1n1's DC_UpdateIdleTS: not one of the driver's positional tags */
    AGX_DC_UPDATE_IDLE_TS = 0x23,
};

#endif
