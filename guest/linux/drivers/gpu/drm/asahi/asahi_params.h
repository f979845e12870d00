/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * asahi: the job parameter blocks of the Run records (asahi_params.c)
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#ifndef ASAHI_PARAMS_H
#define ASAHI_PARAMS_H

#include <linux/types.h>

struct asahi_abi;
struct asahi_scene_va;
struct drm_asahi_cmd_render;
struct drm_asahi_cmd_compute;

void asahi_params_vertex(const struct asahi_abi *a, void *rec,
			 const struct drm_asahi_cmd_render *cmd,
			 u64 usc_exec_base, u32 core_mask);
void asahi_params_fragment(const struct asahi_abi *a, void *rec,
			   const struct drm_asahi_cmd_render *cmd,
			   u64 usc_exec_base);
void asahi_params_compute(const struct asahi_abi *a, void *rec,
			  const struct drm_asahi_cmd_compute *cmd,
			  u64 usc_exec_base);
/* The scene's buffer-manager words (asahi_buffer.c gives them) */
void asahi_params_scene_vertex(const struct asahi_abi *a, void *rec,
			       const struct asahi_scene_va *v);
void asahi_params_scene_fragment(const struct asahi_abi *a, void *rec,
				 const struct asahi_scene_va *v);

#endif
