/*
 * Unit tests for the firmware ABI tables (agx-abi.c): the InitData,
 * Globals, HwDataA/B and device-control layouts of 13.5 and 12.3, the
 * RuntimePointers and FwStatus layouts both share, and the lookups.  The
 * expected numbers are written out here from the drm/asahi driver's
 * #[repr(C)] structures (fw/initdata.rs, fw/channels.rs), not taken from
 * the table; comments mark where the sources disagree.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/agx/agx-abi.h"

static void test_13_5(void)
{
    const AgxAbi *a = agx_abi_get(AGX_FW_V13_5);

    g_assert_cmpstr(a->name, ==, "13.5");
    g_assert_cmpuint(a->compat[0], ==, 13);
    g_assert_cmpuint(a->compat[1], ==, 5);
    g_assert_cmpuint(a->compat[2], ==, 0);
    /* InitData: ver_info[4] u16 first; 0xbc as the packed struct is */
    g_assert_cmphex(a->initdata_size, ==, 0xbc);
    g_assert_cmphex(a->id_unk_buf, ==, 0x08);
    g_assert_cmphex(a->id_runtime_pointers, ==, 0x18);
    g_assert_cmphex(a->id_globals, ==, 0x20);
    g_assert_cmphex(a->id_fw_status, ==, 0x28);
    g_assert_cmphex(a->id_uat_page_size, ==, 0x30);
    g_assert_cmphex(a->id_uat_level_info, ==, 0x34);
    g_assert_cmphex(a->id_host_mapped_fw_allocations, ==, 0xa8);
    /* Globals */
    g_assert_cmphex(a->globals_size, ==, 0x12394);
    g_assert_cmphex(a->gl_pending_submissions, ==, 0x8974);
    g_assert_cmphex(a->gl_fault_control, ==, 0x10fd8);
    g_assert_cmphex(a->gl_do_init, ==, 0x10fdc);
    g_assert_cmphex(a->gl_idle_off_delay_ms, ==, 0x1119c);
    g_assert_cmphex(a->gl_pending_stamps, ==, 0x111a8);
    g_assert_cmphex(a->gl_fault_info, ==, 0x11a2c);
    g_assert_cmpuint(a->pending_stamp_slot_shift, ==, 4);
    /* HwDataA / HwDataB */
    g_assert_cmphex(a->hwdata_a_size, ==, 0x421c);
    g_assert_cmphex(a->hwa_pwr_status, ==, 0x10);
    g_assert_cmphex(a->hwdata_b_size, ==, 0x1884);
    g_assert_cmphex(a->hwb_io_mappings, ==, 0x640);
    g_assert_cmpuint(a->hwb_num_io_mappings, ==, 0x19);
    g_assert_cmphex(a->hwb_chip_id, ==, 0x968);
    g_assert_cmphex(a->hwb_uat_ttb_base, ==, 0xa78);
    g_assert_cmphex(a->hwb_gpu_core_id, ==, 0xa80);
    g_assert_cmphex(a->hwb_gpu_rev_id, ==, 0xa84);
    g_assert_cmphex(a->hwb_num_cores, ==, 0xa88);
    /* Device control: 13.3+ inserts Unk0d before GrowTVBAck */
    g_assert_cmphex(a->dc_grow_tvb_ack, ==, 0x0e);
    g_assert_cmphex(a->dc_recover_channel, ==, 0x0f);
    g_assert_cmphex(a->dc_destroy_context, ==, 0x18);
    g_assert_cmphex(a->dc_initialize, ==, 0x1a);
    g_assert_cmphex(a->dc_destroy_ctx_0, ==, 0x11);
    g_assert_cmphex(a->dc_destroy_gpu_context, ==, 0x14);
    g_assert_cmphex(a->stats_msg_size, ==, 0x40);
}

static void test_12_3(void)
{
    const AgxAbi *a = agx_abi_get(AGX_FW_V12_3);

    g_assert_cmpstr(a->name, ==, "12.3");
    g_assert_cmpuint(a->compat[0], ==, 12);
    g_assert_cmpuint(a->compat[1], ==, 3);
    /* No ver_info: every InitData field 8 bytes earlier */
    g_assert_cmphex(a->initdata_size, ==, 0xb4);
    g_assert_cmphex(a->id_unk_buf, ==, 0x00);
    g_assert_cmphex(a->id_runtime_pointers, ==, 0x10);
    g_assert_cmphex(a->id_globals, ==, 0x18);
    g_assert_cmphex(a->id_fw_status, ==, 0x20);
    g_assert_cmphex(a->id_uat_page_size, ==, 0x28);
    g_assert_cmphex(a->id_uat_level_info, ==, 0x2c);
    g_assert_cmphex(a->id_host_mapped_fw_allocations, ==, 0xa0);
    g_assert_cmphex(a->globals_size, ==, 0x11d40);
    g_assert_cmphex(a->gl_pending_submissions, ==, 0x8904);
    g_assert_cmphex(a->gl_fault_control, ==, 0x10e80);
    g_assert_cmphex(a->gl_do_init, ==, 0x10e84);
    g_assert_cmphex(a->gl_idle_off_delay_ms, ==, 0x11030);
    g_assert_cmphex(a->gl_pending_stamps, ==, 0x1103c);
    g_assert_cmphex(a->gl_fault_info, ==, 0x118c0);
    g_assert_cmpuint(a->pending_stamp_slot_shift, ==, 3);
    /* fast_die0_sensor_present is a u64 in the driver: 0x3d6c */
    g_assert_cmphex(a->hwdata_a_size, ==, 0x3d6c);
    g_assert_cmphex(a->hwa_pwr_status, ==, 0x0c);
    g_assert_cmphex(a->hwdata_b_size, ==, 0xb6c);
    g_assert_cmphex(a->hwb_io_mappings, ==, 0x1d0);
    g_assert_cmpuint(a->hwb_num_io_mappings, ==, 0x14);
    g_assert_cmphex(a->dc_grow_tvb_ack, ==, 0x0d);
    g_assert_cmphex(a->dc_recover_channel, ==, 0x0e);
    g_assert_cmphex(a->dc_destroy_context, ==, 0x17);
    g_assert_cmphex(a->dc_initialize, ==, 0x19);
    g_assert_cmphex(a->dc_destroy_ctx_0, ==, 0x14);
    g_assert_cmphex(a->dc_destroy_gpu_context, ==, 0x1c);
    g_assert_cmphex(a->stats_msg_size, ==, 0x30);
}

static void test_shared_layouts(void)
{
    g_assert_cmphex(AGX_RP_SIZE, ==, 0x6bc0);
    g_assert_cmphex(AGX_RP_DEVICE_CONTROL, ==, 0xc0);
    g_assert_cmphex(AGX_RP_EVENT, ==, 0xd0);
    g_assert_cmphex(AGX_RP_FW_LOG, ==, 0xe0);
    g_assert_cmphex(AGX_RP_KTRACE, ==, 0xf0);
    g_assert_cmphex(AGX_RP_STATS, ==, 0x100);
    g_assert_cmphex(AGX_RP_HWDATA_A, ==, 0x188);
    g_assert_cmphex(AGX_RP_HWDATA_B, ==, 0x1a0);
    g_assert_cmphex(AGX_RP_FWLOG_BUF, ==, 0x1b0);
    g_assert_cmphex(AGX_RP_BUFFER_MGR_CTL_GPU, ==, 0x214);
    g_assert_cmphex(AGX_RP_BUFFER_MGR_CTL_FW, ==, 0x21c);
    g_assert_cmphex(AGX_FWS_SIZE, ==, 0x80);
    g_assert_cmphex(AGX_FWS_HALT_COUNT, ==, 0x10);
    g_assert_cmphex(AGX_FWS_HALTED, ==, 0x20);
    g_assert_cmphex(AGX_FWS_RESUME, ==, 0x30);
}

static void test_lookup(void)
{
    g_assert_true(agx_abi_by_name("13.5") == agx_abi_get(AGX_FW_V13_5));
    g_assert_true(agx_abi_by_name("12.3") == agx_abi_get(AGX_FW_V12_3));
    g_assert_null(agx_abi_by_name("13.3"));
    g_assert_null(agx_abi_by_name(NULL));
    g_assert_null(agx_abi_get(AGX_FW_NUM_VERSIONS));
    /* Every structure the firmware reads ends inside its size */
    for (int v = 0; v < AGX_FW_NUM_VERSIONS; v++) {
        const AgxAbi *a = agx_abi_get(v);

        g_assert_cmpuint(a->id_uat_level_info + 3 * 0x20, <=,
                         a->id_host_mapped_fw_allocations);
        g_assert_cmpuint(a->id_host_mapped_fw_allocations + 4, <=,
                         a->initdata_size);
        g_assert_cmpuint(a->gl_pending_stamps + 256 * 8, <=, a->gl_fault_info);
        g_assert_cmpuint(a->gl_fault_info + 0x18, <=, a->globals_size);
        g_assert_cmpuint(a->hwb_num_cores + 4, <=, a->hwdata_b_size);
        g_assert_cmpuint(a->dc_destroy_gpu_context + 8, <=, 0x30);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/abi/13.5/layouts-match-the-driver", test_13_5);
    g_test_add_func("/abi/12.3/layouts-match-the-driver", test_12_3);
    g_test_add_func("/abi/shared-layouts", test_shared_layouts);
    g_test_add_func("/abi/lookup-and-bounds", test_lookup);
    return g_test_run();
}
