/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * asahi: the tiled vertex buffer (TVB) manager (asahi_buffer.c)
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#ifndef ASAHI_BUFFER_H
#define ASAHI_BUFFER_H

#include <linux/list.h>
#include <linux/types.h>

struct asahi_gpu;
struct asahi_obj;
struct drm_asahi_cmd_render;

/* Buffer-manager slots the firmware has (NUM_BUFFERS) */
#define ASAHI_BUF_SLOTS		127

struct asahi_buffer;

/* One render pass's objects; from the buffer's pool */
struct asahi_scene {
	struct asahi_buffer *buf;
	struct list_head node;		/* in the pool while free */
	struct asahi_obj *obj;		/* Scene, user buffer, metas, preempt */
	struct asahi_obj *tilemap;
	size_t tilemap_size;
	struct asahi_obj *tpc;		/* the buffer's when it was taken */
};

/* What the records and parameter blocks name (asahi_params.c) */
struct asahi_scene_va {
	u64 scene;
	u64 info;
	u64 kernel_buf;
	u64 tilemap;
	u64 tpc;
	u64 tpc_size;
	u64 heapmeta;
	u64 layermeta;
	u64 preempt[3];
	u32 slot;
};

/* All under the device's gpu_lock, unless said otherwise */
struct asahi_buffer *asahi_buffer_create(struct asahi_gpu *gpu);
void asahi_buffer_free(struct asahi_buffer *buf);
struct asahi_scene *asahi_scene_get(struct asahi_buffer *buf,
				    const struct drm_asahi_cmd_render *c);
void asahi_scene_put(struct asahi_scene *s);
void asahi_scene_va(const struct asahi_scene *s, struct asahi_scene_va *v);

/*
 * The job's run (no lock; one run at a time per queue): whether an
 * InitBuffer must go before the vertex command, and with what block
 * count; the Counter once the render is queued
 */
bool asahi_buffer_take_init(struct asahi_buffer *buf, u32 *blocks);
void asahi_buffer_increment(struct asahi_buffer *buf);

/* The firmware's GrowTVB event (from the RX doorbell, under gpu_lock) */
void asahi_buffer_grow_event(struct asahi_gpu *gpu, const u8 *ev);

#endif
