// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: the GPU firmware (13.5 or 12.3 ABI), brought up at probe the way
 * drm/asahi does it.
 *
 * asahi_gpu_init() (after the RTKit boot): drm/asahi's probe sequence.  Kernel objects are
 * physically contiguous page allocations mapped into the kernel UAT
 * context in the driver's heaps, firmware-private (cached) at
 * 0xffffffa0_00000000 and shared (uncached) at 0xffffffa8_00000000, with
 * the driver's protections.  The AP's magic goes into the handoff region,
 * whose firmware magic (written at RUN) must be there; InitData points at
 * RuntimePointers, Globals, FwStatus, HwDataA/B (the device tree's
 * calibration blobs, copied as they are) and every channel; a DeviceControl
 * Initialize is queued, endpoints 0x20 and 0x21 started, INIT sent, the
 * device-control doorbell rung and the ring's read pointer awaited.
 *
 * Firmware to driver: asahi_event.c.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/soc/apple/rtkit.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/unaligned.h>
#include <linux/wait.h>

#include <clocksource/arm_arch_timer.h>

#include "asahi_drv.h"
#include "asahi_fw.h"

static const u64 heap_base[NUM_HEAPS] = {
	[HEAP_PRIVATE] = 0xffffffa000000000ULL,
	[HEAP_SHARED] = 0xffffffa800000000ULL,
};

static const struct asahi_abi asahi_abis[] = {
	{
		.name = "13.5", .compat = { 13, 5 }, .v13 = true,
		.id_size = 0xbc, .id_base = 0x08,
		.globals_size = 0x12394, .hwa_size = 0x421c,
		.hwa_min = 0x421c, .hwb_size = 0x1884,
		.gl_pending_stamps = 0x111a8, .pending_shift = 4,
		.stats_elem = 0x40, .dc_initialize = 0x1a,
		.dc_recover_channel = 0x0f, .dc_grow_tvb_ack = 0x0e,
		.qi_size = 0xb8,
		.qi_gpu_context = 0xa4, .ts_size = 0x3c, .ts_uuid = 0x34,
		.run_vm_slot = { 0x0c, 0x0c, 0x10 },
		.run_useq = { 0x474, 0x14, 0x1f0 },
		.run_meta = { 0x56c, 0x8d0, 0x284 },
		.op_start = { 0x18c, 0x1ac, 0x16c },
		.op_finalize = { 0x84, 0xb4, 0x7c },
	},
	{
		.name = "12.3", .compat = { 12, 3 }, .v13 = false,
		.id_size = 0xb4, .id_base = 0x00,
		.globals_size = 0x11d40, .hwa_size = 0x3d6c,
		.hwa_min = 0x3d68, .hwb_size = 0xb6c,
		.gl_pending_stamps = 0x1103c, .pending_shift = 3,
		.stats_elem = 0x30, .dc_initialize = 0x19,
		.dc_recover_channel = 0x0e, .dc_grow_tvb_ack = 0x0d,
		.qi_size = 0xb0,
		.qi_gpu_context = 0xa0, .ts_size = 0x34, .ts_uuid = 0x2c,
		.run_vm_slot = { 0x04, 0x04, 0x08 },
		.run_useq = { 0x46c, 0x0c, 0x1e8 },
		.run_meta = { 0x564, 0x8b4, 0x27c },
		.op_start = { 0x17c, 0x194, 0x154 },
		.op_finalize = { 0x74, 0x9c, 0x64 },
		.rec_shift = 8, .fc_shift = 4, .sf_shift = 8, .ff_shift = 8,
	},
};

unsigned int asahi_job_ns = 20000;
module_param_named(job_ns, asahi_job_ns, uint, 0444);
MODULE_PARM_DESC(job_ns,
		 "GPU time of a job, ns (QEMU's apple-agx job-duration-ns)");

unsigned int asahi_wait_ms = 5000;
module_param_named(wait_ms, asahi_wait_ms, uint, 0644);
MODULE_PARM_DESC(wait_ms, "Longest wait for one firmware event, ms");

void asahi_gpu_error(struct asahi_gpu *gpu)
{
	spin_lock(&gpu->lock);
	gpu->errors++;
	spin_unlock(&gpu->lock);
}

/* Allocates size bytes in heap, zeroed and mapped with prot */
struct asahi_obj *asahi_obj_alloc(struct asahi_gpu *gpu, int heap,
				     size_t size, u64 prot)
{
	return asahi_obj_alloc_align(gpu, heap, size, prot, UAT_PAGE_SIZE);
}

/* The same, at a VA aligned to align (a power of two, >= a UAT page) */
struct asahi_obj *asahi_obj_alloc_align(struct asahi_gpu *gpu, int heap,
					size_t size, u64 prot, u64 align)
{
	unsigned int npages = DIV_ROUND_UP(size, UAT_PAGE_SIZE);
	struct asahi_obj *obj;
	int ret;

	gpu->heap_next[heap] = ALIGN(gpu->heap_next[heap], align);
	if (gpu->heap_next[heap] + (npages + 1ULL) * UAT_PAGE_SIZE >
	    heap_base[heap] + HEAP_LIMIT)
		return ERR_PTR(-ENOSPC);
	obj = kzalloc_obj(*obj);
	if (!obj)
		return ERR_PTR(-ENOMEM);
	obj->npages = npages;
	obj->order = get_order(npages * UAT_PAGE_SIZE);
	/* Page allocations of at least 16 KiB are 16 KiB aligned */
	obj->pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, obj->order);
	if (!obj->pages) {
		kfree(obj);
		return ERR_PTR(-ENOMEM);
	}
	obj->cpu = page_address(obj->pages);
	obj->va = gpu->heap_next[heap];
	ret = asahi_kuat_map(gpu->priv, obj->va,
				     page_to_phys(obj->pages), npages, prot);
	if (ret) {
		asahi_kuat_unmap(gpu->priv, obj->va, npages);
		__free_pages(obj->pages, obj->order);
		kfree(obj);
		return ERR_PTR(ret);
	}
	gpu->heap_next[heap] += (npages + 1ULL) * UAT_PAGE_SIZE;
	obj->cached = heap == HEAP_PRIVATE;
	list_add_tail(&obj->node, &gpu->objs);
	return obj;
}

static int asahi_send(struct asahi_gpu *gpu, u8 ep, u64 msg);

/*
 * drm/asahi's cache flush before a cached firmware mapping goes: the
 * kernel context's flush slot in the handoff gets {addr, size} and state
 * 1, a FwCtl message names it, the firmware flushes and sets state 2.
 */
static void asahi_gpu_flush(struct asahi_gpu *gpu, u64 va, u64 size)
{
	void *slot = gpu->handoff + HANDOFF_FLUSH(FLUSH_SLOT_KERNEL);
	unsigned long timeout = jiffies + msecs_to_jiffies(1000);
	u8 msg[FWCTL_ELEM_SIZE] = { 0 };
	u64 state;

	if (!gpu->handoff)
		return;
	mutex_lock(&gpu->tx_lock);
	wr64_once(slot, 8, va);
	wr64_once(slot, 16, size);
	/* Address and size before the state that asks */
	wmb();
	wr64_once(slot, 0, 1);
	wr64(msg, 0, va);
	wr32(msg, FWCTL_FLUSH_SLOT, FLUSH_SLOT_KERNEL);
	put_unaligned_le16(size >> UAT_PAGE_SHIFT, msg + FWCTL_FLUSH_PAGES);
	put_unaligned_le16(2, msg + FWCTL_FLUSH_UNK);
	if (asahi_ring_tx(gpu, &gpu->fwctl, msg) ||
	    asahi_send(gpu, EP_DOORBELL, FIELD_PREP(MSG_TYPE, MSG_FWCTL))) {
		mutex_unlock(&gpu->tx_lock);
		return;
	}
	while (rd32_once(gpu->fwctl.state, CH_RPTR) != gpu->fwctl.ptr &&
	       time_before(jiffies, timeout))
		usleep_range(100, 200);
	state = rd64_once(slot, 0);
	if (state != 2)
		dev_err(gpu->dev, "expected flush state 2, got %llu\n", state);
	wr64_once(slot, 0, 0);
	mutex_unlock(&gpu->tx_lock);
}

/*
 * Unmaps and frees one object the firmware no longer uses; a cached one
 * is remapped uncached and flushed from the firmware's caches first.
 */
void asahi_obj_free(struct asahi_gpu *gpu, struct asahi_obj *obj)
{
	if (IS_ERR_OR_NULL(obj))
		return;
	if (obj->cached && gpu->published) {
		asahi_kuat_map(gpu->priv, obj->va, page_to_phys(obj->pages),
			       obj->npages, UAT_PROT_FW_SHARED_RW);
		asahi_gpu_flush(gpu, obj->va,
				(u64)obj->npages << UAT_PAGE_SHIFT);
	}
	asahi_kuat_unmap(gpu->priv, obj->va, obj->npages);
	__free_pages(obj->pages, obj->order);
	list_del(&obj->node);
	kfree(obj);
}

/* Registered with devm once gpu-init starts; frees everything */
static void asahi_gpu_fini(void *data)
{
	struct asahi_gpu *gpu = data;
	struct asahi_device *priv = gpu->priv;
	struct asahi_obj *obj, *tmp;

	/* The firmware must not touch this memory any more */
	if (gpu->published)
		asahi_rtkit_set_run(priv, false);
	mutex_lock(&priv->gpu_lock);
	if (priv->gpu == gpu)
		priv->gpu = NULL;
	mutex_unlock(&priv->gpu_lock);

	list_for_each_entry_safe(obj, tmp, &gpu->objs, node) {
		asahi_kuat_unmap(priv, obj->va, obj->npages);
		__free_pages(obj->pages, obj->order);
		list_del(&obj->node);
		kfree(obj);
	}
	if (gpu->sgx)
		iounmap(gpu->sgx);
	if (gpu->handoff)
		memunmap(gpu->handoff);
	kfree(gpu);
}

/*
 * Rings.  TX: we write elements and the write pointer, the firmware the
 * read pointer; RX the other way round.
 */
static int asahi_ring_alloc(struct asahi_gpu *gpu, struct asahi_ring *r,
			  void *desc, u32 count, u32 elem_size, u32 state_size,
			  u32 wptr_off, int ring_heap)
{
	struct asahi_obj *state, *ring;

	state = asahi_obj_alloc(gpu, HEAP_SHARED, state_size,
			      UAT_PROT_FW_SHARED_RW);
	if (IS_ERR(state))
		return PTR_ERR(state);
	ring = asahi_obj_alloc(gpu, ring_heap, (size_t)count * elem_size,
			     ring_heap == HEAP_PRIVATE ? UAT_PROT_FW_PRIV_RW :
			     UAT_PROT_FW_SHARED_RW);
	if (IS_ERR(ring))
		return PTR_ERR(ring);
	r->state = state->cpu;
	r->ring = ring->cpu;
	r->count = count;
	r->elem_size = elem_size;
	r->wptr_off = wptr_off;
	wr64(desc, 0, state->va);
	wr64(desc, 8, ring->va);
	return 0;
}

static void *asahi_ring_elem(struct asahi_ring *r, u32 index)
{
	return r->ring + (size_t)(r->first + index) * r->elem_size;
}

/* Appends one element; waits (bounded) while the ring is full */
int asahi_ring_tx(struct asahi_gpu *gpu, struct asahi_ring *r,
		       const void *elem)
{
	u32 next = (r->ptr + 1) % r->count;
	unsigned long timeout = jiffies + msecs_to_jiffies(asahi_wait_ms);

	while (rd32_once(r->state, CH_RPTR) == next) {
		if (time_after(jiffies, timeout)) {
			dev_err(gpu->dev, "TX ring stays full\n");
			return -ETIMEDOUT;
		}
		usleep_range(100, 200);
	}
	memcpy(asahi_ring_elem(r, r->ptr), elem, r->elem_size);
	/* The element is in memory before the pointer that publishes it */
	wmb();
	r->ptr = next;
	wr32_once(r->state, r->wptr_off, next);
	return 0;
}

/* Takes the next element the firmware produced; false if none */
bool asahi_ring_rx(struct asahi_gpu *gpu, struct asahi_ring *r, void *elem)
{
	u32 wptr = rd32_once(r->state, r->wptr_off);

	if (wptr >= r->count) {
		dev_err(gpu->dev, "RX write pointer %u of %u\n",
			wptr, r->count);
		asahi_gpu_error(gpu);
		return false;
	}
	if (wptr == r->ptr)
		return false;
	/* The pointer is read before the element it publishes */
	rmb();
	memcpy(elem, asahi_ring_elem(r, r->ptr), r->elem_size);
	r->ptr = (r->ptr + 1) % r->count;
	/* Copied before the firmware may overwrite it */
	mb();
	wr32_once(r->state, CH_RPTR, r->ptr);
	return true;
}

static int asahi_send(struct asahi_gpu *gpu, u8 ep, u64 msg)
{
	int ret;

	/* Everything the message announces is in memory (mailbox: relaxed) */
	wmb();
	/*
	 * One sender at a time: the Apple mailbox driver's full-FIFO path
	 * (enable the send-empty interrupt, wait) is not safe against a
	 * concurrent sender ("Unbalanced enable for IRQ")
	 */
	mutex_lock(&gpu->send_lock);
	ret = apple_rtkit_send_message(gpu->priv->rtk, ep, msg, NULL, false);
	mutex_unlock(&gpu->send_lock);
	return ret;
}

int asahi_doorbell(struct asahi_gpu *gpu, u16 channel)
{
	return asahi_send(gpu, EP_DOORBELL,
			FIELD_PREP(MSG_TYPE, MSG_TX_DOORBELL) | channel);
}

u32 asahi_stamp(struct asahi_gpu *gpu, unsigned int slot)
{
	return rd32_once(gpu->stamps->cpu, 4 * slot);
}

u32 asahi_fw_stamp(struct asahi_gpu *gpu, unsigned int slot)
{
	return rd32_once(gpu->fw_stamps->cpu, 4 * slot);
}

ssize_t asahi_gpu_state_show(struct asahi_device *priv, char *buf)
{
	struct asahi_gpu *gpu;
	ssize_t len;

	mutex_lock(&priv->gpu_lock);
	gpu = priv->gpu;
	if (!gpu) {
		mutex_unlock(&priv->gpu_lock);
		return sysfs_emit(buf, "init=0\n");
	}
	spin_lock(&gpu->lock);
	len = sysfs_emit(buf,
			 "init=1 jobs=%u flags=%u doorbells=%u faults=%u other=%u fwlog=%u errors=%u dead=%d\n",
			 asahi_fwtest_jobs(priv), gpu->flag_events,
			 gpu->rx_doorbells,
			 gpu->fault_events, gpu->other_events, gpu->fwlog_lines,
			 gpu->errors, gpu->dead);
	spin_unlock(&gpu->lock);
	mutex_unlock(&priv->gpu_lock);
	return len;
}

/* What gpu-init needs from the device tree: firmware 13.5 */
static int asahi_gpu_check_compat(struct asahi_gpu *gpu)
{
	struct device *dev = gpu->dev;
	unsigned int i;
	u32 compat[3];
	int ret;

	/*
	 * The bootloader writes apple,firmware-abi into every gpu node
	 * (upstream's and downstream's), apple,firmware-compat only into
	 * downstream ones
	 */
	ret = of_property_read_u32_array(dev->of_node, "apple,firmware-abi",
					 compat, ARRAY_SIZE(compat));
	if (ret)
		ret = of_property_read_u32_array(dev->of_node,
						 "apple,firmware-compat",
						 compat, ARRAY_SIZE(compat));
	if (ret) {
		dev_err(dev, "no apple,firmware-abi\n");
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(asahi_abis); i++) {
		if (compat[0] == asahi_abis[i].compat[0] &&
		    compat[1] == asahi_abis[i].compat[1]) {
			gpu->abi = &asahi_abis[i];
			dev_info(dev, "firmware ABI %s\n", gpu->abi->name);
			return 0;
		}
	}
	dev_err(dev, "firmware %u.%u.%u: only 13.5 and 12.3 are supported\n",
		compat[0], compat[1], compat[2]);
	return -ENODEV;
}

/* The SGX ID registers say G13G, one cluster of 8 cores (t8103) */
static int asahi_gpu_check_id(struct asahi_gpu *gpu)
{
	struct asahi_device *priv = gpu->priv;
	u32 id = readl(gpu->sgx + SGX_ID_VERSION);
	u32 counts = readl(gpu->sgx + SGX_ID_COUNTS_1);
	u32 clusters = readl(gpu->sgx + SGX_ID_CLUSTERS);
	u32 mask = readl(gpu->sgx + SGX_CORE_MASK_0);

	dev_info(gpu->dev,
		 "GPU id 0x%08x, %u cores per cluster, %u clusters, core mask 0x%x\n",
		 id, counts & 0xff, (clusters >> 12) & 0xff, mask);
	if (id >> 24 != 4 || ((id >> 16) & 0xff) != 2 ||
	    (counts & 0xff) != 8 || ((clusters >> 12) & 0xff) != 1 ||
	    !mask || mask & ~0xffu) {
		dev_err(gpu->dev, "not a t8103 G13G\n");
		return -ENODEV;
	}
	/* Generation 4 is G13, variant 2 is 'G' */
	priv->gpu_gen = 13;
	priv->gpu_variant = 'G';
	priv->gpu_rev = (id >> 8) & 0xff;
	priv->num_cores = counts & 0xff;
	priv->num_clusters = (clusters >> 12) & 0xff;
	priv->core_mask = mask;
	return 0;
}

/* Copies the device tree's blob called name into obj */
static int asahi_gpu_copy_blob(struct asahi_gpu *gpu, const char *name,
			     struct asahi_obj *obj, size_t size, size_t min)
{
	struct resource res;
	void *blob;
	int ret;

	ret = asahi_region(gpu->dev, name, &res);
	if (ret)
		return ret;
	if (resource_size(&res) < min) {
		dev_err(gpu->dev, "%s region %pR is too small\n",
			name, &res);
		return -EINVAL;
	}
	size = min_t(size_t, size, resource_size(&res));
	blob = memremap(res.start, size, MEMREMAP_WB);
	if (!blob)
		return -ENOMEM;
	memcpy(obj->cpu, blob, size);
	memunmap(blob);
	return 0;
}

/* Handoff::init, as far as it goes after RUN: AP magic, firmware magic */
static int asahi_gpu_handoff(struct asahi_gpu *gpu)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(1000);
	struct resource res;
	void *handoff;
	u64 magic;
	int ret;

	ret = asahi_region(gpu->dev, "handoff", &res);
	if (ret)
		return ret;
	if (resource_size(&res) < HANDOFF_FULL_SIZE)
		return -EINVAL;
	/* Mapped RAM, not no-map: write-back, as newer drivers map it */
	handoff = memremap(res.start, HANDOFF_FULL_SIZE, MEMREMAP_WB);
	if (!handoff)
		return -ENOMEM;
	wr64_once(handoff, HANDOFF_MAGIC_AP, HANDOFF_MAGIC);
	/* The firmware wrote its magic at RUN; the driver waits up to 1 s */
	while ((magic = rd64_once(handoff, HANDOFF_MAGIC_FW)) !=
	       HANDOFF_MAGIC && time_before(jiffies, timeout))
		usleep_range(10000, 20000);
	if (magic != HANDOFF_MAGIC) {
		memunmap(handoff);
		dev_err(gpu->dev, "handoff magic 0x%016llx\n",
			magic);
		return -ETIMEDOUT;
	}
	/* Kept for cache flush requests */
	gpu->handoff = handoff;
	return 0;
}

/* InitData's words: where everything is, the UAT's geometry */
static void asahi_gpu_initdata(struct asahi_gpu *gpu, struct asahi_obj *unk)
{
	static const u8 level_shift[3] = { 36, 25, 14 };
	static const u16 level_entries[3] = { 8, 2048, 2048 };
	const struct asahi_abi *a = gpu->abi;
	void *id = gpu->initdata->cpu;
	unsigned int l;

	/* 12.3 has no ver_info: everything else 8 bytes earlier */
	if (a->v13)
		wr64(id, ID_VER_INFO, ID_VER_INFO_13_5);
	id -= ID_UNK_BUF - a->id_base;
	wr64(id, ID_UNK_BUF, unk->va);
	wr64(id, ID_RUNTIME_POINTERS, gpu->rp->va);
	wr64(id, ID_GLOBALS, gpu->globals->va);
	wr64(id, ID_FW_STATUS, gpu->fw_status->va);
	wr32(id, ID_UAT_PAGE, UAT_PAGE_SIZE | UAT_PAGE_SHIFT << 16 | 3 << 24);
	for (l = 0; l < 3; l++) {
		void *li = id + ID_UAT_LEVEL(l);

		wr32(li, 0, 8 | UAT_PAGE_SHIFT << 8 | UAT_PAGE_SHIFT << 16 |
		     level_shift[l] << 24);
		wr32(li, 4, level_entries[l] | UAT_PAGE_SIZE << 16);
		wr64(li, 8, 1);
		wr64(li, 0x10, UAT_PTE_ADDR);
		wr64(li, 0x18, (u64)(level_entries[l] - 1) << level_shift[l]);
	}
	wr32(id, ID_HOST_MAPPED, 1);
}

/* Channels: TX rings private; RX rings and all states shared */
static int asahi_gpu_channels(struct asahi_gpu *gpu)
{
	struct asahi_ring ktrace, stats;
	void *rp = gpu->rp->cpu;
	unsigned int type, prio, i;
	int ret = 0;

	for (prio = 0; prio < 4 && !ret; prio++) {
		for (type = 0; type < NUM_PIPES && !ret; type++)
			ret = asahi_ring_alloc(gpu,
					       &gpu->pipes[PIPE_CHANNEL(type, prio)],
					       rp + RP_PIPE(type, prio), CH_COUNT,
					       PIPE_MSG_SIZE, CH_STATE_SIZE,
					       CH_WPTR, HEAP_PRIVATE);
	}
	if (!ret)
		ret = asahi_ring_alloc(gpu, &gpu->devctrl, rp + RP_DEVCTRL,
				       CH_COUNT, DEVCTRL_MSG_SIZE,
				       CH_STATE_SIZE, CH_WPTR, HEAP_PRIVATE);
	if (!ret)
		ret = asahi_ring_alloc(gpu, &gpu->event, rp + RP_EVENT,
				       CH_COUNT, EVENT_SIZE, CH_STATE_SIZE,
				       CH_WPTR, HEAP_SHARED);
	/* Six firmware log rings: one state each, one ring of six parts */
	if (!ret)
		ret = asahi_ring_alloc(gpu, &gpu->fwlog[0], rp + RP_FWLOG,
				       FWLOG_LEVELS * CH_COUNT, FWLOG_ELEM_SIZE,
				       FWLOG_LEVELS * CH_STATE_SIZE, CH_WPTR,
				       HEAP_SHARED);
	if (!ret)
		ret = asahi_ring_alloc(gpu, &ktrace, rp + RP_KTRACE,
				       KTRACE_COUNT, KTRACE_ELEM_SIZE,
				       CH_STATE_SIZE, CH_WPTR, HEAP_SHARED);
	if (!ret)
		ret = asahi_ring_alloc(gpu, &stats, rp + RP_STATS, CH_COUNT,
				       gpu->abi->stats_elem, CH_STATE_SIZE,
				       CH_WPTR, HEAP_SHARED);
	if (!ret)
		ret = asahi_ring_alloc(gpu, &gpu->fwctl,
				       gpu->fw_status->cpu + FWS_FWCTL,
				       CH_COUNT, FWCTL_ELEM_SIZE,
				       FWCTL_STATE_SIZE, FWCTL_WPTR,
				       HEAP_SHARED);
	if (ret)
		return ret;
	for (i = 0; i < FWLOG_LEVELS; i++) {
		gpu->fwlog[i] = gpu->fwlog[0];
		gpu->fwlog[i].state += i * CH_STATE_SIZE;
		gpu->fwlog[i].count = CH_COUNT;
		gpu->fwlog[i].first = i * CH_COUNT;
	}
	return 0;
}

/* InitData and everything it points to, as drm/asahi builds them */
static int asahi_gpu_build(struct asahi_gpu *gpu)
{
	const struct asahi_abi *a = gpu->abi;
	struct asahi_obj *unk, *hwa, *hwb;
	unsigned int i;
	int ret;

	gpu->initdata = asahi_obj_alloc(gpu, HEAP_PRIVATE, a->id_size,
					UAT_PROT_FW_PRIV_RW);
	gpu->rp = asahi_obj_alloc(gpu, HEAP_PRIVATE, RP_SIZE,
				  UAT_PROT_FW_PRIV_RW);
	gpu->globals = asahi_obj_alloc(gpu, HEAP_PRIVATE, a->globals_size,
				       UAT_PROT_FW_PRIV_RW);
	gpu->fw_status = asahi_obj_alloc(gpu, HEAP_SHARED, FWS_SIZE,
					 UAT_PROT_FW_SHARED_RW);
	hwa = asahi_obj_alloc(gpu, HEAP_PRIVATE, a->hwa_size,
			      UAT_PROT_FW_PRIV_RW);
	hwb = asahi_obj_alloc(gpu, HEAP_PRIVATE, a->hwb_size,
			      UAT_PROT_FW_PRIV_RW);
	gpu->fwlog_buf = asahi_obj_alloc(gpu, HEAP_SHARED, FWLOG_LEVELS *
					 CH_COUNT * FWLOG_PAYLOAD_SIZE,
					 UAT_PROT_FW_SHARED_RW);
	unk = asahi_obj_alloc(gpu, HEAP_SHARED, UAT_PAGE_SIZE,
			      UAT_PROT_FW_SHARED_RO);
	gpu->stamps = asahi_obj_alloc(gpu, HEAP_SHARED, NUM_SLOTS * 4,
				      UAT_PROT_FW_SHARED_RW);
	gpu->fw_stamps = asahi_obj_alloc(gpu, HEAP_PRIVATE, NUM_SLOTS * 4,
					 UAT_PROT_FW_PRIV_RW);
	{
		struct asahi_obj *const objs[] = {
			gpu->initdata, gpu->rp, gpu->globals, gpu->fw_status,
			hwa, hwb, gpu->fwlog_buf, unk, gpu->stamps,
			gpu->fw_stamps,
		};

		for (i = 0; i < ARRAY_SIZE(objs); i++) {
			if (IS_ERR(objs[i]))
				return PTR_ERR(objs[i]);
		}
	}

	/* drm/asahi generations that load m1n1's blobs copy them verbatim */
	ret = asahi_gpu_copy_blob(gpu, "hw-cal-a", hwa, a->hwa_size,
				  a->hwa_min);
	if (!ret)
		ret = asahi_gpu_copy_blob(gpu, "hw-cal-b", hwb, a->hwb_size,
					  a->hwb_size);
	if (!ret)
		ret = asahi_gpu_copy_blob(gpu, "globals", gpu->globals,
					  a->globals_size, a->globals_size);
	if (!ret)
		ret = asahi_gpu_channels(gpu);
	if (ret)
		return ret;
	asahi_gpu_initdata(gpu, unk);
	wr64(gpu->rp->cpu, RP_HWDATA_A, hwa->va);
	wr64(gpu->rp->cpu, RP_HWDATA_B, hwb->va);
	wr64(gpu->rp->cpu, RP_HWDATA_B2, hwb->va);
	wr64(gpu->rp->cpu, RP_FWLOG_BUF, gpu->fwlog_buf->va);
	return 0;
}

/*
 * Waits up to a second until the firmware consumed everything on a TX
 * ring.  RX doorbells wake us up, but the read pointer may move after the
 * last of them: look again every 10 ms, as the driver polls.
 */
static int asahi_ring_wait_consumed(struct asahi_gpu *gpu, struct asahi_ring *r)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(1000);

	while (rd32_once(r->state, CH_RPTR) != r->ptr) {
		if (time_after(jiffies, timeout))
			return -ETIMEDOUT;
		wait_event_timeout(gpu->wait,
				   rd32_once(r->state, CH_RPTR) == r->ptr,
				   msecs_to_jiffies(10));
	}
	return 0;
}

int asahi_gpu_init(struct asahi_device *priv)
{
	struct device *dev = priv->dev;
	u8 msg[DEVCTRL_MSG_SIZE] = { 0 };
	struct resource *sgx;
	struct asahi_gpu *gpu;
	ktime_t t0 = ktime_get();
	int ret;

	if (priv->gpu)
		return -EBUSY;
	if (!apple_rtkit_is_running(priv->rtk)) {
		dev_err(dev, "gpu-init needs a booted RTKit\n");
		return -EINVAL;
	}
	sgx = platform_get_resource_byname(to_platform_device(dev),
					   IORESOURCE_MEM, "sgx");
	if (!sgx || resource_size(sgx) < SGX_MAP_SIZE) {
		dev_err(dev, "no usable \"sgx\" reg\n");
		return -EINVAL;
	}

	gpu = kzalloc_obj(*gpu);
	if (!gpu)
		return -ENOMEM;
	gpu->priv = priv;
	gpu->dev = dev;
	INIT_LIST_HEAD(&gpu->objs);
	spin_lock_init(&gpu->lock);
	mutex_init(&gpu->tx_lock);
	mutex_init(&gpu->send_lock);
	init_waitqueue_head(&gpu->wait);
	memcpy(gpu->heap_next, heap_base, sizeof(heap_base));
	ret = devm_add_action_or_reset(dev, asahi_gpu_fini, gpu);
	if (ret)
		return ret;

	ret = asahi_gpu_check_compat(gpu);
	gpu->sgx = ioremap(sgx->start, SGX_MAP_SIZE);
	if (!gpu->sgx)
		ret = -ENOMEM;
	if (!ret)
		ret = asahi_gpu_check_id(gpu);
	if (!ret)
		ret = asahi_gpu_build(gpu);
	if (!ret)
		ret = asahi_gpu_handoff(gpu);
	if (!ret) {
		/* Initialize waits in the device-control ring for INIT */
		wr32(msg, 0, gpu->abi->dc_initialize);
		ret = asahi_ring_tx(gpu, &gpu->devctrl, msg);
	}
	if (ret) {
		/* The firmware never saw any of it */
		devm_release_action(dev, asahi_gpu_fini, gpu);
		return ret;
	}

	/* From here on the firmware may use our memory: keep it */
	mutex_lock(&priv->gpu_lock);
	priv->gpu = gpu;
	gpu->published = true;
	mutex_unlock(&priv->gpu_lock);

	ret = apple_rtkit_start_ep(priv->rtk, EP_FIRMWARE);
	if (!ret)
		ret = apple_rtkit_start_ep(priv->rtk, EP_DOORBELL);
	if (!ret)
		ret = asahi_send(gpu, EP_FIRMWARE,
			       FIELD_PREP(MSG_TYPE, MSG_INIT) |
			       (gpu->initdata->va & MSG_INIT_VA));
	if (!ret)
		ret = asahi_doorbell(gpu, DOORBELL_DEVCTRL);
	if (ret)
		return ret;
	ret = asahi_ring_wait_consumed(gpu, &gpu->devctrl);
	if (ret) {
		dev_err(dev, "Initialize not consumed (read pointer %u, write pointer %u)\n",
			rd32_once(gpu->devctrl.state, CH_RPTR),
			gpu->devctrl.ptr);
		return ret;
	}
	ret = asahi_doorbell(gpu, DOORBELL_KICKFW);
	if (ret)
		return ret;
	dev_info(dev, "gpu-init: InitData at 0x%llx, Initialize consumed in %lld us\n",
		 gpu->initdata->va, ktime_us_delta(ktime_get(), t0));
	return 0;
}

