// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: the tiled vertex buffer (TVB) manager, laid out as drm/asahi
 * does it (buffer.rs, fw/buffer.rs).
 *
 * A render queue's Buffer is a heap of 128 KiB blocks of four 32 KiB
 * pages, 32 KiB aligned in GPU VA, from the private (GPU-side) heap; the
 * firmware learns of it through buffer::Info (private), which points at
 * the page list (page numbers, VA >> 15), the block list (a block's first
 * page number, then 0), BlockControl and Counter (shared).  A Buffer
 * starts with 8 blocks; each render first grows it to what the last
 * renders used (Stats.max_pages: twice needed, three times taken) and to
 * the render's minimum, then takes a Scene (Scene record, tilemap, tail
 * pointer cache, heap and layer meta, preemption buffers) that holds one
 * of the firmware's 127 buffer-manager slots for the Buffer while any of
 * its scenes is in flight.  An InitBuffer command goes before the vertex
 * command when the Buffer was bound to a slot it did not hold last time
 * (or another Buffer held it since) or when it grew.  Counter counts the
 * renders queued.
 *
 * The firmware's GrowTVB event asks for a synchronous grow: 10 more
 * blocks, then DeviceControl GrowTVBAck without waiting for it.  While a
 * scene is active only BlockControl learns of new blocks; Info's counts
 * are written when no scene is.
 *
 * Differences from drm/asahi (docs/devel/agx-guest-stack.rst): the
 * Buffer is made at the queue's first render, not with the queue; scenes
 * come from a pool per Buffer that grows on demand (freed with it), their
 * tilemap grown as renders need; no memory is poison-filled; a full slot
 * table fails the submission (-EBUSY) instead of waiting.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/minmax.h>
#include <linux/slab.h>

#include <drm/asahi_drm.h>

#include "asahi_buffer.h"
#include "asahi_drv.h"
#include "asahi_fw.h"

#define TVB_PAGE_SHIFT		15
#define TVB_PAGES_PER_BLOCK	4
#define TVB_BLOCK_SIZE		(TVB_PAGES_PER_BLOCK << TVB_PAGE_SHIFT)
/* What macOS allows a buffer; a third without memoryless targets */
#define TVB_MAX_SIZE		862322688ULL
#define TVB_MAX_BLOCKS		((u32)(TVB_MAX_SIZE / TVB_BLOCK_SIZE))
#define TVB_MAX_BLOCKS_NOMEMLESS ((u32)(TVB_MAX_SIZE / 3 / TVB_BLOCK_SIZE))
#define TVB_MAX_PAGES		(TVB_MAX_BLOCKS * TVB_PAGES_PER_BLOCK)
#define TVB_MAX_PAGES_NOMEMLESS	(TVB_MAX_BLOCKS_NOMEMLESS * \
				 TVB_PAGES_PER_BLOCK)
#define TVB_INITIAL_BLOCKS	8
#define TVB_SYNC_GROW_BLOCKS	10

/* buffer::Info (13.5; 12.3 has one more word at 0x1c: BI() adds it) */
#define BI_SIZE			0xc0
#define BI_CUR_ID		0x0c
#define BI(a, off)		((off) + ((a)->v13 ? 0 : 4))
#define BI_PAGE_LIST		0x1c
#define BI_PAGE_LIST_SIZE	0x24
#define BI_PAGE_COUNT		0x28
#define BI_MAX_BLOCKS		0x2c
#define BI_BLOCK_COUNT		0x30
#define BI_BLOCK_LIST		0x38
#define BI_BLOCK_CTL		0x40
#define BI_LAST_PAGE		0x48
#define BI_BLOCK_SIZE		0x58
#define BI_COUNTER		0x64
#define BI_UNK_80		0x7c
#define BI_MAX_PAGES		0x80
#define BI_MAX_PAGES_NOMEMLESS	0x84

/* BlockControl, Counter, Stats: 0x40 bytes each, shared */
#define BC_TOTAL		0x00
#define BC_WPTR			0x04
#define SMALL_SIZE		0x40
#define ST_MAX_PAGES		0x00
#define ST_RESET		0x20

/*
 * A scene's object: the Scene record (0x48 at 13.5, 0x40 at 12.3), the
 * user buffer, heap meta then layer meta, the preemption buffers
 * (t8103: one cluster)
 */
#define SC_USER_BUFFER		0x18
#define SC_STATS(a)		((a)->v13 ? 0x2c : 0x24)
#define SO_USER_BUFFER		0x100
#define SO_HEAPMETA		0x200
#define HEAPMETA_SIZE		0x200
#define LAYERMETA_SIZE		0x100
#define SO_PREEMPT		0x800
#define PREEMPT1_SIZE		0x540
#define PREEMPT2_SIZE		0x280
#define PREEMPT3_SIZE		0x20
#define SO_SIZE			(SO_PREEMPT + PREEMPT1_SIZE + PREEMPT2_SIZE + \
				 PREEMPT3_SIZE)

/* GrowTVB event and GrowTVBAck */
#define EV_GROW_VM_SLOT		0x04
#define EV_GROW_SLOT		0x08
#define EV_GROW_COUNTER		0x0c
#define ACK_UNK_4		0x04
#define ACK_SLOT		0x08
#define ACK_VM_SLOT		0x0c
#define ACK_COUNTER		0x10
#define ACK_SUBPIPE		0x14
#define ACK_HALT_COUNT		0x18

struct asahi_buffer {
	struct asahi_gpu *gpu;
	u64 id;				/* for the slot table's last owner */
	struct asahi_obj *info;
	struct asahi_obj *ctl;		/* BlockControl */
	struct asahi_obj *counter;
	struct asahi_obj *stats;
	struct asahi_obj *kernel_buf;
	struct asahi_obj *page_list;
	struct asahi_obj *block_list;
	struct asahi_obj **blocks;
	u32 nblocks;
	struct asahi_obj *tpc;		/* shared by its scenes, grown */
	struct list_head old_tpcs;	/* outgrown, freed with the buffer */
	unsigned int active_scenes;
	int slot;			/* held while a scene is active */
	int last_slot;
	bool need_init;			/* InitBuffer before the next render */
	struct list_head pool;		/* free scenes */
	struct list_head scenes;	/* all of them, for freeing */
};

/* A tail pointer cache a scene in flight may still use */
struct tvb_old_tpc {
	struct list_head node;
	struct asahi_obj *obj;
};

/* Every scene of the pool, in use or not */
struct asahi_scene_entry {
	struct asahi_scene s;
	struct list_head all;
};

static u32 tvb_min_blocks(const struct drm_asahi_cmd_render *c)
{
	u32 tiles = DIV_ROUND_UP(c->width_px, 32) *
		    DIV_ROUND_UP(c->height_px, 32);

	return ALIGN(DIV_ROUND_UP(tiles, 128), 8);
}

/*
 * At least min_blocks blocks: the new ones in the page and block lists,
 * BlockControl, and Info when no scene is active.  True if it grew.
 */
static int tvb_ensure_blocks(struct asahi_buffer *buf, u32 min_blocks)
{
	const struct asahi_abi *a = buf->gpu->abi;
	void *info = buf->info->cpu;
	__le32 *pages = buf->page_list->cpu, *blocks = buf->block_list->cpu;
	u32 i, j, n = buf->nblocks;

	if (n >= min_blocks)
		return 0;
	if (min_blocks > TVB_MAX_BLOCKS)
		return -ENOMEM;
	for (i = n; i < min_blocks; i++) {
		struct asahi_obj *blk;
		u32 page;

		blk = asahi_obj_alloc_align(buf->gpu, HEAP_PRIVATE,
					    TVB_BLOCK_SIZE,
					    UAT_PROT_FW_PRIV_RW,
					    1 << TVB_PAGE_SHIFT);
		if (IS_ERR(blk))
			break;
		buf->blocks[i] = blk;
		page = blk->va >> TVB_PAGE_SHIFT;
		blocks[2 * i] = cpu_to_le32(page);
		for (j = 0; j < TVB_PAGES_PER_BLOCK; j++)
			pages[i * TVB_PAGES_PER_BLOCK + j] = cpu_to_le32(page + j);
	}
	if (i == n)
		return -ENOMEM;
	buf->nblocks = i;
	/* The lists hold the blocks before the counts that name them */
	wmb();
	wr32_once(buf->ctl->cpu, BC_TOTAL, i);
	wr32_once(buf->ctl->cpu, BC_WPTR, i);
	if (!buf->active_scenes) {
		wr32_once(info, BI(a, BI_PAGE_COUNT), i * TVB_PAGES_PER_BLOCK);
		wr32_once(info, BI(a, BI_BLOCK_COUNT), i);
		wr32_once(info, BI(a, BI_LAST_PAGE),
			  i * TVB_PAGES_PER_BLOCK - 1);
	}
	return i < min_blocks ? -ENOMEM : 1;
}

/* Grow to what the last renders used: needs twice, takes three times */
static int tvb_auto_grow(struct asahi_buffer *buf)
{
	u32 used = rd32_once(buf->stats->cpu, ST_MAX_PAGES);
	u32 need, want;

	wr32_once(buf->stats->cpu, ST_RESET, 1);
	need = min(DIV_ROUND_UP(used * 2, TVB_PAGES_PER_BLOCK),
		   TVB_MAX_BLOCKS_NOMEMLESS);
	want = min(DIV_ROUND_UP(used * 3, TVB_PAGES_PER_BLOCK),
		   TVB_MAX_BLOCKS_NOMEMLESS);
	if (need <= buf->nblocks)
		return 0;
	return tvb_ensure_blocks(buf, want);
}

void asahi_buffer_free(struct asahi_buffer *buf)
{
	struct asahi_gpu *gpu;
	struct asahi_scene_entry *e, *tmp;
	struct tvb_old_tpc *o, *otmp;
	u32 i;

	if (!buf)
		return;
	gpu = buf->gpu;
	WARN_ON(buf->active_scenes);
	list_for_each_entry_safe(e, tmp, &buf->scenes, all) {
		asahi_obj_free(gpu, e->s.tilemap);
		asahi_obj_free(gpu, e->s.obj);
		kfree(e);
	}
	for (i = 0; i < buf->nblocks; i++)
		asahi_obj_free(gpu, buf->blocks[i]);
	kvfree(buf->blocks);
	list_for_each_entry_safe(o, otmp, &buf->old_tpcs, node) {
		asahi_obj_free(gpu, o->obj);
		kfree(o);
	}
	asahi_obj_free(gpu, buf->tpc);
	asahi_obj_free(gpu, buf->block_list);
	asahi_obj_free(gpu, buf->page_list);
	asahi_obj_free(gpu, buf->kernel_buf);
	asahi_obj_free(gpu, buf->stats);
	asahi_obj_free(gpu, buf->counter);
	asahi_obj_free(gpu, buf->ctl);
	asahi_obj_free(gpu, buf->info);
	kfree(buf);
}

static struct asahi_obj *tvb_alloc(struct asahi_gpu *gpu, int heap,
				   size_t size)
{
	struct asahi_obj *obj;

	obj = asahi_obj_alloc(gpu, heap, size, heap == HEAP_SHARED ?
			      UAT_PROT_FW_SHARED_RW : UAT_PROT_FW_PRIV_RW);
	return IS_ERR(obj) ? NULL : obj;
}

struct asahi_buffer *asahi_buffer_create(struct asahi_gpu *gpu)
{
	const struct asahi_abi *a = gpu->abi;
	struct asahi_buffer *buf = kzalloc_obj(*buf);
	void *info;

	if (!buf)
		return ERR_PTR(-ENOMEM);
	buf->gpu = gpu;
	buf->id = ++gpu->buf_ids;
	buf->slot = -1;
	buf->last_slot = -1;
	INIT_LIST_HEAD(&buf->pool);
	INIT_LIST_HEAD(&buf->scenes);
	INIT_LIST_HEAD(&buf->old_tpcs);
	buf->blocks = kvcalloc(TVB_MAX_BLOCKS, sizeof(*buf->blocks),
			       GFP_KERNEL);
	buf->info = tvb_alloc(gpu, HEAP_PRIVATE, BI_SIZE);
	buf->ctl = tvb_alloc(gpu, HEAP_SHARED, SMALL_SIZE);
	buf->counter = tvb_alloc(gpu, HEAP_SHARED, SMALL_SIZE);
	buf->stats = tvb_alloc(gpu, HEAP_SHARED, SMALL_SIZE);
	buf->kernel_buf = tvb_alloc(gpu, HEAP_SHARED, SMALL_SIZE);
	buf->page_list = tvb_alloc(gpu, HEAP_PRIVATE, 4 * TVB_MAX_PAGES);
	buf->block_list = tvb_alloc(gpu, HEAP_PRIVATE, 8 * TVB_MAX_BLOCKS);
	if (!buf->blocks || !buf->info || !buf->ctl || !buf->counter ||
	    !buf->stats || !buf->kernel_buf || !buf->page_list ||
	    !buf->block_list) {
		asahi_buffer_free(buf);
		return ERR_PTR(-ENOMEM);
	}
	wr32_once(buf->stats->cpu, ST_RESET, 1);
	info = buf->info->cpu;
	wr32(info, BI_CUR_ID, 0xffffffff);
	wr64(info, BI(a, BI_PAGE_LIST), buf->page_list->va);
	wr32(info, BI(a, BI_PAGE_LIST_SIZE), 4 * TVB_MAX_PAGES);
	wr32(info, BI(a, BI_MAX_BLOCKS), TVB_MAX_BLOCKS);
	wr64(info, BI(a, BI_BLOCK_LIST), buf->block_list->va);
	wr64(info, BI(a, BI_BLOCK_CTL), buf->ctl->va);
	wr32(info, BI(a, BI_BLOCK_SIZE), TVB_BLOCK_SIZE);
	wr64(info, BI(a, BI_COUNTER), buf->counter->va);
	wr32(info, BI(a, BI_UNK_80), 1);
	wr32(info, BI(a, BI_MAX_PAGES), TVB_MAX_PAGES);
	wr32(info, BI(a, BI_MAX_PAGES_NOMEMLESS), TVB_MAX_PAGES_NOMEMLESS);
	if (tvb_ensure_blocks(buf, TVB_INITIAL_BLOCKS) < 0) {
		asahi_buffer_free(buf);
		return ERR_PTR(-ENOMEM);
	}
	return buf;
}

/* A slot for the buffer: its last one if nobody took it since */
static int tvb_bind_slot(struct asahi_buffer *buf, bool *rebind)
{
	struct asahi_gpu *gpu = buf->gpu;
	int i, slot = -1;

	if (buf->last_slot >= 0 && !gpu->buf_owner[buf->last_slot] &&
	    gpu->buf_last[buf->last_slot] == buf->id) {
		slot = buf->last_slot;
		*rebind = false;
	} else {
		for (i = 0; i < ASAHI_BUF_SLOTS && slot < 0; i++) {
			if (!gpu->buf_owner[i])
				slot = i;
		}
		if (slot < 0)
			return -EBUSY;
		*rebind = true;
	}
	gpu->buf_owner[slot] = buf;
	gpu->buf_last[slot] = buf->id;
	buf->slot = slot;
	buf->last_slot = slot;
	return 0;
}

/* A scene from the pool, or a new one; its tilemap big enough */
static struct asahi_scene *tvb_scene_alloc(struct asahi_buffer *buf,
					   const struct drm_asahi_cmd_render *c)
{
	const struct asahi_abi *a = buf->gpu->abi;
	struct asahi_scene_entry *e;
	struct asahi_scene *s;
	u32 tx = DIV_ROUND_UP(c->width_px, 32), ty = DIV_ROUND_UP(c->height_px, 32);
	u32 uw = c->utile_width_px ? c->utile_width_px : 32;
	u32 uh = c->utile_height_px ? c->utile_height_px : 32;
	u32 mtiles = ALIGN(DIV_ROUND_UP(tx, 4), 4) * ALIGN(DIV_ROUND_UP(ty, 4), 4);
	u32 rgn_size = ALIGN(5 * mtiles * (32 / uw) * (32 / uh), 4) / 4;
	size_t tilemap_size = 4ULL * rgn_size * 16 * max_t(u32, c->layers, 1);

	if (!list_empty(&buf->pool)) {
		s = list_first_entry(&buf->pool, struct asahi_scene, node);
		list_del_init(&s->node);
	} else {
		e = kzalloc_obj(*e);
		if (!e)
			return ERR_PTR(-ENOMEM);
		s = &e->s;
		s->buf = buf;
		INIT_LIST_HEAD(&s->node);
		s->obj = tvb_alloc(buf->gpu, HEAP_SHARED, SO_SIZE);
		if (!s->obj) {
			kfree(e);
			return ERR_PTR(-ENOMEM);
		}
		list_add_tail(&e->all, &buf->scenes);
	}
	if (s->tilemap_size < tilemap_size) {
		asahi_obj_free(buf->gpu, s->tilemap);
		s->tilemap = tvb_alloc(buf->gpu, HEAP_SHARED, tilemap_size);
		s->tilemap_size = s->tilemap ? tilemap_size : 0;
		if (!s->tilemap) {
			list_add(&s->node, &buf->pool);
			return ERR_PTR(-ENOMEM);
		}
	}
	/* A fresh Scene record and metadata for this render */
	memset(s->obj->cpu, 0, SO_PREEMPT);
	memset(s->tilemap->cpu, 0, tilemap_size);
	wr64(s->obj->cpu, SC_USER_BUFFER, s->obj->va + SO_USER_BUFFER);
	wr64(s->obj->cpu, SC_STATS(a), buf->stats->va);
	return s;
}

/* The tail pointer cache the render needs, shared by the scenes */
static int tvb_tpc(struct asahi_buffer *buf,
		   const struct drm_asahi_cmd_render *c)
{
	u32 uw = c->utile_width_px ? c->utile_width_px : 32;
	u32 uh = c->utile_height_px ? c->utile_height_px : 32;
	u32 tx = DIV_ROUND_UP(c->width_px, 32), ty = DIV_ROUND_UP(c->height_px, 32);
	u32 mtiles = ALIGN(DIV_ROUND_UP(tx, 4), 4) * ALIGN(DIV_ROUND_UP(ty, 4), 4);
	u64 stride = 8ULL * (32 / uw) * (32 / uh) * mtiles / 4;
	u64 size = 4 * stride * 16 * max_t(u32, c->layers, 1);

	struct asahi_obj *tpc;
	struct tvb_old_tpc *old;

	if (buf->tpc && ((u64)buf->tpc->npages << UAT_PAGE_SHIFT) >= size)
		return 0;
	tpc = tvb_alloc(buf->gpu, HEAP_PRIVATE, size);
	old = kzalloc_obj(*old);
	if (!tpc || !old) {
		asahi_obj_free(buf->gpu, tpc);
		kfree(old);
		return -ENOMEM;
	}
	/* Scenes in flight may still use the old one: kept until the end */
	old->obj = buf->tpc;
	if (old->obj)
		list_add(&old->node, &buf->old_tpcs);
	else
		kfree(old);
	buf->tpc = tpc;
	return 0;
}

struct asahi_scene *asahi_scene_get(struct asahi_buffer *buf,
				    const struct drm_asahi_cmd_render *c)
{
	struct asahi_scene *s;
	bool rebind = false;
	int grown, auto_grown, ret;

	auto_grown = tvb_auto_grow(buf);
	grown = tvb_ensure_blocks(buf, tvb_min_blocks(c));
	if (grown < 0)
		return ERR_PTR(grown);
	ret = tvb_tpc(buf, c);
	if (ret)
		return ERR_PTR(ret);
	s = tvb_scene_alloc(buf, c);
	if (IS_ERR(s))
		return s;
	s->tpc = buf->tpc;
	if (!buf->active_scenes) {
		ret = tvb_bind_slot(buf, &rebind);
		if (ret) {
			list_add(&s->node, &buf->pool);
			return ERR_PTR(ret);
		}
	}
	buf->active_scenes++;
	if (rebind || grown > 0 || auto_grown > 0)
		WRITE_ONCE(buf->need_init, true);
	return s;
}

void asahi_scene_put(struct asahi_scene *s)
{
	struct asahi_buffer *buf;

	if (IS_ERR_OR_NULL(s))
		return;
	buf = s->buf;
	list_add(&s->node, &buf->pool);
	if (WARN_ON(!buf->active_scenes))
		return;
	if (--buf->active_scenes)
		return;
	buf->gpu->buf_owner[buf->slot] = NULL;
	buf->slot = -1;
}

void asahi_scene_va(const struct asahi_scene *s, struct asahi_scene_va *v)
{
	const struct asahi_buffer *buf = s->buf;
	u64 base = s->obj->va;

	v->scene = base;
	v->info = buf->info->va;
	v->kernel_buf = buf->kernel_buf->va;
	v->tilemap = s->tilemap->va;
	v->tpc = s->tpc->va;
	v->tpc_size = (u64)s->tpc->npages << UAT_PAGE_SHIFT;
	v->heapmeta = base + SO_HEAPMETA;
	v->layermeta = base + SO_HEAPMETA + HEAPMETA_SIZE;
	v->preempt[0] = base + SO_PREEMPT;
	v->preempt[1] = v->preempt[0] + PREEMPT1_SIZE;
	v->preempt[2] = v->preempt[1] + PREEMPT2_SIZE;
	v->slot = buf->slot;
}

bool asahi_buffer_take_init(struct asahi_buffer *buf, u32 *blocks)
{
	*blocks = READ_ONCE(buf->nblocks);
	return xchg(&buf->need_init, false);
}

void asahi_buffer_increment(struct asahi_buffer *buf)
{
	void *ctr = buf->counter->cpu;

	wr32_once(ctr, 0, rd32_once(ctr, 0) + 1);
}

void asahi_buffer_grow_event(struct asahi_gpu *gpu, const u8 *ev)
{
	u32 slot = get_unaligned_le32(ev + EV_GROW_SLOT);
	u8 msg[DEVCTRL_MSG_SIZE] = { 0 };
	struct asahi_buffer *buf = NULL;
	int ret;

	if (slot < ASAHI_BUF_SLOTS)
		buf = gpu->buf_owner[slot];
	if (buf) {
		dev_info(gpu->dev,
			 "synchronous grow request for buffer slot %u (%u blocks), not generally expected\n",
			 slot, buf->nblocks);
		if (tvb_ensure_blocks(buf, buf->nblocks +
				      TVB_SYNC_GROW_BLOCKS) < 0)
			dev_err(gpu->dev, "buffer slot %u: cannot grow\n",
				slot);
	} else {
		dev_err(gpu->dev, "grow request for empty buffer slot %u\n",
			slot);
	}
	/* Acknowledged either way; the firmware goes on by itself */
	wr32(msg, 0, gpu->abi->dc_grow_tvb_ack);
	wr32(msg, ACK_UNK_4, 1);
	wr32(msg, ACK_SLOT, slot);
	wr32(msg, ACK_VM_SLOT, get_unaligned_le32(ev + EV_GROW_VM_SLOT));
	wr32(msg, ACK_COUNTER, get_unaligned_le32(ev + EV_GROW_COUNTER));
	wr32(msg, ACK_SUBPIPE, 0);
	wr64(msg, ACK_HALT_COUNT, rd64_once(gpu->fw_status->cpu,
					    FWS_HALT_COUNT));
	mutex_lock(&gpu->tx_lock);
	ret = asahi_ring_tx(gpu, &gpu->devctrl, msg);
	if (!ret)
		ret = asahi_doorbell(gpu, DOORBELL_DEVCTRL);
	mutex_unlock(&gpu->tx_lock);
	if (ret)
		dev_err(gpu->dev, "GrowTVBAck for slot %u: %d\n", slot, ret);
}
