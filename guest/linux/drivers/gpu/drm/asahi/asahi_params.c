// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: the job parameter blocks of the Run records.
 *
 * Where drm/asahi places each field of the UAPI's render and compute
 * commands (queue/render.rs, queue/compute.rs; layouts fw/vertex.rs,
 * fragment.rs, compute.rs), for G13 on firmware 13.5 and 12.3: the
 * vertex job's tiling parameters, parameters 1 and 2; the fragment job's
 * parameters 1, 2 and 3; the compute job's parameters 1 and 2; the
 * encoder parameters and the few words of the records themselves.  The
 * firmware reads them when the job starts (its Start op points at
 * parameters 1 and 2 or the tiling parameters).  Offsets are from the
 * record's start; 12.3 lacks the 13.0b4 counter (8 bytes) before the
 * blocks, the aux framebuffer info's last word (8 bytes) and fragment
 * parameters 3's word before isp_zls_pixels.  Where the blocks sit in
 * the records is asahi_fw_abi.h's.
 *
 * The scene's TVB pointers (buffer, scene, tilemap, tail pointer cache,
 * heap and layer meta, preemption buffers) come from the buffer manager
 * (asahi_buffer.c).  Not placed: the aux framebuffer and the compute
 * preempt buffer.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math.h>

#include <drm/asahi_drm.h>

#include "asahi_buffer.h"
#include "asahi_fw.h"
#include "asahi_params.h"

/* An offset on 12.3 and on 13.5 */
#define O(o12, o13)		(a->v13 ? (o13) : (o12))

/* RunVertex: tiling parameters, parameters 1 and 2, its own words */
#define RV_P1			ABI_REC(a, RV_JOB_PARAMS1)
#define RV_TP			ABI_REC(a, RV_TILING_PARAMS)
#define RV_TPC_SIZE		O(0x464, 0x46c)
#define RV_ENC			O(0x528, 0x530)
#define RV_USES_SCRATCH		O(0x560, 0x568)
#define VP1_UNK_0		0x00
#define VP1_UNK_8		0x08
#define VP1_UNK_C		0x0c
#define VP1_IOGPU_UNK_54	0x30
#define VP1_IOGPU_UNK_56	0x38
#define VP1_UTILE_CONFIG	0x48
#define VP1_PPP_MULTISAMPLECTL	0x50
#define VP1_CORE_MASK		0x68
#define VP1_UNK_80		0x80
#define VP1_VDM_CTRL_STREAM	0x90
#define VP1_TILING_CONTROL	0xa8
#define VP1_USC_EXEC_BASE_TA	0xe0
#define VP1_UNK_F0		0xf0
#define VP1_UNK_F8		0xf8
#define VP1_HELPER_PROGRAM	0x100
#define VP1_HELPER_ARG		0x108
#define VP1_UNK_118		0x118
#define TP_RGN_SIZE		0x00
#define TP_UNK_4		0x04
#define TP_PPP_CTRL		0x08
#define TP_X_MAX		0x0c
#define TP_Y_MAX		0x0e
#define TP_TE_SCREEN		0x10
#define TP_TE_MTILE1		0x14
#define TP_TE_MTILE2		0x18
#define TP_TILES_PER_MTILE	0x1c
#define TP_TPC_STRIDE		0x20
#define TP_UNK_24		0x24
#define TP_UNK_28		0x28
#define TP_HELPER_CFG		0x2c

/* EncoderParams, in all three records */
#define ENC_UNK_MASK		0x14
#define ENC_SAMPLER_ARRAY	0x18
#define ENC_SAMPLER_COUNT	0x20
#define ENC_SAMPLER_MAX		0x24

/* RunFragment */
#define RF_PPP_MULTISAMPLECTL	O(0x40, 0x48)
#define RF_SAMPLES		O(0x48, 0x50)
#define RF_TILES_PER_MTILE_Y	O(0x4c, 0x54)
#define RF_TILES_PER_MTILE_X	O(0x4e, 0x56)
#define RF_MERGE_UPPER_X	O(0x60, 0x68)
#define RF_MERGE_UPPER_Y	O(0x64, 0x6c)
#define RF_TILE_COUNT		O(0x70, 0x78)
#define RF_P1			ABI_REC(a, RF_JOB_PARAMS1)
#define RF_P2			ABI_REC(a, RF_JOB_PARAMS2)
#define RF_P3			O(0x4b0, 0x4b8)
#define RF_ENC			O(0x87c, 0x894)
#define RF_PROCESS_EMPTY_TILES	O(0x8a4, 0x8bc)
#define RF_NO_CLEAR_PIPELINE	O(0x8a8, 0x8c0)
/* Fragment parameters 1: fields past the aux framebuffer info move */
#define FP1_AFTER_AUX(o13)	((o13) - (a->v13 ? 0 : 8))
#define FP1_UTILE_CONFIG	0x00
#define FP1_BG_RSRC_SPEC	0x08
#define FP1_BG_ADDRESS		0x10
#define FP1_PPP_MULTISAMPLECTL	0x18
#define FP1_ISP_SCISSOR_BASE	0x20
#define FP1_ISP_DBIAS_BASE	0x28
#define FP1_AUX_FB_INFO		0x30
#define FP1_ISP_ZLS_PIXELS	FP1_AFTER_AUX(0x48)
#define FP1_ISP_OCLQRY_BASE	FP1_AFTER_AUX(0x50)
#define FP1_ZLS_CTRL		FP1_AFTER_AUX(0x58)
#define FP1_Z_LOAD		FP1_AFTER_AUX(0x60)
#define FP1_Z_STORE		FP1_AFTER_AUX(0x68)
#define FP1_S_LOAD		FP1_AFTER_AUX(0x70)
#define FP1_S_STORE		FP1_AFTER_AUX(0x78)
#define FP1_Z_LOAD_STRIDE	FP1_AFTER_AUX(0x80)
#define FP1_Z_STORE_STRIDE	FP1_AFTER_AUX(0x88)
#define FP1_S_LOAD_STRIDE	FP1_AFTER_AUX(0x90)
#define FP1_S_STORE_STRIDE	FP1_AFTER_AUX(0x98)
#define FP1_Z_LOAD_COMP		FP1_AFTER_AUX(0xa0)
#define FP1_Z_LOAD_COMP_STRIDE	FP1_AFTER_AUX(0xa8)
#define FP1_Z_STORE_COMP	FP1_AFTER_AUX(0xb0)
#define FP1_Z_STORE_COMP_STRIDE	FP1_AFTER_AUX(0xb8)
#define FP1_S_LOAD_COMP		FP1_AFTER_AUX(0xc0)
#define FP1_S_LOAD_COMP_STRIDE	FP1_AFTER_AUX(0xc8)
#define FP1_S_STORE_COMP	FP1_AFTER_AUX(0xd0)
#define FP1_S_STORE_COMP_STRIDE	FP1_AFTER_AUX(0xd8)
#define FP1_MTILE_STRIDE_DWORDS	FP1_AFTER_AUX(0xf0)
#define FP1_TILE_CONFIG		FP1_AFTER_AUX(0x100)
#define FP1_USC_EXEC_BASE_ISP	FP1_AFTER_AUX(0x140)
#define FP1_UNK_140		FP1_AFTER_AUX(0x148)
#define FP1_HELPER_PROGRAM	FP1_AFTER_AUX(0x150)
#define FP1_HELPER_ARG		FP1_AFTER_AUX(0x158)
#define FP1_UNK_158		FP1_AFTER_AUX(0x160)
/* Fragment parameters 2 */
#define FP2_EOT_RSRC_SPEC	0x00
#define FP2_EOT_USC		0x04
#define FP2_MERGE_UPPER_X	0x10
#define FP2_MERGE_UPPER_Y	0x14
#define FP2_UTILES_PER_MTILE_Y	0x20
#define FP2_UTILES_PER_MTILE_X	0x22
#define FP2_TILE_COUNTS		0x28
#define FP2_TIB_BLOCKS		0x2c
#define FP2_ISP_BGOBJDEPTH	0x30
#define FP2_ISP_BGOBJVALS	0x34
#define FP2_UNK_3C		0x3c
#define FP2_HELPER_CFG		0x40
/* Fragment parameters 3 */
#define FP3_AFTER_AUX(o13)	((o13) - (a->v13 ? 0 : 8))
#define FP3_ISP_DBIAS_BASE	0x000
#define FP3_ISP_SCISSOR_BASE	0x010
#define FP3_ISP_OCLQRY_BASE	0x020
#define FP3_UNK_PARTIAL_BG	0x158
#define FP3_PARTIAL_BG		0x188
#define FP3_ZLS_CTRL		0x198
#define FP3_Z_LOAD		0x1a8
#define FP3_Z_PARTIAL_STRIDE	0x1b0
#define FP3_Z_PARTIAL_COMP_STRIDE 0x1b8
#define FP3_Z_STORE		0x1c0
#define FP3_Z_PARTIAL		0x1c8
#define FP3_Z_PARTIAL_COMP	0x1d0
#define FP3_S_LOAD		0x1d8
#define FP3_S_PARTIAL_STRIDE	0x1e0
#define FP3_S_PARTIAL_COMP_STRIDE 0x1e8
#define FP3_S_STORE		0x1f0
#define FP3_S_PARTIAL		0x1f8
#define FP3_S_PARTIAL_COMP	0x200
#define FP3_TIB_BLOCKS		0x218
#define FP3_AUX_FB_INFO		0x220
#define FP3_TILE_CONFIG		FP3_AFTER_AUX(0x238)
#define FP3_UNK_PARTIAL_EOT	FP3_AFTER_AUX(0x248)
#define FP3_PARTIAL_EOT		FP3_AFTER_AUX(0x268)
#define FP3_ISP_BGOBJDEPTH	FP3_AFTER_AUX(0x288)
#define FP3_ISP_BGOBJVALS	FP3_AFTER_AUX(0x28c)
#define FP3_SAMPLE_SIZE		FP3_AFTER_AUX(0x290)
#define FP3_ISP_ZLS_PIXELS	O(0x2a0, 0x2b0)
/* BackgroundProgram {rsrc_spec, address}, EotProgram's two words */
#define BG_RSRC_SPEC		0x00
#define BG_ADDRESS		0x08
#define EOT_RSRC_SPEC		0x0c
#define EOT_ADDRESS		0x14
/* AuxFBInfo */
#define AUX_ISP_CTL		0x00
#define AUX_WIDTH		0x08
#define AUX_HEIGHT		0x0c
#define AUX_UNK3		0x10

/* RunCompute */
#define RC_P1			ABI_REC(a, RC_JOB_PARAMS1)
#define RC_P2			ABI_REC(a, RC_JOB_PARAMS2)
#define RC_ENC			O(0x254, 0x25c)
#define CP1_CDM_CTRL_STREAM	0x08
#define CP1_USC_EXEC_BASE_CP	0x30
#define CP1_UNK_38		0x38
#define CP1_HELPER_PROGRAM	0x40
#define CP1_HELPER_ARG		0x48
#define CP1_HELPER_CFG		0x50
#define CP1_UNK_58		0x58
#define CP2_CDM_CTRL_STREAM_END	O(0x2c, 0x30)

/* G13 constants drm/asahi writes */
#define G13_UNK_8C60		0x8c60
#define G13_UNK_1C		0x1c
#define G13_IOGPU_UNK_54	0x3a0012006b0003ULL
#define G13_TILING_CONTROL	0xa041	/* HwConfig; bit 0: no clustering */
#define F32_1E_20		0x1e3ce508
#define ISP_CTL_BASE		0xc000
#define BGOBJVALS_G13		0x400

/* What render.rs derives from the render size and tile formats */
struct asahi_tiling {
	u32 tiles_x, tiles_y;
	u32 tiles_per_mtile_x, tiles_per_mtile_y;
	u32 utiles_per_tile_x, utiles_per_tile_y;
	u32 rgn_size;
	u32 tpc_stride;
	u64 tpc_size;
	u32 utile_config;
	u64 tile_config;
	u32 tib_blocks;
	u32 isp_ctl;
};

/* SUBMIT checked the sizes, utiles, layers and samples already */
static void asahi_tiling(const struct drm_asahi_cmd_render *c,
			 struct asahi_tiling *t)
{
	u32 uw = c->utile_width_px ? c->utile_width_px : 32;
	u32 uh = c->utile_height_px ? c->utile_height_px : 32;
	u32 utiles, mtiles, samples_log2 = ilog2(c->samples ? c->samples : 1);
	u32 utile_bytes;

	t->tiles_x = DIV_ROUND_UP(c->width_px, 32);
	t->tiles_y = DIV_ROUND_UP(c->height_px, 32);
	t->utiles_per_tile_x = 32 / uw;
	t->utiles_per_tile_y = 32 / uh;
	utiles = t->utiles_per_tile_x * t->utiles_per_tile_y;
	t->tiles_per_mtile_x = ALIGN(DIV_ROUND_UP(t->tiles_x, 4), 4);
	t->tiles_per_mtile_y = ALIGN(DIV_ROUND_UP(t->tiles_y, 4), 4);
	mtiles = t->tiles_per_mtile_x * t->tiles_per_mtile_y;
	t->rgn_size = ALIGN(5 * mtiles * utiles, 4) / 4;
	t->tpc_stride = 8 * utiles * mtiles / 4;
	/* 16 macrotiles, one cluster */
	t->tpc_size = 4ULL * t->tpc_stride * 16 * c->layers;
	t->utile_config = (uw / 16) << 12 | (uh / 16) << 14 | samples_log2;
	t->tile_config = 0x280 | (c->layers > 1 ? 1 : 0) |
		(c->flags & DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES ? 0x10000 : 0);
	utile_bytes = c->sample_size_B * (uw * uh << samples_log2);
	t->tib_blocks = DIV_ROUND_UP(utile_bytes, 2048);
	t->isp_ctl = ISP_CTL_BASE | (c->flags & DRM_ASAHI_RENDER_DBIAS_IS_INT);
}

static void asahi_put_encoder(void *enc, u64 sampler_heap, u32 count)
{
	wr32(enc, ENC_UNK_MASK, 0xffffffff);
	wr64(enc, ENC_SAMPLER_ARRAY, sampler_heap);
	wr32(enc, ENC_SAMPLER_COUNT, count);
	wr32(enc, ENC_SAMPLER_MAX, count + 1);
}

static void asahi_put_aux_fb_info(const struct asahi_abi *a, void *aux,
				  const struct drm_asahi_cmd_render *c,
				  const struct asahi_tiling *t)
{
	wr32(aux, AUX_ISP_CTL, t->isp_ctl);
	wr32(aux, AUX_WIDTH, c->width_px);
	wr32(aux, AUX_HEIGHT, c->height_px);
	if (a->v13)
		wr64(aux, AUX_UNK3, 0x100000);
}

void asahi_params_vertex(const struct asahi_abi *a, void *rec,
			 const struct drm_asahi_cmd_render *c,
			 u64 usc_exec_base, u32 core_mask)
{
	void *p1 = rec + RV_P1, *tp = rec + RV_TP;
	struct asahi_tiling t;
	u32 m;

	asahi_tiling(c, &t);
	wr64(p1, VP1_UNK_0, 0x200);
	wr32(p1, VP1_UNK_8, F32_1E_20);
	wr32(p1, VP1_UNK_C, F32_1E_20);
	wr64(p1, VP1_IOGPU_UNK_54, G13_IOGPU_UNK_54);
	wr64(p1, VP1_IOGPU_UNK_56, 1);
	wr32(p1, VP1_UTILE_CONFIG, t.utile_config);
	wr64(p1, VP1_PPP_MULTISAMPLECTL, c->ppp_multisamplectl);
	wr32(p1, VP1_CORE_MASK, core_mask);
	wr64(p1, VP1_UNK_80, 1);
	wr64(p1, VP1_VDM_CTRL_STREAM, c->vdm_ctrl_stream_base);
	/* One cluster: never clustered */
	wr32(p1, VP1_TILING_CONTROL, G13_TILING_CONTROL | 1);
	wr64(p1, VP1_USC_EXEC_BASE_TA, usc_exec_base);
	/* 0x1c plus the cluster meta blocks: none on one cluster */
	wr64(p1, VP1_UNK_F0, G13_UNK_1C);
	wr64(p1, VP1_UNK_F8, G13_UNK_8C60);
	wr32(p1, VP1_HELPER_PROGRAM, c->vertex_helper.binary);
	wr64(p1, VP1_HELPER_ARG, c->vertex_helper.data);
	wr32(p1, VP1_UNK_118, G13_UNK_1C);

	wr32(tp, TP_RGN_SIZE, t.rgn_size);
	wr32(tp, TP_UNK_4, 0x88);
	wr32(tp, TP_PPP_CTRL, c->ppp_ctrl);
	put_unaligned_le16(c->width_px - 1, tp + TP_X_MAX);
	put_unaligned_le16(c->height_px - 1, tp + TP_Y_MAX);
	wr32(tp, TP_TE_SCREEN, (t.tiles_y - 1) << 12 | (t.tiles_x - 1));
	m = t.tiles_per_mtile_x;
	wr32(tp, TP_TE_MTILE1, 3 * m | 2 * m << 9 | m << 18);
	m = t.tiles_per_mtile_y;
	wr32(tp, TP_TE_MTILE2, 3 * m | 2 * m << 9 | m << 18);
	wr32(tp, TP_TILES_PER_MTILE,
	     t.tiles_per_mtile_x * t.tiles_per_mtile_y);
	wr32(tp, TP_TPC_STRIDE, t.tpc_stride);
	wr32(tp, TP_UNK_24, 0x100);
	wr32(tp, TP_UNK_28, c->layers > 1 ? 0xe000 | (c->layers - 1) : 0x8000);
	wr32(tp, TP_HELPER_CFG, c->vertex_helper.cfg);

	wr64(rec, RV_TPC_SIZE, t.tpc_size);
	asahi_put_encoder(rec + RV_ENC, c->sampler_heap, c->sampler_count);
	wr32(rec, RV_USES_SCRATCH,
	     !!(c->flags & DRM_ASAHI_RENDER_VERTEX_SCRATCH));
}

/* Depth or stencil in parameters 1: load and store the same buffer */
static void asahi_put_zls1(void *p1, u32 load, u32 store, u32 load_stride,
			   u32 store_stride, u32 load_comp, u32 store_comp,
			   const struct drm_asahi_zls_buffer *z)
{
	wr64(p1, load, z->base);
	wr64(p1, store, z->base);
	wr64(p1, load_stride, z->stride);
	wr64(p1, store_stride, z->stride);
	wr64(p1, load_comp, z->comp_base);
	wr64(p1, load_comp + 8, z->comp_stride);
	wr64(p1, store_comp, z->comp_base);
	wr64(p1, store_comp + 8, z->comp_stride);
}

/* Depth or stencil in parameters 3: load, store and partial */
static void asahi_put_zls3(void *p3, u32 load,
			   const struct drm_asahi_zls_buffer *z)
{
	/* load, partial stride, partial comp stride, store, partial, comp */
	wr64(p3, load, z->base);
	wr64(p3, load + 0x08, z->stride);
	wr64(p3, load + 0x10, z->comp_stride);
	wr64(p3, load + 0x18, z->base);
	wr64(p3, load + 0x20, z->base);
	wr64(p3, load + 0x28, z->comp_base);
}

void asahi_params_fragment(const struct asahi_abi *a, void *rec,
			   const struct drm_asahi_cmd_render *c,
			   u64 usc_exec_base)
{
	void *p1 = rec + RF_P1, *p2 = rec + RF_P2, *p3 = rec + RF_P3;
	struct asahi_tiling t;
	u32 i;

	asahi_tiling(c, &t);
	wr64(rec, RF_PPP_MULTISAMPLECTL, c->ppp_multisamplectl);
	wr32(rec, RF_SAMPLES, c->samples);
	put_unaligned_le16(t.tiles_per_mtile_y, rec + RF_TILES_PER_MTILE_Y);
	put_unaligned_le16(t.tiles_per_mtile_x, rec + RF_TILES_PER_MTILE_X);
	wr32(rec, RF_MERGE_UPPER_X, c->isp_merge_upper_x);
	wr32(rec, RF_MERGE_UPPER_Y, c->isp_merge_upper_y);
	wr64(rec, RF_TILE_COUNT, t.tiles_x * t.tiles_y);

	wr32(p1, FP1_UTILE_CONFIG, t.utile_config);
	wr64(p1, FP1_BG_RSRC_SPEC, c->bg.rsrc_spec);
	wr64(p1, FP1_BG_ADDRESS, c->bg.usc);
	wr64(p1, FP1_PPP_MULTISAMPLECTL, c->ppp_multisamplectl);
	wr64(p1, FP1_ISP_SCISSOR_BASE, c->isp_scissor_base);
	wr64(p1, FP1_ISP_DBIAS_BASE, c->isp_dbias_base);
	asahi_put_aux_fb_info(a, p1 + FP1_AUX_FB_INFO, c, &t);
	wr64(p1, FP1_ISP_ZLS_PIXELS, c->isp_zls_pixels);
	wr64(p1, FP1_ISP_OCLQRY_BASE, c->isp_oclqry_base);
	wr64(p1, FP1_ZLS_CTRL, c->zls_ctrl);
	asahi_put_zls1(p1, FP1_Z_LOAD, FP1_Z_STORE, FP1_Z_LOAD_STRIDE,
		       FP1_Z_STORE_STRIDE, FP1_Z_LOAD_COMP, FP1_Z_STORE_COMP,
		       &c->depth);
	asahi_put_zls1(p1, FP1_S_LOAD, FP1_S_STORE, FP1_S_LOAD_STRIDE,
		       FP1_S_STORE_STRIDE, FP1_S_LOAD_COMP, FP1_S_STORE_COMP,
		       &c->stencil);
	wr64(p1, FP1_MTILE_STRIDE_DWORDS, (u64)(4 * t.rgn_size) << 24);
	wr64(p1, FP1_TILE_CONFIG, t.tile_config);
	wr64(p1, FP1_USC_EXEC_BASE_ISP, usc_exec_base);
	wr64(p1, FP1_UNK_140, G13_UNK_8C60);
	wr32(p1, FP1_HELPER_PROGRAM, c->fragment_helper.binary);
	wr64(p1, FP1_HELPER_ARG, c->fragment_helper.data);
	wr64(p1, FP1_UNK_158, G13_UNK_1C);

	wr32(p2, FP2_EOT_RSRC_SPEC, c->eot.rsrc_spec);
	wr32(p2, FP2_EOT_USC, c->eot.usc);
	wr32(p2, FP2_MERGE_UPPER_X, c->isp_merge_upper_x);
	wr32(p2, FP2_MERGE_UPPER_Y, c->isp_merge_upper_y);
	put_unaligned_le16(t.tiles_per_mtile_y * t.utiles_per_tile_y,
			   p2 + FP2_UTILES_PER_MTILE_Y);
	put_unaligned_le16(t.tiles_per_mtile_x * t.utiles_per_tile_x,
			   p2 + FP2_UTILES_PER_MTILE_X);
	wr32(p2, FP2_TILE_COUNTS, (t.tiles_y - 1) << 12 | (t.tiles_x - 1));
	wr32(p2, FP2_TIB_BLOCKS, t.tib_blocks);
	wr32(p2, FP2_ISP_BGOBJDEPTH, c->isp_bgobjdepth);
	wr32(p2, FP2_ISP_BGOBJVALS, c->isp_bgobjvals | BGOBJVALS_G13);
	wr32(p2, FP2_UNK_3C, 1);
	wr32(p2, FP2_HELPER_CFG, c->fragment_helper.cfg);

	wr64(p3, FP3_ISP_DBIAS_BASE, c->isp_dbias_base);
	wr64(p3, FP3_ISP_SCISSOR_BASE, c->isp_scissor_base);
	wr64(p3, FP3_ISP_OCLQRY_BASE, c->isp_oclqry_base);
	/* Both background slots take the partial background program */
	for (i = 0; i < 2; i++) {
		u32 bg = i ? FP3_PARTIAL_BG : FP3_UNK_PARTIAL_BG;
		u32 eot = i ? FP3_PARTIAL_EOT : FP3_UNK_PARTIAL_EOT;

		wr64(p3, bg + BG_RSRC_SPEC, c->partial_bg.rsrc_spec);
		wr64(p3, bg + BG_ADDRESS, c->partial_bg.usc);
		wr32(p3, eot + EOT_RSRC_SPEC, c->partial_eot.rsrc_spec);
		wr32(p3, eot + EOT_ADDRESS, c->partial_eot.usc);
	}
	wr64(p3, FP3_ZLS_CTRL, c->zls_ctrl);
	asahi_put_zls3(p3, FP3_Z_LOAD, &c->depth);
	asahi_put_zls3(p3, FP3_S_LOAD, &c->stencil);
	wr32(p3, FP3_TIB_BLOCKS, t.tib_blocks);
	asahi_put_aux_fb_info(a, p3 + FP3_AUX_FB_INFO, c, &t);
	wr64(p3, FP3_TILE_CONFIG, t.tile_config);
	wr32(p3, FP3_ISP_BGOBJDEPTH, c->isp_bgobjdepth);
	wr32(p3, FP3_ISP_BGOBJVALS, c->isp_bgobjvals);
	wr32(p3, FP3_SAMPLE_SIZE, c->sample_size_B);
	wr64(p3, FP3_ISP_ZLS_PIXELS, c->isp_zls_pixels);

	asahi_put_encoder(rec + RF_ENC, c->sampler_heap, c->sampler_count);
	wr32(rec, RF_PROCESS_EMPTY_TILES,
	     !!(c->flags & DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES));
	wr32(rec, RF_NO_CLEAR_PIPELINE, 1);
}

void asahi_params_compute(const struct asahi_abi *a, void *rec,
			  const struct drm_asahi_cmd_compute *c,
			  u64 usc_exec_base)
{
	void *p1 = rec + RC_P1, *p2 = rec + RC_P2;

	wr64(p1, CP1_CDM_CTRL_STREAM, c->cdm_ctrl_stream_base);
	wr64(p1, CP1_USC_EXEC_BASE_CP, usc_exec_base);
	wr64(p1, CP1_UNK_38, G13_UNK_8C60);
	wr32(p1, CP1_HELPER_PROGRAM, c->helper.binary);
	wr64(p1, CP1_HELPER_ARG, c->helper.data);
	wr32(p1, CP1_HELPER_CFG, c->helper.cfg);
	wr32(p1, CP1_UNK_58, 1);
	wr64(p2, CP2_CDM_CTRL_STREAM_END, c->cdm_ctrl_stream_end);
	asahi_put_encoder(rec + RC_ENC, c->sampler_heap, c->sampler_count);
}

/* The scene's words: RunVertex and its parameters 1 and 2 */
#define RV_BUFFER_SLOT		O(0x14, 0x1c)
#define RV_BUFFER		O(0x1c, 0x24)
#define RV_SCENE		O(0x24, 0x2c)
#define RV_UNK_BUFFER_BUF	O(0x2c, 0x34)
#define RV_TPC			O(0x45c, 0x464)
#define RV_P2_PREEMPT_BUF1	O(0x488 + 0x1c, 0x490 + 0x1c)
#define VP1_TVB_TILEMAP		0x10
#define VP1_TPC			0x20
#define VP1_TVB_HEAPMETA	0x28
#define VP1_TVB_LAYERMETA	0x58
#define VP1_PREEMPT_BUF1	0x70
#define VP1_PREEMPT_BUF2	0x78
#define VP1_PREEMPT_BUF3	0x88
#define VP1_HEAPMETA_FLAG	BIT_ULL(63)
#define VP1_PREEMPT3_FLAG	BIT_ULL(50)
/* RunFragment and its parameters 1 */
#define RF_BUFFER		O(0x20, 0x28)
#define RF_SCENE		O(0x28, 0x30)
#define RF_TVB_TILEMAP		O(0x38, 0x40)
#define FP1_TVB_TILEMAP		FP1_AFTER_AUX(0xe0)
#define FP1_TVB_LAYERMETA	FP1_AFTER_AUX(0xe8)
#define FP1_TVB_HEAPMETA	FP1_AFTER_AUX(0xf8)

void asahi_params_scene_vertex(const struct asahi_abi *a, void *rec,
			       const struct asahi_scene_va *v)
{
	void *p1 = rec + RV_P1;

	wr32(rec, RV_BUFFER_SLOT, v->slot);
	wr64(rec, RV_BUFFER, v->info);
	wr64(rec, RV_SCENE, v->scene);
	wr64(rec, RV_UNK_BUFFER_BUF, v->kernel_buf);
	wr64(rec, RV_TPC, v->tpc);
	wr64(rec, RV_P2_PREEMPT_BUF1, v->preempt[0]);
	wr64(p1, VP1_TVB_TILEMAP, v->tilemap);
	wr64(p1, VP1_TPC, v->tpc);
	wr64(p1, VP1_TVB_HEAPMETA, v->heapmeta | VP1_HEAPMETA_FLAG);
	/* The newer drivers' layer meta, right after the heap meta */
	wr64(p1, VP1_TVB_LAYERMETA, v->layermeta);
	wr64(p1, VP1_PREEMPT_BUF1, v->preempt[0]);
	wr64(p1, VP1_PREEMPT_BUF2, v->preempt[1]);
	wr64(p1, VP1_PREEMPT_BUF3, v->preempt[2] | VP1_PREEMPT3_FLAG);
}

void asahi_params_scene_fragment(const struct asahi_abi *a, void *rec,
				 const struct asahi_scene_va *v)
{
	void *p1 = rec + RF_P1;

	wr64(rec, RF_BUFFER, v->info);
	wr64(rec, RF_SCENE, v->scene);
	wr64(rec, RF_TVB_TILEMAP, v->tilemap);
	wr64(p1, FP1_TVB_TILEMAP, v->tilemap);
	wr64(p1, FP1_TVB_LAYERMETA, v->layermeta);
	wr64(p1, FP1_TVB_HEAPMETA, v->heapmeta);
}
