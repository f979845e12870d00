/*
 * AGX firmware: the job parameter blocks, read when a job starts
 *
 * The layouts are agx-structs.def's (VertexJobParameters1/2,
 * TilingParameters, FragmentJobParameters1/2/3, ComputeJobParameters1/2
 * and the Run records); this file names the fields the GPU is programmed
 * from and keeps what the last job of each pipe carried.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <glib.h>
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-params.h"

/* O(V, STRUCT, FIELD): FIELD's offset in STRUCT on ABI V */
#define O(v, s, f)      AGX_ ## v ## _ ## s ## _ ## f
#define REC             AGX_PARAMS_RECORD
#define OPA             AGX_PARAMS_OP_A
#define OPB             AGX_PARAMS_OP_B

/* A field, a field of a field, a field of a field of a field */
#define F1(n, b, w, s, f) \
    { n, b, w, { O(V12_3, s, f), O(V13_5, s, f) } }
#define F2(n, b, w, s, f, s2, f2) \
    { n, b, w, { O(V12_3, s, f) + O(V12_3, s2, f2), \
                 O(V13_5, s, f) + O(V13_5, s2, f2) } }
#define F3(n, b, w, s, f, s2, f2, s3, f3) \
    { n, b, w, { O(V12_3, s, f) + O(V12_3, s2, f2) + O(V12_3, s3, f3), \
                 O(V13_5, s, f) + O(V13_5, s2, f2) + O(V13_5, s3, f3) } }

static const AgxParamsField agx_params_vertex[] = {
    F1("uses_scratch", REC, 4, RUN_VERTEX, USES_SCRATCH),
    F1("tpc", REC, 8, RUN_VERTEX, TPC),
    F1("buffer", REC, 8, RUN_VERTEX, BUFFER),
    F1("scene", REC, 8, RUN_VERTEX, SCENE),
    F1("tpc_size", REC, 8, RUN_VERTEX, TPC_SIZE),
    F1("fragment_stamp_slot", REC, 4, RUN_VERTEX, FRAGMENT_STAMP_SLOT),
    F1("fragment_stamp_value", REC, 4, RUN_VERTEX, FRAGMENT_STAMP_VALUE),
    F2("encoder.sampler_array", REC, 8, RUN_VERTEX, ENCODER_PARAMS,
       ENCODER_PARAMS, SAMPLER_ARRAY),
    F2("encoder.sampler_count", REC, 4, RUN_VERTEX, ENCODER_PARAMS,
       ENCODER_PARAMS, SAMPLER_COUNT),
    F2("encoder.sampler_max", REC, 4, RUN_VERTEX, ENCODER_PARAMS,
       ENCODER_PARAMS, SAMPLER_MAX),
    F2("params2.preempt_buf1", REC, 8, RUN_VERTEX, JOB_PARAMS2,
       VERTEX_JOB_PARAMETERS2, PREEMPT_BUF1),
    F1("tiling.rgn_size", OPA, 4, TILING_PARAMETERS, RGN_SIZE),
    F1("tiling.unk_4", OPA, 4, TILING_PARAMETERS, UNK_4),
    F1("tiling.ppp_ctrl", OPA, 4, TILING_PARAMETERS, PPP_CTRL),
    F1("tiling.x_max", OPA, 2, TILING_PARAMETERS, X_MAX),
    F1("tiling.y_max", OPA, 2, TILING_PARAMETERS, Y_MAX),
    F1("tiling.te_screen", OPA, 4, TILING_PARAMETERS, TE_SCREEN),
    F1("tiling.te_mtile1", OPA, 4, TILING_PARAMETERS, TE_MTILE1),
    F1("tiling.te_mtile2", OPA, 4, TILING_PARAMETERS, TE_MTILE2),
    F1("tiling.tiles_per_mtile", OPA, 4, TILING_PARAMETERS, TILES_PER_MTILE),
    F1("tiling.tpc_stride", OPA, 4, TILING_PARAMETERS, TPC_STRIDE),
    F1("tiling.unk_24", OPA, 4, TILING_PARAMETERS, UNK_24),
    F1("tiling.unk_28", OPA, 4, TILING_PARAMETERS, UNK_28),
    F1("tiling.helper_cfg", OPA, 4, TILING_PARAMETERS, HELPER_CFG),
    F1("params1.tvb_tilemap", OPB, 8, VERTEX_JOB_PARAMETERS1, TVB_TILEMAP),
    F1("params1.tpc", OPB, 8, VERTEX_JOB_PARAMETERS1, TPC),
    F1("params1.tvb_heapmeta", OPB, 8, VERTEX_JOB_PARAMETERS1, TVB_HEAPMETA),
    F1("params1.iogpu_unk_54", OPB, 8, VERTEX_JOB_PARAMETERS1, IOGPU_UNK_54),
    F1("params1.iogpu_unk_56", OPB, 8, VERTEX_JOB_PARAMETERS1, IOGPU_UNK_56),
    F1("params1.utile_config", OPB, 4, VERTEX_JOB_PARAMETERS1, UTILE_CONFIG),
    F1("params1.ppp_multisamplectl", OPB, 8, VERTEX_JOB_PARAMETERS1,
       PPP_MULTISAMPLECTL),
    F1("params1.tvb_layermeta", OPB, 8, VERTEX_JOB_PARAMETERS1, TVB_LAYERMETA),
    F1("params1.core_mask", OPB, 4, VERTEX_JOB_PARAMETERS1, CORE_MASK),
    F1("params1.preempt_buf1", OPB, 8, VERTEX_JOB_PARAMETERS1, PREEMPT_BUF1),
    F1("params1.preempt_buf2", OPB, 8, VERTEX_JOB_PARAMETERS1, PREEMPT_BUF2),
    F1("params1.preempt_buf3", OPB, 8, VERTEX_JOB_PARAMETERS1, PREEMPT_BUF3),
    F1("params1.vdm_ctrl_stream_base", OPB, 8, VERTEX_JOB_PARAMETERS1,
       VDM_CTRL_STREAM_BASE),
    F1("params1.tiling_control", OPB, 4, VERTEX_JOB_PARAMETERS1,
       TILING_CONTROL),
    F1("params1.usc_exec_base_ta", OPB, 8, VERTEX_JOB_PARAMETERS1,
       USC_EXEC_BASE_TA),
    F1("params1.unk_f0", OPB, 8, VERTEX_JOB_PARAMETERS1, UNK_F0),
    F1("params1.unk_f8", OPB, 8, VERTEX_JOB_PARAMETERS1, UNK_F8),
    F1("params1.helper_program", OPB, 4, VERTEX_JOB_PARAMETERS1,
       HELPER_PROGRAM),
    F1("params1.helper_arg", OPB, 8, VERTEX_JOB_PARAMETERS1, HELPER_ARG),
    F1("params1.unk_118", OPB, 4, VERTEX_JOB_PARAMETERS1, UNK_118),
    { NULL },
};

static const AgxParamsField agx_params_fragment[] = {
    F2("meta.stamp_slot", REC, 4, RUN_FRAGMENT, META, JOB_META, STAMP_SLOT),
    F2("meta.stamp_value", REC, 4, RUN_FRAGMENT, META, JOB_META,
       STAMP_VALUE),
    F1("scene", REC, 8, RUN_FRAGMENT, SCENE),
    F1("vm_slot", REC, 4, RUN_FRAGMENT, VM_SLOT),
    F1("ppp_multisamplectl", REC, 8, RUN_FRAGMENT, PPP_MULTISAMPLECTL),
    F1("samples", REC, 4, RUN_FRAGMENT, SAMPLES),
    F1("tiles_per_mtile_y", REC, 2, RUN_FRAGMENT, TILES_PER_MTILE_Y),
    F1("tiles_per_mtile_x", REC, 2, RUN_FRAGMENT, TILES_PER_MTILE_X),
    F1("isp_merge_upper_x", REC, 4, RUN_FRAGMENT, ISP_MERGE_UPPER_X),
    F1("isp_merge_upper_y", REC, 4, RUN_FRAGMENT, ISP_MERGE_UPPER_Y),
    F1("tile_count", REC, 8, RUN_FRAGMENT, TILE_COUNT),
    F1("process_empty_tiles", REC, 4, RUN_FRAGMENT, PROCESS_EMPTY_TILES),
    F1("tvb_tilemap", REC, 8, RUN_FRAGMENT, TVB_TILEMAP),
    F2("encoder.sampler_array", REC, 8, RUN_FRAGMENT, ENCODER_PARAMS,
       ENCODER_PARAMS, SAMPLER_ARRAY),
    F2("encoder.sampler_count", REC, 4, RUN_FRAGMENT, ENCODER_PARAMS,
       ENCODER_PARAMS, SAMPLER_COUNT),
    F2("encoder.sampler_max", REC, 4, RUN_FRAGMENT, ENCODER_PARAMS,
       ENCODER_PARAMS, SAMPLER_MAX),
    F3("params3.isp_dbias_base.ptr", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, ISP_DBIAS_BASE, ARRAY_ADDR, PTR),
    F3("params3.isp_scissor_base.ptr", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, ISP_SCISSOR_BASE, ARRAY_ADDR, PTR),
    F2("params3.isp_oclqry_base", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, ISP_OCLQRY_BASE),
    F3("params3.unk_partial_bg.rsrc_spec", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, UNK_PARTIAL_BG, BACKGROUND_PROGRAM,
       RSRC_SPEC),
    F3("params3.unk_partial_bg.address", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, UNK_PARTIAL_BG, BACKGROUND_PROGRAM, ADDRESS),
    F3("params3.partial_bg.rsrc_spec", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, PARTIAL_BG, BACKGROUND_PROGRAM, RSRC_SPEC),
    F3("params3.partial_bg.address", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, PARTIAL_BG, BACKGROUND_PROGRAM, ADDRESS),
    F2("params3.zls_ctrl", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, ZLS_CTRL),
    F2("params3.z_load", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, Z_LOAD),
    F2("params3.z_partial_stride", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, Z_PARTIAL_STRIDE),
    F2("params3.z_partial_comp_stride", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, Z_PARTIAL_COMP_STRIDE),
    F2("params3.z_store", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, Z_STORE),
    F2("params3.z_partial", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, Z_PARTIAL),
    F2("params3.z_partial_comp", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, Z_PARTIAL_COMP),
    F2("params3.s_load", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, S_LOAD),
    F2("params3.s_partial_stride", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, S_PARTIAL_STRIDE),
    F2("params3.s_partial_comp_stride", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, S_PARTIAL_COMP_STRIDE),
    F2("params3.s_store", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, S_STORE),
    F2("params3.s_partial", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, S_PARTIAL),
    F2("params3.s_partial_comp", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, S_PARTIAL_COMP),
    F2("params3.tib_blocks", REC, 4, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, TIB_BLOCKS),
    F3("params3.aux_fb_info.isp_ctl", REC, 4, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, AUX_FB_INFO, AUX_FB_INFO, ISP_CTL),
    F3("params3.aux_fb_info.width", REC, 4, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, AUX_FB_INFO, AUX_FB_INFO, WIDTH),
    F3("params3.aux_fb_info.height", REC, 4, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, AUX_FB_INFO, AUX_FB_INFO, HEIGHT),
    F2("params3.tile_config", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, TILE_CONFIG),
    F3("params3.unk_partial_eot.rsrc_spec", REC, 4, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, UNK_PARTIAL_EOT, EOT_PROGRAM, RSRC_SPEC),
    F3("params3.unk_partial_eot.address", REC, 4, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, UNK_PARTIAL_EOT, EOT_PROGRAM, ADDRESS),
    F3("params3.partial_eot.rsrc_spec", REC, 4, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, PARTIAL_EOT, EOT_PROGRAM, RSRC_SPEC),
    F3("params3.partial_eot.address", REC, 4, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, PARTIAL_EOT, EOT_PROGRAM, ADDRESS),
    F2("params3.isp_bgobjdepth", REC, 4, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, ISP_BGOBJDEPTH),
    F2("params3.isp_bgobjvals", REC, 4, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, ISP_BGOBJVALS),
    F2("params3.sample_size", REC, 4, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, SAMPLE_SIZE),
    F2("params3.isp_zls_pixels", REC, 8, RUN_FRAGMENT, JOB_PARAMS3,
       FRAGMENT_JOB_PARAMETERS3, ISP_ZLS_PIXELS),
    F1("params2.eot_rsrc_spec", OPA, 4, FRAGMENT_JOB_PARAMETERS2,
       EOT_RSRC_SPEC),
    F1("params2.eot_usc", OPA, 4, FRAGMENT_JOB_PARAMETERS2, EOT_USC),
    F1("params2.isp_merge_upper_x", OPA, 4, FRAGMENT_JOB_PARAMETERS2,
       ISP_MERGE_UPPER_X),
    F1("params2.isp_merge_upper_y", OPA, 4, FRAGMENT_JOB_PARAMETERS2,
       ISP_MERGE_UPPER_Y),
    F1("params2.utiles_per_mtile_y", OPA, 2, FRAGMENT_JOB_PARAMETERS2,
       UTILES_PER_MTILE_Y),
    F1("params2.utiles_per_mtile_x", OPA, 2, FRAGMENT_JOB_PARAMETERS2,
       UTILES_PER_MTILE_X),
    F1("params2.tile_counts", OPA, 4, FRAGMENT_JOB_PARAMETERS2, TILE_COUNTS),
    F1("params2.tib_blocks", OPA, 4, FRAGMENT_JOB_PARAMETERS2, TIB_BLOCKS),
    F1("params2.isp_bgobjdepth", OPA, 4, FRAGMENT_JOB_PARAMETERS2,
       ISP_BGOBJDEPTH),
    F1("params2.isp_bgobjvals", OPA, 4, FRAGMENT_JOB_PARAMETERS2,
       ISP_BGOBJVALS),
    F1("params2.helper_cfg", OPA, 4, FRAGMENT_JOB_PARAMETERS2, HELPER_CFG),
    F1("params1.utile_config", OPB, 4, FRAGMENT_JOB_PARAMETERS1, UTILE_CONFIG),
    F2("params1.bg.rsrc_spec", OPB, 8, FRAGMENT_JOB_PARAMETERS1, BG,
       BACKGROUND_PROGRAM, RSRC_SPEC),
    F2("params1.bg.address", OPB, 8, FRAGMENT_JOB_PARAMETERS1, BG,
       BACKGROUND_PROGRAM, ADDRESS),
    F1("params1.ppp_multisamplectl", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       PPP_MULTISAMPLECTL),
    F1("params1.isp_scissor_base", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       ISP_SCISSOR_BASE),
    F1("params1.isp_dbias_base", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       ISP_DBIAS_BASE),
    F2("params1.aux_fb_info.isp_ctl", OPB, 4, FRAGMENT_JOB_PARAMETERS1,
       AUX_FB_INFO, AUX_FB_INFO, ISP_CTL),
    F2("params1.aux_fb_info.width", OPB, 4, FRAGMENT_JOB_PARAMETERS1,
       AUX_FB_INFO, AUX_FB_INFO, WIDTH),
    F2("params1.aux_fb_info.height", OPB, 4, FRAGMENT_JOB_PARAMETERS1,
       AUX_FB_INFO, AUX_FB_INFO, HEIGHT),
    F1("params1.isp_zls_pixels", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       ISP_ZLS_PIXELS),
    F1("params1.isp_oclqry_base", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       ISP_OCLQRY_BASE),
    F1("params1.zls_ctrl", OPB, 8, FRAGMENT_JOB_PARAMETERS1, ZLS_CTRL),
    F1("params1.z_load", OPB, 8, FRAGMENT_JOB_PARAMETERS1, Z_LOAD),
    F1("params1.z_store", OPB, 8, FRAGMENT_JOB_PARAMETERS1, Z_STORE),
    F1("params1.s_load", OPB, 8, FRAGMENT_JOB_PARAMETERS1, S_LOAD),
    F1("params1.s_store", OPB, 8, FRAGMENT_JOB_PARAMETERS1, S_STORE),
    F1("params1.z_load_stride", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       Z_LOAD_STRIDE),
    F1("params1.z_store_stride", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       Z_STORE_STRIDE),
    F1("params1.s_load_stride", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       S_LOAD_STRIDE),
    F1("params1.s_store_stride", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       S_STORE_STRIDE),
    F1("params1.z_load_comp", OPB, 8, FRAGMENT_JOB_PARAMETERS1, Z_LOAD_COMP),
    F1("params1.z_load_comp_stride", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       Z_LOAD_COMP_STRIDE),
    F1("params1.z_store_comp", OPB, 8, FRAGMENT_JOB_PARAMETERS1, Z_STORE_COMP),
    F1("params1.z_store_comp_stride", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       Z_STORE_COMP_STRIDE),
    F1("params1.s_load_comp", OPB, 8, FRAGMENT_JOB_PARAMETERS1, S_LOAD_COMP),
    F1("params1.s_load_comp_stride", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       S_LOAD_COMP_STRIDE),
    F1("params1.s_store_comp", OPB, 8, FRAGMENT_JOB_PARAMETERS1, S_STORE_COMP),
    F1("params1.s_store_comp_stride", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       S_STORE_COMP_STRIDE),
    F1("params1.tvb_tilemap", OPB, 8, FRAGMENT_JOB_PARAMETERS1, TVB_TILEMAP),
    F1("params1.tvb_layermeta", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       TVB_LAYERMETA),
    F1("params1.mtile_stride_dwords", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       MTILE_STRIDE_DWORDS),
    F1("params1.tvb_heapmeta", OPB, 8, FRAGMENT_JOB_PARAMETERS1, TVB_HEAPMETA),
    F1("params1.tile_config", OPB, 8, FRAGMENT_JOB_PARAMETERS1, TILE_CONFIG),
    F1("params1.aux_fb", OPB, 8, FRAGMENT_JOB_PARAMETERS1, AUX_FB),
    F1("params1.usc_exec_base_isp", OPB, 8, FRAGMENT_JOB_PARAMETERS1,
       USC_EXEC_BASE_ISP),
    F1("params1.unk_140", OPB, 8, FRAGMENT_JOB_PARAMETERS1, UNK_140),
    F1("params1.helper_program", OPB, 4, FRAGMENT_JOB_PARAMETERS1,
       HELPER_PROGRAM),
    F1("params1.helper_arg", OPB, 8, FRAGMENT_JOB_PARAMETERS1, HELPER_ARG),
    F1("params1.unk_158", OPB, 8, FRAGMENT_JOB_PARAMETERS1, UNK_158),
    { NULL },
};

static const AgxParamsField agx_params_compute[] = {
    F2("encoder.sampler_array", REC, 8, RUN_COMPUTE, ENCODER_PARAMS,
       ENCODER_PARAMS, SAMPLER_ARRAY),
    F2("encoder.sampler_count", REC, 4, RUN_COMPUTE, ENCODER_PARAMS,
       ENCODER_PARAMS, SAMPLER_COUNT),
    F2("encoder.sampler_max", REC, 4, RUN_COMPUTE, ENCODER_PARAMS,
       ENCODER_PARAMS, SAMPLER_MAX),
    F1("params1.preempt_buf1", OPA, 8, COMPUTE_JOB_PARAMETERS1, PREEMPT_BUF1),
    F1("params1.cdm_ctrl_stream_base", OPA, 8, COMPUTE_JOB_PARAMETERS1,
       CDM_CTRL_STREAM_BASE),
    F1("params1.preempt_buf2", OPA, 8, COMPUTE_JOB_PARAMETERS1, PREEMPT_BUF2),
    F1("params1.preempt_buf3", OPA, 8, COMPUTE_JOB_PARAMETERS1, PREEMPT_BUF3),
    F1("params1.preempt_buf4", OPA, 8, COMPUTE_JOB_PARAMETERS1, PREEMPT_BUF4),
    F1("params1.preempt_buf5", OPA, 8, COMPUTE_JOB_PARAMETERS1, PREEMPT_BUF5),
    F1("params1.usc_exec_base_cp", OPA, 8, COMPUTE_JOB_PARAMETERS1,
       USC_EXEC_BASE_CP),
    F1("params1.unk_38", OPA, 8, COMPUTE_JOB_PARAMETERS1, UNK_38),
    F1("params1.helper_program", OPA, 4, COMPUTE_JOB_PARAMETERS1,
       HELPER_PROGRAM),
    F1("params1.helper_arg", OPA, 8, COMPUTE_JOB_PARAMETERS1, HELPER_ARG),
    F1("params1.helper_cfg", OPA, 4, COMPUTE_JOB_PARAMETERS1, HELPER_CFG),
    F1("params1.unk_58", OPA, 4, COMPUTE_JOB_PARAMETERS1, UNK_58),
    F1("params1.iogpu_unk_40", OPA, 4, COMPUTE_JOB_PARAMETERS1, IOGPU_UNK_40),
    F1("params2.preempt_buf1", OPB, 8, COMPUTE_JOB_PARAMETERS2, PREEMPT_BUF1),
    F1("params2.cdm_ctrl_stream_end", OPB, 8, COMPUTE_JOB_PARAMETERS2,
       CDM_CTRL_STREAM_END),
    { NULL },
};

/* Per pipe: the Run record, the Start op's two block pointers, sizes */
typedef struct AgxParamsPipe {
    const AgxParamsField *fields;
    uint32_t run_size[AGX_FW_NUM_VERSIONS];
    uint32_t ptr[AGX_PARAMS_NUM_BLOCKS][AGX_FW_NUM_VERSIONS];
    uint32_t size[AGX_PARAMS_NUM_BLOCKS][AGX_FW_NUM_VERSIONS];
    const char *what[AGX_PARAMS_NUM_BLOCKS];
} AgxParamsPipe;

#define BOTH(s, f)      { O(V12_3, s, f), O(V13_5, s, f) }

static const AgxParamsPipe agx_params_pipes[AGX_NUM_PIPES] = {
    [AGX_PIPE_VERTEX] = {
        .fields = agx_params_vertex,
        .run_size = BOTH(RUN_VERTEX, SIZE),
        .ptr = {
            [OPA] = BOTH(OP_START_VERTEX, TILING_PARAMS),
            [OPB] = BOTH(OP_START_VERTEX, JOB_PARAMS1),
        },
        .size = {
            [OPA] = BOTH(TILING_PARAMETERS, SIZE),
            [OPB] = BOTH(VERTEX_JOB_PARAMETERS1, SIZE),
        },
        .what = { "RunVertex", "TilingParameters", "vertex JobParameters1" },
    },
    [AGX_PIPE_FRAGMENT] = {
        .fields = agx_params_fragment,
        .run_size = BOTH(RUN_FRAGMENT, SIZE),
        .ptr = {
            [OPA] = BOTH(OP_START_FRAGMENT, JOB_PARAMS2),
            [OPB] = BOTH(OP_START_FRAGMENT, JOB_PARAMS1),
        },
        .size = {
            [OPA] = BOTH(FRAGMENT_JOB_PARAMETERS2, SIZE),
            [OPB] = BOTH(FRAGMENT_JOB_PARAMETERS1, SIZE),
        },
        .what = { "RunFragment", "fragment JobParameters2",
                  "fragment JobParameters1" },
    },
    [AGX_PIPE_COMPUTE] = {
        .fields = agx_params_compute,
        .run_size = BOTH(RUN_COMPUTE, SIZE),
        .ptr = {
            [OPA] = BOTH(OP_START_COMPUTE, JOB_PARAMS1),
            [OPB] = BOTH(OP_START_COMPUTE, JOB_PARAMS2),
        },
        .size = {
            [OPA] = BOTH(COMPUTE_JOB_PARAMETERS1, SIZE),
            [OPB] = BOTH(COMPUTE_JOB_PARAMETERS2, SIZE),
        },
        .what = { "RunCompute", "compute JobParameters1",
                  "compute JobParameters2" },
    },
};

G_STATIC_ASSERT(AGX_V13_5_RUN_FRAGMENT_SIZE <= AGX_PARAMS_RECORD_MAX);
G_STATIC_ASSERT(AGX_V13_5_VERTEX_JOB_PARAMETERS1_SIZE <= AGX_PARAMS_BLOCK_MAX);
G_STATIC_ASSERT(AGX_V13_5_FRAGMENT_JOB_PARAMETERS1_SIZE <=
                AGX_PARAMS_BLOCK_MAX);

static uint8_t *params_block(AgxParams *pa, unsigned b)
{
    switch (b) {
    case AGX_PARAMS_RECORD:
        return pa->record;
    case AGX_PARAMS_OP_A:
        return pa->op_a;
    default:
        return pa->op_b;
    }
}

bool agx_params_load(AgxFw *fw, unsigned pipe_type, uint64_t cmd_va,
                     const uint8_t *op, AgxParams *pa)
{
    const AgxParamsPipe *pp = &agx_params_pipes[pipe_type];
    unsigned v = fw->abi->version;
    uint8_t rec[AGX_PARAMS_RECORD_MAX] = { 0 };
    uint8_t blk[2][AGX_PARAMS_BLOCK_MAX] = { { 0 } };

    if (!agx_fw_read(fw, cmd_va, rec, pp->run_size[v], pp->what[0])) {
        return false;
    }
    for (unsigned b = OPA; b <= OPB; b++) {
        uint64_t va = apple_ld64(op + pp->ptr[b][v]);

        if (!agx_fw_read(fw, va, blk[b - OPA], pp->size[b][v],
                         pp->what[b])) {
            return false;
        }
    }
    memcpy(pa->record, rec, sizeof(rec));
    memcpy(pa->op_a, blk[0], sizeof(blk[0]));
    memcpy(pa->op_b, blk[1], sizeof(blk[1]));
    pa->cmd_va = cmd_va;
    pa->valid = true;
    return true;
}

bool agx_params_read(AgxFw *fw, unsigned pipe_type, uint64_t cmd_va,
                     const uint8_t *op)
{
    if (!agx_params_load(fw, pipe_type, cmd_va, op,
                         &fw->params[pipe_type])) {
        return false;
    }
    AGX_TRACE(&fw->trace, job_params, pipe_type, cmd_va);
    return true;
}

const AgxParamsField *agx_params_fields(unsigned pipe_type)
{
    return pipe_type < AGX_NUM_PIPES ? agx_params_pipes[pipe_type].fields
                                     : NULL;
}

static uint64_t params_field(const AgxFw *fw, const AgxParams *pa,
                             const AgxParamsField *f)
{
    const uint8_t *base = params_block((AgxParams *)pa, f->block);
    const uint8_t *p = base + f->off[fw->abi->version];

    switch (f->width) {
    case 1:
        return *p;
    case 2:
        return apple_ld16(p);
    case 4:
        return apple_ld32(p);
    default:
        return apple_ld64(p);
    }
}

bool agx_params_get_in(const AgxFw *fw, const AgxParams *pa,
                       unsigned pipe_type, const char *name, uint64_t *val)
{
    const AgxParamsField *f = agx_params_fields(pipe_type);

    if (!f || !pa->valid) {
        return false;
    }
    for (; f->name; f++) {
        if (!strcmp(f->name, name)) {
            *val = params_field(fw, pa, f);
            return true;
        }
    }
    return false;
}

bool agx_params_get(const AgxFw *fw, unsigned pipe_type, const char *name,
                    uint64_t *val)
{
    return pipe_type < AGX_NUM_PIPES &&
           agx_params_get_in(fw, &fw->params[pipe_type], pipe_type, name,
                             val);
}

char *agx_params_format(const AgxFw *fw, unsigned pipe_type)
{
    const AgxParamsField *f = agx_params_fields(pipe_type);
    GString *s = g_string_new("");

    if (f && fw->params[pipe_type].valid) {
        for (; f->name; f++) {
            g_string_append_printf(s, "%s%s=0x%" G_GINT64_MODIFIER "x",
                                   s->len ? " " : "", f->name,
                                   params_field(fw, &fw->params[pipe_type],
                                                f));
        }
    }
    return g_string_free(s, false);
}
