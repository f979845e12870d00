/*
 * Unit tests for the firmware ABI tables (agx-abi.c): InitData, Globals,
 * HwDataA/B, RuntimePointers, FwStatus and the device-control tags of
 * 13.5 and 12.3, and the lookups.
 *
 * The offsets are laid out at build time from core/agx-structs.def,
 * whose size lines already fail the build when a field list disagrees
 * with a size the driver asserts.  So these tests restate no offset;
 * they check what must hold of any correct table: the sizes the driver
 * allocates, every field the model reads inside its structure and in the
 * driver's order, and the tags both generations of the driver agree on.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/agx/agx-abi.h"

static const AgxFwVersion versions[] = { AGX_FW_V13_5, AGX_FW_V12_3 };

static const AgxAbi *abi_of(gconstpointer data)
{
    const AgxAbi *a = agx_abi_get(*(const AgxFwVersion *)data);

    g_assert_nonnull(a);
    return a;
}

static gboolean is_13x(const AgxAbi *a)
{
    return a->compat[0] >= 13;
}

/*
 * The sizes the driver allocates and checks (fw/initdata.rs, fw/
 * channels.rs; m1n1's initdata.py allocates the same): InitData has an
 * 8-byte ver_info from 13.0b4 on; the stats message payload grows from
 * 0x2c to 0x3c bytes.
 */
static void test_driver_sizes(gconstpointer data)
{
    const AgxAbi *a = abi_of(data);

    g_assert_cmphex(a->initdata_size, ==, is_13x(a) ? 0xbc : 0xb4);
    g_assert_cmphex(a->globals_size, ==, is_13x(a) ? 0x12394 : 0x11d40);
    g_assert_cmphex(a->hwdata_a_size, ==, is_13x(a) ? 0x421c : 0x3d6c);
    g_assert_cmphex(a->hwdata_b_size, ==, is_13x(a) ? 0x1884 : 0xb6c);
    g_assert_cmphex(a->stats_msg_size, ==, 4 + (is_13x(a) ? 0x3c : 0x2c));
    g_assert_cmphex(AGX_RP_SIZE, ==, 0x6bc0);
    g_assert_cmphex(AGX_FWS_SIZE, ==, 0x80);
    /* m1n1's Python HwDataA lacks only the high word of a 12.3 U64 */
    g_assert_cmpuint(a->hwdata_a_min_size, <=, a->hwdata_a_size);
    g_assert_cmpuint(a->hwdata_a_min_size + (is_13x(a) ? 0 : 4), ==,
                     a->hwdata_a_size);
}

/* InitData: the fields the driver fills, in its order, inside it */
static void test_initdata(gconstpointer data)
{
    const AgxAbi *a = abi_of(data);

    /* ver_info (u16[4]) comes first from 13.0b4 on */
    g_assert_cmpuint(a->id_unk_buf, ==, is_13x(a) ? 8 : 0);
    /* unk_buf, 2 u32, then the three pointers back to back */
    g_assert_cmpuint(a->id_unk_buf + 16, ==, a->id_runtime_pointers);
    g_assert_cmpuint(a->id_runtime_pointers + 8, ==, a->id_globals);
    g_assert_cmpuint(a->id_globals + 8, ==, a->id_fw_status);
    g_assert_cmpuint(a->id_fw_status + 8, ==, a->id_uat_page_size);
    /* u16 page size, u8 bits, u8 levels, then 3 level infos */
    g_assert_cmpuint(a->id_uat_page_size + 4, ==, a->id_uat_level_info);
    g_assert_cmpuint(a->id_uat_level_info + 3 * 0x20, <=,
                     a->id_host_mapped_fw_allocations);
    g_assert_cmpuint(a->id_host_mapped_fw_allocations + 4, <=,
                     a->initdata_size);
    g_assert_cmpuint(a->id_uat_page_size % 4, ==, 0);
}

/* Globals, HwDataA/B: every field the model touches is inside */
static void test_power_structures(gconstpointer data)
{
    const AgxAbi *a = abi_of(data);

    g_assert_cmpuint(a->gl_pending_submissions + 4, <=, a->gl_fault_control);
    g_assert_cmpuint(a->gl_fault_control + 4, ==, a->gl_do_init);
    g_assert_cmpuint(a->gl_do_init + 4, <=, a->gl_idle_off_delay_ms);
    /* idle_off_delay_ms, fender's, early wake, then the stamps */
    g_assert_cmpuint(a->gl_idle_off_delay_ms + 12, ==,
                     a->gl_pending_stamps);
    g_assert_cmpuint(a->gl_pending_stamps + 256 * 8, <=, a->gl_fault_info);
    g_assert_cmpuint(a->gl_fault_info + AGX_FAULT_INFO_SIZE, <=,
                     a->globals_size);
    g_assert_cmpuint(a->pending_stamp_slot_shift, ==, is_13x(a) ? 4 : 3);

    /* clocks_per_period_2 (13.0b4) precedes pwr_status */
    g_assert_cmpuint(a->hwa_pwr_status, ==, is_13x(a) ? 0x10 : 0x0c);
    g_assert_cmpuint(a->hwa_pwr_status + 4, <=, a->hwdata_a_min_size);

    /* HwDataB: IOMappings of 0x20 bytes, then (13.x) an SRAM pointer */
    g_assert_cmpuint(a->hwb_io_mappings + a->hwb_num_io_mappings * 0x20 +
                     (is_13x(a) ? 8 : 0), ==, a->hwb_chip_id);
    /* 12.3 has 0x14 mappings, 13.5 0x19 (0x17 from 13.0b4, 0x18 13.3) */
    g_assert_cmpuint(a->hwb_num_io_mappings, ==, is_13x(a) ? 0x19 : 0x14);
    g_assert_cmpuint(a->hwb_chip_id, <, a->hwb_uat_ttb_base);
    g_assert_cmpuint(a->hwb_uat_ttb_base + 8, ==, a->hwb_gpu_core_id);
    g_assert_cmpuint(a->hwb_gpu_core_id + 4, ==, a->hwb_gpu_rev_id);
    g_assert_cmpuint(a->hwb_gpu_rev_id + 4, ==, a->hwb_num_cores);
    g_assert_cmpuint(a->hwb_num_cores + 4, <=, a->hwdata_b_size);
}

/*
 * DeviceControl: tags are positions in the driver's enum.  Both driver
 * generations agree on DestroyContext and Initialize; the newer one's
 * 13.3 entry sits before GrowTVBAck, the 2023 one's after it.
 */
static void test_device_control(gconstpointer data)
{
    const AgxAbi *a = abi_of(data);

    g_assert_cmpuint(a->dc_grow_tvb_ack_2023, ==, 0x0d);
    g_assert_cmpuint(a->dc_grow_tvb_ack, ==,
                     a->dc_grow_tvb_ack_2023 + (is_13x(a) ? 1 : 0));
    g_assert_cmpuint(a->dc_recover_channel, ==, a->dc_grow_tvb_ack + 1);
    g_assert_cmpuint(a->dc_destroy_context, ==, is_13x(a) ? 0x18 : 0x17);
    g_assert_cmpuint(a->dc_destroy_context, ==,
                     AGX_V12_3_DEVICE_CONTROL2023_DESTROY_CONTEXT +
                     (is_13x(a) ? 1 : 0));
    g_assert_cmpuint(a->dc_initialize, ==, a->dc_destroy_context + 2);
    g_assert_cmpuint(a->dc_update_idle_ts, >, a->dc_initialize);
    /* DestroyContext: u8 ctx_0 then (after 12.3's padding) the context */
    g_assert_cmpuint(a->dc_destroy_ctx_0 + 3 + (is_13x(a) ? 0 : 5), ==,
                     a->dc_destroy_gpu_context);
    g_assert_cmpuint(a->dc_destroy_gpu_context + 8, <=, 0x30);
}

/* RuntimePointers and FwStatus: the same on every ABI */
static void test_shared_layouts(void)
{
    /* 4 priorities x 3 pipes, then device control .. stats channels */
    g_assert_cmpuint(AGX_RP_PIPES + 12 * AGX_CHANNEL_INFO_SIZE, ==,
                     AGX_RP_DEVICE_CONTROL);
    g_assert_cmpuint(AGX_RP_DEVICE_CONTROL + AGX_CHANNEL_INFO_SIZE, ==,
                     AGX_RP_EVENT);
    g_assert_cmpuint(AGX_RP_EVENT + AGX_CHANNEL_INFO_SIZE, ==,
                     AGX_RP_FW_LOG);
    g_assert_cmpuint(AGX_RP_FW_LOG + AGX_CHANNEL_INFO_SIZE, ==,
                     AGX_RP_KTRACE);
    g_assert_cmpuint(AGX_RP_KTRACE + AGX_CHANNEL_INFO_SIZE, ==,
                     AGX_RP_STATS);
    g_assert_cmpuint(AGX_RP_STATS_VTX + 8, ==, AGX_RP_STATS_FRAG);
    g_assert_cmpuint(AGX_RP_STATS_FRAG + 8, ==, AGX_RP_STATS_COMP);
    g_assert_cmpuint(AGX_RP_STATS_COMP + 8, ==, AGX_RP_HWDATA_A);
    /* hwdata_a, fault_info, unk_198, hwdata_b */
    g_assert_cmpuint(AGX_RP_HWDATA_A + 3 * 8, ==, AGX_RP_HWDATA_B);
    g_assert_cmpuint(AGX_RP_BUFFER_MGR_CTL_GPU + 8, ==,
                     AGX_RP_BUFFER_MGR_CTL_FW);
    g_assert_cmpuint(AGX_RP_BUFFER_MGR_CTL_FW + 8, <=, AGX_RP_HEAD_SIZE);
    g_assert_cmpuint(AGX_RP_HEAD_SIZE, <=, AGX_RP_SIZE);
    /* FwStatus: fwctl channel, then u32 fields in 16-byte cells */
    g_assert_cmpuint(AGX_FWS_FWCTL + AGX_CHANNEL_INFO_SIZE, ==,
                     AGX_FWS_HALT_COUNT);
    g_assert_cmpuint(AGX_FWS_HALT_COUNT + 0x10, ==, AGX_FWS_HALTED);
    g_assert_cmpuint(AGX_FWS_HALTED + 0x10, ==, AGX_FWS_RESUME);
}

/*
 * Where the newest drivers (jannau/linux, herrnst/linux-asahi, their fw/)
 * put what the 2023 one put elsewhere, stated as their field order:
 * QueueInfo's 13.2 word right after busy's 0x20-byte pad (the 2023
 * driver had it before gpu_context); Globals' 13.3 padding after the
 * 0x900-byte block at 0x8000, not before it; HwDataB's 13.0b4 word
 * before unk_534, not before num_frags; the Scene's 13.3 U64 before its
 * Stats pointer.
 */
static void test_newest_driver_order(void)
{
    /* QueueInfo: busy, pad[0x20], [unk_84_0], unk_84_state, error_count */
    g_assert_cmpuint(AGX_V13_5_QUEUE_INFO_UNK_84_0, ==,
                     AGX_V13_5_QUEUE_INFO_BUSY + 4 + 0x20);
    g_assert_cmpuint(AGX_V13_5_QUEUE_INFO_UNK_84_STATE, ==,
                     AGX_V13_5_QUEUE_INFO_UNK_84_0 + 4);
    g_assert_cmpuint(AGX_V12_3_QUEUE_INFO_UNK_84_STATE, ==,
                     AGX_V12_3_QUEUE_INFO_BUSY + 4 + 0x20);
    /* ... error_count, 3 words, pending, unk_9c, gpu_context */
    g_assert_cmpuint(AGX_V13_5_QUEUE_INFO_ERROR_COUNT, ==,
                     AGX_V13_5_QUEUE_INFO_UNK_84_STATE + 4);
    g_assert_cmpuint(AGX_V13_5_QUEUE_INFO_PENDING, ==,
                     AGX_V13_5_QUEUE_INFO_ERROR_COUNT + 0x10);
    g_assert_cmpuint(AGX_V13_5_QUEUE_INFO_GPU_CONTEXT, ==,
                     AGX_V13_5_QUEUE_INFO_PENDING + 8);
    g_assert_cmpuint(AGX_V12_3_QUEUE_INFO_GPU_CONTEXT, ==,
                     AGX_V12_3_QUEUE_INFO_PENDING + 8);
    /* Globals: unk_80[0xf80], unk_1000[0x7000], unk_8000[0x900], pad */
    g_assert_cmpuint(AGX_V13_5_GLOBALS_UNK_8000, ==,
                     AGX_V13_5_GLOBALS_UNK_4080 +
                     AGX_V13_5_GLOBALS_UNK_4080_COUNT);
    g_assert_cmpuint(AGX_V13_5_GLOBALS_UNK_8900_PAD2, ==,
                     AGX_V13_5_GLOBALS_UNK_8000 + 0x900);
    g_assert_cmpuint(AGX_V13_5_GLOBALS_UNK_8900, ==,
                     AGX_V13_5_GLOBALS_UNK_8900_PAD2 + 0x54);
    g_assert_cmpuint(AGX_V12_3_GLOBALS_UNK_8900, ==,
                     AGX_V12_3_GLOBALS_UNK_8000 + 0x900);
    /* HwDataB: unk_528..530, [unk_534_0], unk_534, unk_538, num_frags */
    g_assert_cmpuint(AGX_V13_5_HW_DATA_B_UNK_534_0, ==,
                     AGX_V13_5_HW_DATA_B_UNK_528 + 0xc);
    g_assert_cmpuint(AGX_V13_5_HW_DATA_B_UNK_534, ==,
                     AGX_V13_5_HW_DATA_B_UNK_534_0 + 4);
    g_assert_cmpuint(AGX_V13_5_HW_DATA_B_NUM_FRAGS, ==,
                     AGX_V13_5_HW_DATA_B_UNK_534 + 8);
    g_assert_cmpuint(AGX_V12_3_HW_DATA_B_UNK_534, ==,
                     AGX_V12_3_HW_DATA_B_UNK_528 + 0xc);
    /* Scene: unk_20, [unk_28 U64], stats, total_page_count */
    g_assert_cmpuint(AGX_V13_5_BUFFER_SCENE_STATS, ==,
                     AGX_V13_5_BUFFER_SCENE_UNK_20 + 4 + 8);
    g_assert_cmpuint(AGX_V12_3_BUFFER_SCENE_STATS, ==,
                     AGX_V12_3_BUFFER_SCENE_UNK_20 + 4);
}

static void test_lookup(void)
{
    g_assert_true(agx_abi_by_name("13.5") == agx_abi_get(AGX_FW_V13_5));
    g_assert_true(agx_abi_by_name("12.3") == agx_abi_get(AGX_FW_V12_3));
    g_assert_null(agx_abi_by_name("13.3"));
    g_assert_null(agx_abi_by_name(NULL));
    g_assert_null(agx_abi_get(AGX_FW_NUM_VERSIONS));
    for (int v = 0; v < AGX_FW_NUM_VERSIONS; v++) {
        const AgxAbi *a = agx_abi_get(v);
        g_autofree char *name = g_strdup_printf("%u.%u", a->compat[0],
                                                a->compat[1]);

        g_assert_cmpint(a->version, ==, v);
        g_assert_cmpstr(a->name, ==, name);
        g_assert_cmpuint(a->compat[2], ==, 0);
    }
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        GTestDataFunc fn;
    } per_version[] = {
        { "driver-sizes", test_driver_sizes },
        { "initdata", test_initdata },
        { "power-structures", test_power_structures },
        { "device-control", test_device_control },
    };

    g_test_init(&argc, &argv, NULL);
    for (size_t v = 0; v < G_N_ELEMENTS(versions); v++) {
        const char *ver = versions[v] == AGX_FW_V12_3 ? "12.3" : "13.5";

        for (size_t t = 0; t < G_N_ELEMENTS(per_version); t++) {
            g_autofree char *path = g_strdup_printf("/abi/%s/%s", ver,
                                                    per_version[t].name);

            g_test_add_data_func(path, &versions[v], per_version[t].fn);
        }
    }
    g_test_add_func("/abi/shared-layouts", test_shared_layouts);
    g_test_add_func("/abi/lookup", test_lookup);
    g_test_add_func("/abi/newest-driver-order", test_newest_driver_order);
    return g_test_run();
}
