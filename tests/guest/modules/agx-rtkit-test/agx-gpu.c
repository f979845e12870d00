// SPDX-License-Identifier: GPL-2.0-only
/*
 * agx-rtkit-test, GPU part: QEMU's emulated AGX firmware (13.5 ABI), driven
 * from inside the guest the way drm/asahi drives the real one.
 *
 * gpu-init (after "boot"): drm/asahi's probe sequence.  Kernel objects are
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
 * Firmware to driver: the RX doorbell (0x42 on EP 0x20) comes through
 * RTKit's recv_message callback, which drains the event ring and the six
 * firmware log rings.  A Flag event records, for each event slot it names,
 * the stamp it made visible: waiters see a command complete only through
 * a Flag.  Log lines are printed as "rtkit-test: fw[<level>]: <text>".
 *
 * gpu-jobs <n>: work queues on the vertex, fragment and compute pipes.
 * Renders are a fragment command behind a Barrier on the vertex queue's
 * firmware stamp, kicked before their vertex command, as drm/asahi submits
 * them; compute commands alternate with renders.  Each command is a 4 KiB
 * block: its record with JobMeta, its microsequence (Start, Timestamp,
 * WaitForIdle, Timestamp, Finalize, RetireStamp) and its two timestamps.
 * Blocks are reused once their command is checked, so submission runs
 * ahead of completion by up to QUEUE_BLOCKS commands per queue.  Checked
 * for every command, in order: its stamp was reached (seen in a Flag), its
 * firmware stamp too, its timestamps are ordered and no earlier than the
 * end of the queue's previous command (and, for a fragment command, of its
 * vertex command), and its GPU work took the virtual time QEMU gives it.
 *
 * gpu-fault: the host arms an injected GPU fault for the next job; submit
 * vertex commands until one takes it, check what drm/asahi reads after a
 * fault (Fault event, FAULT_INFO, Globals.pending_stamps, FwStatus), recover
 * the way it does (halted = 0, resume = 1) and run one more command.
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

#include "agx-rtkit-test.h"

static unsigned int job_ns = 20000;
module_param(job_ns, uint, 0444);
MODULE_PARM_DESC(job_ns,
		 "GPU time of a job, ns (QEMU's apple-agx job-duration-ns)");

static unsigned int wait_ms = 5000;
module_param(wait_ms, uint, 0644);
MODULE_PARM_DESC(wait_ms, "Longest wait for one firmware event, ms");

/* Endpoints and their messages */
#define EP_FIRMWARE		0x20
#define EP_DOORBELL		0x21
#define MSG_TYPE		GENMASK_ULL(63, 48)
#define MSG_INIT_VA		GENMASK_ULL(43, 0)
#define MSG_RX_DOORBELL		0x42
#define MSG_INIT		0x81
#define MSG_TX_DOORBELL		0x83
#define DOORBELL_KICKFW		0x10
#define DOORBELL_DEVCTRL	0x11
#define PIPE_CHANNEL(type, prio) ((type) | (prio) << 2)
#define NUM_PIPE_CHANNELS	16

/* Handoff: the AP's magic, then the firmware's */
#define HANDOFF_MAGIC_AP	0x00
#define HANDOFF_MAGIC_FW	0x08
#define HANDOFF_MAGIC		0x4b1d000000000002ULL
#define HANDOFF_MAP_SIZE	0x10

/* SGX registers */
#define SGX_FAULT_INFO		0x17030
#define SGX_CORE_MASK_0		0xd01500
#define SGX_ID_VERSION		0xd04000
#define SGX_ID_COUNTS_1		0xd04010
#define SGX_ID_CLUSTERS		0xd0401c
#define SGX_MAP_SIZE		0xd05000
#define FAULT_INFO_VALID	BIT_ULL(0)
#define FAULT_INFO_REASON	GENMASK_ULL(3, 1)
#define FAULT_INFO_UNIT		GENMASK_ULL(16, 9)
#define FAULT_UNIT_VDM0		0x08	/* regs.rs FaultUnit: vertex data master */
#define FAULT_INFO_SLOT		GENMASK_ULL(22, 17)
#define FAULT_INFO_ADDR		GENMASK_ULL(63, 30)	/* VA bits 39:6 */

/* Kernel heaps: bump-allocated, a guard page after each object */
#define HEAP_PRIVATE		0
#define HEAP_SHARED		1
#define NUM_HEAPS		2
#define HEAP_LIMIT		SZ_1G
static const u64 heap_base[NUM_HEAPS] = {
	[HEAP_PRIVATE] = 0xffffffa000000000ULL,
	[HEAP_SHARED] = 0xffffffa800000000ULL,
};

/* InitData, 13.5 (12.3 has no ver_info and everything 8 bytes earlier) */
#define ID_SIZE			0xbc
#define ID_VER_INFO		0x00
#define ID_VER_INFO_13_5	0x00b006011f286ba0ULL
#define ID_UNK_BUF		0x08
#define ID_RUNTIME_POINTERS	0x18
#define ID_GLOBALS		0x20
#define ID_FW_STATUS		0x28
#define ID_UAT_PAGE		0x30	/* u16 size, u8 bits, u8 levels */
#define ID_UAT_LEVEL(l)		(0x34 + (l) * 0x20)
#define ID_HOST_MAPPED		0xa8

/* RuntimePointers: {state, ring} pairs, then the data structures */
#define RP_SIZE			0x6bc0
#define RP_PIPE(type, prio)	((prio) * 0x30 + (type) * 0x10)
#define RP_DEVCTRL		0xc0
#define RP_EVENT		0xd0
#define RP_FWLOG		0xe0
#define RP_KTRACE		0xf0
#define RP_STATS		0x100
#define RP_HWDATA_A		0x188
#define RP_HWDATA_B		0x1a0
#define RP_HWDATA_B2		0x1a8
#define RP_FWLOG_BUF		0x1b0

/* Globals and HwDataA/B are the device tree's blobs */
#define GLOBALS_SIZE		0x12394
#define GL_PENDING_STAMPS	0x111a8	/* {u32 info, u32 value} */
#define NUM_PENDING_STAMPS	256
#define PENDING_VALID		BIT(0)
#define PENDING_SLOT		GENMASK(10, 4)
#define HWDATA_A_SIZE		0x421c
#define HWDATA_B_SIZE		0x1884

/* FwStatus: the FwCtl channel, then the halt handshake */
#define FWS_SIZE		0x80
#define FWS_FWCTL		0x00
#define FWS_HALT_COUNT		0x10
#define FWS_HALTED		0x20
#define FWS_RESUME		0x30

/* Channels: read pointer at 0, write pointer at 0x20 (FwCtl: 0x10) */
#define CH_RPTR			0x00
#define CH_WPTR			0x20
#define CH_STATE_SIZE		0x30
#define CH_COUNT		0x100
#define FWCTL_WPTR		0x10
#define FWCTL_STATE_SIZE	0x20
#define FWCTL_ELEM_SIZE		0x14
#define PIPE_MSG_SIZE		0x30
#define DEVCTRL_MSG_SIZE	0x30
#define DEVCTRL_INITIALIZE	0x1a
#define EVENT_SIZE		0x38
#define FWLOG_LEVELS		6
#define FWLOG_ELEM_SIZE		0x38
#define FWLOG_ELEM_TYPE		2
#define FWLOG_ELEM_INDEX	0x08
#define FWLOG_PAYLOAD_SIZE	0xd8
#define FWLOG_PAYLOAD_TYPE	3
#define FWLOG_TEXT		0x10
#define KTRACE_COUNT		0x200
#define KTRACE_ELEM_SIZE	0x38
#define STATS_ELEM_SIZE		0x40

/* Events */
#define EV_FAULT		0
#define EV_FLAG			1
#define EV_TIMEOUT		4
#define EV_CHANNEL_ERROR	8
#define EV_FLAG_FIRING		0x04	/* u32[4]: bit n = event slot n */
#define NUM_SLOTS		128

/* Work queues: QueueInfo, RingState, GpuContextData */
#define QI_SIZE			0xb8
#define QI_STATE		0x00
#define QI_RING			0x08
#define QI_EVENT_ID		0x2c
#define QI_UUID			0x50
#define QI_GPU_CONTEXT		0xa4
#define RS_SIZE			0x70
#define RS_GPU_DONEPTR		0x00
#define RS_CPU_WPTR		0x40
#define RS_RB_SIZE		0x50
#define WQ_SIZE			0x500
#define CTX_SIZE		0x40

/* RunWorkQueue */
#define RWQ_PIPE_TYPE		0x00
#define RWQ_QUEUE		0x04
#define RWQ_WPTR		0x0c
#define RWQ_SLOT		0x10
#define RWQ_IS_NEW		0x14

/* Barrier: wait for another queue's firmware stamp */
#define CMD_BARRIER		4
#define BAR_WAIT_STAMP		0x04
#define BAR_WAIT_VALUE		0x0c
#define BAR_WAIT_SLOT		0x10
#define BAR_STAMP_SELF		0x14
#define BAR_UNK		0x18
#define BAR_SIZE		0x40

/* JobMeta, in each Run* record */
#define META_STAMP		0x04
#define META_FW_STAMP		0x0c
#define META_VALUE		0x14
#define META_SLOT		0x18
#define META_FLUSH_STAMPS	0x20

/* Microsequence ops common to all pipes */
#define OP_TIMESTAMP		0x19
#define OP_TIMESTAMP_START	BIT(31)
#define TS_SIZE			0x3c
#define TS_CUR			0x04
#define TS_PAIR			0x0c
#define TS_UPDATE		0x14
#define TS_UUID			0x34
#define OP_RETIRE_STAMP		0x40000018

/*
 * A command block: record, microsequence, the time stamp results.  The
 * record holds the Timestamp ops' time slot and {start, end} result
 * pointers where drm/asahi puts them (packed U64s: 4 mod 8 for vertex).
 */
#define CMD_BLOCK_SIZE		0x1000
#define B_USEQ			0xa00
#define B_TS_START		0xf00
#define B_TS_END		0xf08
#define QUEUE_BLOCKS		128

/* Stamps go up by 0x100 and start so that they wrap during gpu-jobs */
#define STAMP_STEP		0x100
#define STAMP_BASE		((u32)(-100 * STAMP_STEP))

enum { PIPE_VERTEX, PIPE_FRAGMENT, PIPE_COMPUTE, NUM_PIPES };

/* Run* records and their ops, by pipe: 13.5, G13 */
struct agx_pipe_layout {
	const char *name;
	u32 prio;		/* of our queue on this pipe */
	u32 slot;		/* its event slot */
	u32 tag;
	u32 size;		/* of the record, before B_USEQ */
	u32 useq_ptr;
	u32 useq_size;
	u32 meta;
	u32 cur_ts;		/* command_time, then timestamp_pointers */
	u32 start_op;
	u32 start_size;
	u32 wait_op;		/* WaitForIdle with this pipe's bit */
	u32 fin_op;
	u32 fin_size;
	u32 fin_fw_stamp;
	u32 fin_value;
};

static const struct agx_pipe_layout pipe_layouts[NUM_PIPES] = {
	[PIPE_VERTEX] = {
		.name = "vertex", .prio = 1, .slot = 3, .tag = 0,
		.size = 0x608, .useq_ptr = 0x474, .useq_size = 0x47c,
		.meta = 0x56c, .cur_ts = 0x5b4, .start_op = 0x22, .start_size = 0x18c,
		.wait_op = 0x00000101, .fin_op = 0x23, .fin_size = 0x84,
		.fin_fw_stamp = 0x3c, .fin_value = 0x44,
	},
	[PIPE_FRAGMENT] = {
		.name = "fragment", .prio = 1, .slot = 4, .tag = 1,
		.size = 0x96c, .useq_ptr = 0x14, .useq_size = 0x1c,
		.meta = 0x8d0, .cur_ts = 0x918, .start_op = 0x24, .start_size = 0x1ac,
		.wait_op = 0x00010001, .fin_op = 0x25, .fin_size = 0xb4,
		.fin_fw_stamp = 0x0c, .fin_value = 0x14,
	},
	[PIPE_COMPUTE] = {
		.name = "compute", .prio = 2, .slot = 5, .tag = 3,
		.size = 0x31c, .useq_ptr = 0x1f0, .useq_size = 0x1f8,
		.meta = 0x284, .cur_ts = 0x2b0, .start_op = 0x29, .start_size = 0x16c,
		.wait_op = 0x00800001, .fin_op = 0x2a, .fin_size = 0x7c,
		.fin_fw_stamp = 0x28, .fin_value = 0x30,
	},
};

static const char *const fwlog_levels[FWLOG_LEVELS] = {
	"debug", "info", "notice", "warn", "err", "crit",
};

/* A kernel object: contiguous pages, mapped at va in a heap */
struct agx_obj {
	struct list_head node;
	struct page *pages;
	unsigned int order;
	unsigned int npages;
	u64 va;
	void *cpu;
};

/* One ring of a channel; ptr is our write (TX) or read (RX) index */
struct agx_ring {
	void *state;
	void *ring;
	u32 count;
	u32 elem_size;
	u32 wptr_off;
	u32 first;		/* first element: firmware log sub-rings */
	u32 ptr;
};

/* A submitted Run* command, until it is checked */
struct agx_job {
	u32 value;		/* the stamp value it retires with */
	u32 block;
	u32 after;		/* fragment: value of its vertex command */
	bool has_after;
	bool failed;		/* taken down by a fault: never retires */
	u64 submitted_at;	/* CNTVCT before it was written */
};

/* A vertex command's end, for the fragment command behind it */
struct agx_vertex_end {
	u32 value;
	u64 end;
};

struct agx_queue {
	const struct agx_pipe_layout *pl;
	unsigned int type;
	struct agx_obj *info;
	struct agx_obj *state;
	struct agx_obj *ring;
	struct agx_obj *ctx;
	struct agx_obj *blocks;
	u32 wptr;
	u32 value;		/* stamp value of the newest command */
	bool kicked;
	/* Blocks: in use until the command with stamp block_free is checked */
	u32 next_block;
	bool block_used[QUEUE_BLOCKS];
	u32 block_free[QUEUE_BLOCKS];
	/* Submitted commands not yet checked, oldest first */
	struct agx_job jobs[QUEUE_BLOCKS];
	u32 job_head;
	u32 job_count;
	u32 checked_value;	/* stamp value of the newest checked command */
	u64 last_end;		/* end timestamp of the newest checked one */
	struct agx_vertex_end ends[QUEUE_BLOCKS];
	unsigned int submitted;
	unsigned int checked;
};

struct agx_gpu {
	struct agx_rtkit_test *priv;
	struct device *dev;
	void __iomem *sgx;
	bool published;		/* the firmware may know our memory */
	struct list_head objs;
	u64 heap_next[NUM_HEAPS];

	struct agx_obj *initdata;
	struct agx_obj *rp;
	struct agx_obj *globals;
	struct agx_obj *fw_status;
	struct agx_obj *stamps;		/* shared: what the driver reads */
	struct agx_obj *fw_stamps;	/* private: Finalize and Barrier */
	struct agx_ring pipes[NUM_PIPE_CHANNELS];
	struct agx_ring devctrl;
	struct agx_ring event;
	struct agx_ring fwlog[FWLOG_LEVELS];
	struct agx_obj *fwlog_buf;

	bool queues_ready;
	struct agx_queue queues[NUM_PIPES];
	/* Fault events accounted for: any other one interrupts waits */
	unsigned int faults_seen;
	/* Over all checked commands, for the report */
	u64 first_start;
	u64 last_end;

	/* Written by the RX doorbell handler; under lock */
	spinlock_t lock;
	wait_queue_head_t wait;
	DECLARE_BITMAP(our_slots, NUM_SLOTS);
	u32 flag_stamp[NUM_SLOTS];	/* stamp seen at the newest Flag */
	unsigned int flags[NUM_SLOTS];
	unsigned int rx_doorbells;
	unsigned int flag_events;
	unsigned int fault_events;
	unsigned int other_events;
	unsigned int fwlog_lines;
	unsigned int errors;
	unsigned int jobs_checked;
	bool dead;
	u8 last_event[EVENT_SIZE];	/* the newest that was not a Flag */
};

static void wr32(void *base, u32 off, u32 val)
{
	put_unaligned_le32(val, base + off);
}

static void wr64(void *base, u32 off, u64 val)
{
	put_unaligned_le64(val, base + off);
}

/* Words the firmware writes or reads concurrently: aligned, single access */
static u32 rd32_once(const void *base, u32 off)
{
	return le32_to_cpu(READ_ONCE(*(const __le32 *)(base + off)));
}

static void wr32_once(void *base, u32 off, u32 val)
{
	WRITE_ONCE(*(__le32 *)(base + off), cpu_to_le32(val));
}

static u64 rd64_once(const void *base, u32 off)
{
	return le64_to_cpu(READ_ONCE(*(const __le64 *)(base + off)));
}

static void wr64_once(void *base, u32 off, u64 val)
{
	WRITE_ONCE(*(__le64 *)(base + off), cpu_to_le64(val));
}

/* Wrap-aware a >= b, as the driver compares stamps */
static bool stamp_ge(u32 a, u32 b)
{
	return (s32)(a - b) >= 0;
}

static void agx_gpu_error(struct agx_gpu *gpu)
{
	spin_lock(&gpu->lock);
	gpu->errors++;
	spin_unlock(&gpu->lock);
}

/* Allocates size bytes in heap, zeroed and mapped with prot */
static struct agx_obj *agx_obj_alloc(struct agx_gpu *gpu, int heap,
				     size_t size, u64 prot)
{
	unsigned int npages = DIV_ROUND_UP(size, UAT_PAGE_SIZE);
	struct agx_obj *obj;
	int ret;

	if (gpu->heap_next[heap] + (npages + 1ULL) * UAT_PAGE_SIZE >
	    heap_base[heap] + HEAP_LIMIT)
		return ERR_PTR(-ENOSPC);
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
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
	ret = agx_rtkit_test_uat_map(gpu->priv, obj->va,
				     page_to_phys(obj->pages), npages, prot);
	if (ret) {
		agx_rtkit_test_uat_unmap(gpu->priv, obj->va, npages);
		__free_pages(obj->pages, obj->order);
		kfree(obj);
		return ERR_PTR(ret);
	}
	gpu->heap_next[heap] += (npages + 1ULL) * UAT_PAGE_SIZE;
	list_add_tail(&obj->node, &gpu->objs);
	return obj;
}

/* Registered with devm once gpu-init starts; frees everything */
static void agx_gpu_fini(void *data)
{
	struct agx_gpu *gpu = data;
	struct agx_rtkit_test *priv = gpu->priv;
	struct agx_obj *obj, *tmp;

	/* The firmware must not touch this memory any more */
	if (gpu->published)
		agx_rtkit_test_set_run(priv, false);
	mutex_lock(&priv->gpu_lock);
	if (priv->gpu == gpu)
		priv->gpu = NULL;
	mutex_unlock(&priv->gpu_lock);

	list_for_each_entry_safe(obj, tmp, &gpu->objs, node) {
		agx_rtkit_test_uat_unmap(priv, obj->va, obj->npages);
		__free_pages(obj->pages, obj->order);
		list_del(&obj->node);
		kfree(obj);
	}
	if (gpu->sgx)
		iounmap(gpu->sgx);
	kfree(gpu);
}

/*
 * Rings.  TX: we write elements and the write pointer, the firmware the
 * read pointer; RX the other way round.
 */
static int agx_ring_alloc(struct agx_gpu *gpu, struct agx_ring *r,
			  void *desc, u32 count, u32 elem_size, u32 state_size,
			  u32 wptr_off, int ring_heap)
{
	struct agx_obj *state, *ring;

	state = agx_obj_alloc(gpu, HEAP_SHARED, state_size,
			      UAT_PROT_FW_SHARED_RW);
	if (IS_ERR(state))
		return PTR_ERR(state);
	ring = agx_obj_alloc(gpu, ring_heap, (size_t)count * elem_size,
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

static void *agx_ring_elem(struct agx_ring *r, u32 index)
{
	return r->ring + (size_t)(r->first + index) * r->elem_size;
}

/* Appends one element; waits (bounded) while the ring is full */
static int agx_ring_tx(struct agx_gpu *gpu, struct agx_ring *r,
		       const void *elem)
{
	u32 next = (r->ptr + 1) % r->count;
	unsigned long timeout = jiffies + msecs_to_jiffies(wait_ms);

	while (rd32_once(r->state, CH_RPTR) == next) {
		if (time_after(jiffies, timeout)) {
			dev_err(gpu->dev, "rtkit-test: TX ring stays full\n");
			return -ETIMEDOUT;
		}
		usleep_range(100, 200);
	}
	memcpy(agx_ring_elem(r, r->ptr), elem, r->elem_size);
	/* The element is in memory before the pointer that publishes it */
	wmb();
	r->ptr = next;
	wr32_once(r->state, r->wptr_off, next);
	return 0;
}

/* Takes the next element the firmware produced; false if none */
static bool agx_ring_rx(struct agx_gpu *gpu, struct agx_ring *r, void *elem)
{
	u32 wptr = rd32_once(r->state, r->wptr_off);

	if (wptr >= r->count) {
		dev_err(gpu->dev, "rtkit-test: RX write pointer %u of %u\n",
			wptr, r->count);
		agx_gpu_error(gpu);
		return false;
	}
	if (wptr == r->ptr)
		return false;
	/* The pointer is read before the element it publishes */
	rmb();
	memcpy(elem, agx_ring_elem(r, r->ptr), r->elem_size);
	r->ptr = (r->ptr + 1) % r->count;
	/* Copied before the firmware may overwrite it */
	mb();
	wr32_once(r->state, CH_RPTR, r->ptr);
	return true;
}

static int agx_send(struct agx_gpu *gpu, u8 ep, u64 msg)
{
	/* Everything the message announces is in memory (mailbox: relaxed) */
	wmb();
	return apple_rtkit_send_message(gpu->priv->rtk, ep, msg, NULL, false);
}

static int agx_doorbell(struct agx_gpu *gpu, u16 channel)
{
	return agx_send(gpu, EP_DOORBELL,
			FIELD_PREP(MSG_TYPE, MSG_TX_DOORBELL) | channel);
}

static u32 agx_stamp(struct agx_gpu *gpu, unsigned int slot)
{
	return rd32_once(gpu->stamps->cpu, 4 * slot);
}

static u32 agx_fw_stamp(struct agx_gpu *gpu, unsigned int slot)
{
	return rd32_once(gpu->fw_stamps->cpu, 4 * slot);
}

/* RX doorbell: the event ring */
static void agx_gpu_event(struct agx_gpu *gpu, const u8 *ev)
{
	u32 tag = get_unaligned_le32(ev);
	unsigned int slot;

	spin_lock(&gpu->lock);
	if (tag != EV_FLAG) {
		memcpy(gpu->last_event, ev, EVENT_SIZE);
		if (tag == EV_FAULT) {
			gpu->fault_events++;
		} else {
			gpu->other_events++;
			gpu->errors++;
		}
		spin_unlock(&gpu->lock);
		dev_info(gpu->dev,
			 "rtkit-test: event %u: %*ph\n", tag, 0x14, ev);
		return;
	}
	gpu->flag_events++;
	for (slot = 0; slot < NUM_SLOTS; slot++) {
		u32 stamp;

		if (!(get_unaligned_le32(ev + EV_FLAG_FIRING + 4 * (slot / 32)) &
		      BIT(slot % 32)))
			continue;
		stamp = agx_stamp(gpu, slot);
		if (!test_bit(slot, gpu->our_slots)) {
			dev_err(gpu->dev, "rtkit-test: Flag for slot %u\n",
				slot);
			gpu->errors++;
		} else if (!stamp_ge(stamp, gpu->flag_stamp[slot])) {
			dev_err(gpu->dev,
				"rtkit-test: slot %u stamp 0x%x after 0x%x\n",
				slot, stamp, gpu->flag_stamp[slot]);
			gpu->errors++;
		} else {
			gpu->flag_stamp[slot] = stamp;
		}
		gpu->flags[slot]++;
	}
	spin_unlock(&gpu->lock);
}

/* RX doorbell: a firmware log line */
static void agx_gpu_fwlog(struct agx_gpu *gpu, unsigned int level,
			  const u8 *elem)
{
	u64 index = get_unaligned_le64(elem + FWLOG_ELEM_INDEX);
	char text[FWLOG_PAYLOAD_SIZE - FWLOG_TEXT + 1];
	const u8 *payload;

	if (get_unaligned_le32(elem) != FWLOG_ELEM_TYPE || index >= CH_COUNT) {
		dev_err(gpu->dev, "rtkit-test: bad firmware log entry %*ph\n",
			0x10, elem);
		agx_gpu_error(gpu);
		return;
	}
	payload = gpu->fwlog_buf->cpu +
		  (level * CH_COUNT + index) * FWLOG_PAYLOAD_SIZE;
	if (get_unaligned_le32(payload) != FWLOG_PAYLOAD_TYPE) {
		dev_err(gpu->dev, "rtkit-test: bad firmware log payload\n");
		agx_gpu_error(gpu);
		return;
	}
	memcpy(text, payload + FWLOG_TEXT, sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	spin_lock(&gpu->lock);
	gpu->fwlog_lines++;
	spin_unlock(&gpu->lock);
	dev_info(gpu->dev, "rtkit-test: fw[%s]: %s\n", fwlog_levels[level],
		 text);
}

static void agx_gpu_rx(struct agx_gpu *gpu)
{
	u8 elem[EVENT_SIZE];
	unsigned int i;

	spin_lock(&gpu->lock);
	gpu->rx_doorbells++;
	spin_unlock(&gpu->lock);
	while (agx_ring_rx(gpu, &gpu->event, elem))
		agx_gpu_event(gpu, elem);
	for (i = 0; i < FWLOG_LEVELS; i++) {
		while (agx_ring_rx(gpu, &gpu->fwlog[i], elem))
			agx_gpu_fwlog(gpu, i, elem);
	}
	wake_up_all(&gpu->wait);
}

/* RTKit recv_message, process context: is this for the GPU part? */
bool agx_gpu_recv(struct agx_rtkit_test *priv, u8 ep, u64 msg)
{
	struct agx_gpu *gpu;

	if (ep != EP_FIRMWARE && ep != EP_DOORBELL)
		return false;
	mutex_lock(&priv->gpu_lock);
	gpu = priv->gpu;
	if (gpu && ep == EP_FIRMWARE &&
	    FIELD_GET(MSG_TYPE, msg) == MSG_RX_DOORBELL) {
		agx_gpu_rx(gpu);
	} else {
		dev_err(priv->dev,
			"rtkit-test: unexpected message 0x%016llx on ep 0x%02x\n",
			msg, ep);
		if (gpu)
			agx_gpu_error(gpu);
	}
	mutex_unlock(&priv->gpu_lock);
	return true;
}

/* RTKit crashed callback: nothing the firmware promised will come */
void agx_gpu_crashed(struct agx_rtkit_test *priv)
{
	mutex_lock(&priv->gpu_lock);
	if (priv->gpu) {
		spin_lock(&priv->gpu->lock);
		priv->gpu->dead = true;
		spin_unlock(&priv->gpu->lock);
		wake_up_all(&priv->gpu->wait);
	}
	mutex_unlock(&priv->gpu_lock);
}

ssize_t agx_gpu_state_show(struct agx_rtkit_test *priv, char *buf)
{
	struct agx_gpu *gpu;
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
			 gpu->jobs_checked, gpu->flag_events, gpu->rx_doorbells,
			 gpu->fault_events, gpu->other_events, gpu->fwlog_lines,
			 gpu->errors, gpu->dead);
	spin_unlock(&gpu->lock);
	mutex_unlock(&priv->gpu_lock);
	return len;
}

/*
 * What gpu-init needs from the device tree: firmware ABI 13.5.  The
 * bootloader writes apple,firmware-abi into every gpu node (upstream's
 * and downstream's); apple,firmware-compat only into downstream ones.
 */
static int agx_gpu_check_compat(struct device *dev)
{
	u32 compat[3];
	int ret;

	ret = of_property_read_u32_array(dev->of_node, "apple,firmware-abi",
					 compat, ARRAY_SIZE(compat));
	if (ret) {
		dev_err(dev, "rtkit-test: no apple,firmware-abi\n");
		return ret;
	}
	if (compat[0] != 13 || compat[1] != 5) {
		dev_err(dev, "rtkit-test: firmware %u.%u.%u: only 13.5 is supported\n",
			compat[0], compat[1], compat[2]);
		return -ENODEV;
	}
	return 0;
}

/* The SGX ID registers say G13G, one cluster of 8 cores (t8103) */
static int agx_gpu_check_id(struct agx_gpu *gpu)
{
	u32 id = readl(gpu->sgx + SGX_ID_VERSION);
	u32 counts = readl(gpu->sgx + SGX_ID_COUNTS_1);
	u32 clusters = readl(gpu->sgx + SGX_ID_CLUSTERS);
	u32 mask = readl(gpu->sgx + SGX_CORE_MASK_0);

	dev_info(gpu->dev,
		 "rtkit-test: GPU id 0x%08x, %u cores per cluster, %u clusters, core mask 0x%x\n",
		 id, counts & 0xff, (clusters >> 12) & 0xff, mask);
	if (id >> 24 != 4 || ((id >> 16) & 0xff) != 2 ||
	    (counts & 0xff) != 8 || ((clusters >> 12) & 0xff) != 1 ||
	    !mask || mask & ~0xffu) {
		dev_err(gpu->dev, "rtkit-test: not a t8103 G13G\n");
		return -ENODEV;
	}
	return 0;
}

/* Copies the device tree's blob called name into obj */
static int agx_gpu_copy_blob(struct agx_gpu *gpu, const char *name,
			     struct agx_obj *obj, size_t size)
{
	struct resource res;
	void *blob;
	int ret;

	ret = agx_rtkit_test_region(gpu->dev, name, &res);
	if (ret)
		return ret;
	if (resource_size(&res) < size) {
		dev_err(gpu->dev, "rtkit-test: %s region %pR is too small\n",
			name, &res);
		return -EINVAL;
	}
	blob = memremap(res.start, size, MEMREMAP_WB);
	if (!blob)
		return -ENOMEM;
	memcpy(obj->cpu, blob, size);
	memunmap(blob);
	return 0;
}

/* Handoff::init, as far as it goes after RUN: AP magic, firmware magic */
static int agx_gpu_handoff(struct agx_gpu *gpu)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(1000);
	struct resource res;
	void *handoff;
	u64 magic;
	int ret;

	ret = agx_rtkit_test_region(gpu->dev, "handoff", &res);
	if (ret)
		return ret;
	if (resource_size(&res) < HANDOFF_MAP_SIZE)
		return -EINVAL;
	/* Mapped RAM, not no-map: write-back, as newer drivers map it */
	handoff = memremap(res.start, HANDOFF_MAP_SIZE, MEMREMAP_WB);
	if (!handoff)
		return -ENOMEM;
	wr64_once(handoff, HANDOFF_MAGIC_AP, HANDOFF_MAGIC);
	/* The firmware wrote its magic at RUN; the driver waits up to 1 s */
	while ((magic = rd64_once(handoff, HANDOFF_MAGIC_FW)) !=
	       HANDOFF_MAGIC && time_before(jiffies, timeout))
		usleep_range(10000, 20000);
	memunmap(handoff);
	if (magic != HANDOFF_MAGIC) {
		dev_err(gpu->dev, "rtkit-test: handoff magic 0x%016llx\n",
			magic);
		return -ETIMEDOUT;
	}
	return 0;
}

/* InitData and everything it points to, as drm/asahi builds them */
static int agx_gpu_build(struct agx_gpu *gpu)
{
	static const u8 level_shift[3] = { 36, 25, 14 };
	static const u16 level_entries[3] = { 8, 2048, 2048 };
	struct agx_obj *unk, *hwa, *hwb;
	void *id, *rp;
	unsigned int type, prio, l, i;
	int ret;

	gpu->initdata = agx_obj_alloc(gpu, HEAP_PRIVATE, ID_SIZE,
				      UAT_PROT_FW_PRIV_RW);
	gpu->rp = agx_obj_alloc(gpu, HEAP_PRIVATE, RP_SIZE,
				UAT_PROT_FW_PRIV_RW);
	gpu->globals = agx_obj_alloc(gpu, HEAP_PRIVATE, GLOBALS_SIZE,
				     UAT_PROT_FW_PRIV_RW);
	gpu->fw_status = agx_obj_alloc(gpu, HEAP_SHARED, FWS_SIZE,
				       UAT_PROT_FW_SHARED_RW);
	hwa = agx_obj_alloc(gpu, HEAP_PRIVATE, HWDATA_A_SIZE,
			    UAT_PROT_FW_PRIV_RW);
	hwb = agx_obj_alloc(gpu, HEAP_PRIVATE, HWDATA_B_SIZE,
			    UAT_PROT_FW_PRIV_RW);
	gpu->fwlog_buf = agx_obj_alloc(gpu, HEAP_SHARED, FWLOG_LEVELS *
				       CH_COUNT * FWLOG_PAYLOAD_SIZE,
				       UAT_PROT_FW_SHARED_RW);
	unk = agx_obj_alloc(gpu, HEAP_SHARED, UAT_PAGE_SIZE,
			    UAT_PROT_FW_SHARED_RO);
	gpu->stamps = agx_obj_alloc(gpu, HEAP_SHARED, NUM_SLOTS * 4,
				    UAT_PROT_FW_SHARED_RW);
	gpu->fw_stamps = agx_obj_alloc(gpu, HEAP_PRIVATE, NUM_SLOTS * 4,
				       UAT_PROT_FW_PRIV_RW);
	if (IS_ERR(gpu->initdata))
		return PTR_ERR(gpu->initdata);
	if (IS_ERR(gpu->rp))
		return PTR_ERR(gpu->rp);
	if (IS_ERR(gpu->globals))
		return PTR_ERR(gpu->globals);
	if (IS_ERR(gpu->fw_status))
		return PTR_ERR(gpu->fw_status);
	if (IS_ERR(hwa))
		return PTR_ERR(hwa);
	if (IS_ERR(hwb))
		return PTR_ERR(hwb);
	if (IS_ERR(gpu->fwlog_buf))
		return PTR_ERR(gpu->fwlog_buf);
	if (IS_ERR(unk))
		return PTR_ERR(unk);
	if (IS_ERR(gpu->stamps))
		return PTR_ERR(gpu->stamps);
	if (IS_ERR(gpu->fw_stamps))
		return PTR_ERR(gpu->fw_stamps);

	/* drm/asahi generations that load m1n1's blobs copy them verbatim */
	ret = agx_gpu_copy_blob(gpu, "hw-cal-a", hwa, HWDATA_A_SIZE);
	if (!ret)
		ret = agx_gpu_copy_blob(gpu, "hw-cal-b", hwb, HWDATA_B_SIZE);
	if (!ret)
		ret = agx_gpu_copy_blob(gpu, "globals", gpu->globals,
					GLOBALS_SIZE);
	if (ret)
		return ret;

	id = gpu->initdata->cpu;
	wr64(id, ID_VER_INFO, ID_VER_INFO_13_5);
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

	/* Channels: TX rings private; RX rings and all states shared */
	rp = gpu->rp->cpu;
	for (prio = 0; prio < 4; prio++) {
		for (type = 0; type < NUM_PIPES; type++) {
			ret = agx_ring_alloc(gpu, &gpu->pipes[PIPE_CHANNEL(type, prio)],
					     rp + RP_PIPE(type, prio), CH_COUNT,
					     PIPE_MSG_SIZE, CH_STATE_SIZE,
					     CH_WPTR, HEAP_PRIVATE);
			if (ret)
				return ret;
		}
	}
	ret = agx_ring_alloc(gpu, &gpu->devctrl, rp + RP_DEVCTRL, CH_COUNT,
			     DEVCTRL_MSG_SIZE, CH_STATE_SIZE, CH_WPTR,
			     HEAP_PRIVATE);
	if (!ret)
		ret = agx_ring_alloc(gpu, &gpu->event, rp + RP_EVENT, CH_COUNT,
				     EVENT_SIZE, CH_STATE_SIZE, CH_WPTR,
				     HEAP_SHARED);
	/* Six firmware log rings: one state each, one ring of six parts */
	if (!ret)
		ret = agx_ring_alloc(gpu, &gpu->fwlog[0], rp + RP_FWLOG,
				     FWLOG_LEVELS * CH_COUNT, FWLOG_ELEM_SIZE,
				     FWLOG_LEVELS * CH_STATE_SIZE, CH_WPTR,
				     HEAP_SHARED);
	if (!ret) {
		struct agx_ring ktrace, stats, fwctl;

		ret = agx_ring_alloc(gpu, &ktrace, rp + RP_KTRACE,
				     KTRACE_COUNT, KTRACE_ELEM_SIZE,
				     CH_STATE_SIZE, CH_WPTR, HEAP_SHARED);
		if (!ret)
			ret = agx_ring_alloc(gpu, &stats, rp + RP_STATS,
					     CH_COUNT, STATS_ELEM_SIZE,
					     CH_STATE_SIZE, CH_WPTR,
					     HEAP_SHARED);
		if (!ret)
			ret = agx_ring_alloc(gpu, &fwctl,
					     gpu->fw_status->cpu + FWS_FWCTL,
					     CH_COUNT, FWCTL_ELEM_SIZE,
					     FWCTL_STATE_SIZE, FWCTL_WPTR,
					     HEAP_SHARED);
	}
	if (ret)
		return ret;
	for (i = 0; i < FWLOG_LEVELS; i++) {
		gpu->fwlog[i] = gpu->fwlog[0];
		gpu->fwlog[i].state += i * CH_STATE_SIZE;
		gpu->fwlog[i].count = CH_COUNT;
		gpu->fwlog[i].first = i * CH_COUNT;
	}
	wr64(rp, RP_HWDATA_A, hwa->va);
	wr64(rp, RP_HWDATA_B, hwb->va);
	wr64(rp, RP_HWDATA_B2, hwb->va);
	wr64(rp, RP_FWLOG_BUF, gpu->fwlog_buf->va);
	return 0;
}

/*
 * Waits up to a second until the firmware consumed everything on a TX
 * ring.  RX doorbells wake us up, but the read pointer may move after the
 * last of them: look again every 10 ms, as the driver polls.
 */
static int agx_ring_wait_consumed(struct agx_gpu *gpu, struct agx_ring *r)
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

static int agx_gpu_init(struct agx_rtkit_test *priv)
{
	struct device *dev = priv->dev;
	u8 msg[DEVCTRL_MSG_SIZE] = { 0 };
	struct resource *sgx;
	struct agx_gpu *gpu;
	ktime_t t0 = ktime_get();
	int ret;

	if (priv->gpu)
		return -EBUSY;
	if (!apple_rtkit_is_running(priv->rtk)) {
		dev_err(dev, "rtkit-test: gpu-init needs a booted RTKit\n");
		return -EINVAL;
	}
	ret = agx_gpu_check_compat(dev);
	if (ret)
		return ret;
	sgx = platform_get_resource_byname(to_platform_device(dev),
					   IORESOURCE_MEM, "sgx");
	if (!sgx || resource_size(sgx) < SGX_MAP_SIZE) {
		dev_err(dev, "rtkit-test: no usable \"sgx\" reg\n");
		return -EINVAL;
	}

	gpu = kzalloc(sizeof(*gpu), GFP_KERNEL);
	if (!gpu)
		return -ENOMEM;
	gpu->priv = priv;
	gpu->dev = dev;
	INIT_LIST_HEAD(&gpu->objs);
	spin_lock_init(&gpu->lock);
	init_waitqueue_head(&gpu->wait);
	memcpy(gpu->heap_next, heap_base, sizeof(heap_base));
	ret = devm_add_action_or_reset(dev, agx_gpu_fini, gpu);
	if (ret)
		return ret;

	gpu->sgx = ioremap(sgx->start, SGX_MAP_SIZE);
	if (!gpu->sgx)
		ret = -ENOMEM;
	if (!ret)
		ret = agx_gpu_check_id(gpu);
	if (!ret)
		ret = agx_gpu_build(gpu);
	if (!ret)
		ret = agx_gpu_handoff(gpu);
	if (!ret) {
		/* Initialize waits in the device-control ring for INIT */
		wr32(msg, 0, DEVCTRL_INITIALIZE);
		ret = agx_ring_tx(gpu, &gpu->devctrl, msg);
	}
	if (ret) {
		/* The firmware never saw any of it */
		devm_release_action(dev, agx_gpu_fini, gpu);
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
		ret = agx_send(gpu, EP_FIRMWARE,
			       FIELD_PREP(MSG_TYPE, MSG_INIT) |
			       (gpu->initdata->va & MSG_INIT_VA));
	if (!ret)
		ret = agx_doorbell(gpu, DOORBELL_DEVCTRL);
	if (ret)
		return ret;
	ret = agx_ring_wait_consumed(gpu, &gpu->devctrl);
	if (ret) {
		dev_err(dev, "rtkit-test: Initialize not consumed (read pointer %u, write pointer %u)\n",
			rd32_once(gpu->devctrl.state, CH_RPTR),
			gpu->devctrl.ptr);
		return ret;
	}
	ret = agx_doorbell(gpu, DOORBELL_KICKFW);
	if (ret)
		return ret;
	dev_info(dev, "rtkit-test: gpu-init: InitData at 0x%llx, Initialize consumed in %lld us\n",
		 gpu->initdata->va, ktime_us_delta(ktime_get(), t0));
	return 0;
}

/* A work queue of our own on one pipe */
static int agx_queue_init(struct agx_gpu *gpu, struct agx_queue *q,
			  unsigned int type)
{
	const struct agx_pipe_layout *pl = &pipe_layouts[type];

	q->pl = pl;
	q->type = type;
	q->info = agx_obj_alloc(gpu, HEAP_PRIVATE, QI_SIZE,
				UAT_PROT_FW_PRIV_RW);
	q->state = agx_obj_alloc(gpu, HEAP_SHARED, RS_SIZE,
				 UAT_PROT_FW_SHARED_RW);
	q->ring = agx_obj_alloc(gpu, HEAP_SHARED, WQ_SIZE * sizeof(u64),
				UAT_PROT_FW_SHARED_RW);
	q->ctx = agx_obj_alloc(gpu, HEAP_SHARED, CTX_SIZE,
			       UAT_PROT_FW_SHARED_RW);
	q->blocks = agx_obj_alloc(gpu, HEAP_PRIVATE, QUEUE_BLOCKS * CMD_BLOCK_SIZE,
				  UAT_PROT_FW_PRIV_RW);
	if (IS_ERR(q->info))
		return PTR_ERR(q->info);
	if (IS_ERR(q->state))
		return PTR_ERR(q->state);
	if (IS_ERR(q->ring))
		return PTR_ERR(q->ring);
	if (IS_ERR(q->ctx))
		return PTR_ERR(q->ctx);
	if (IS_ERR(q->blocks))
		return PTR_ERR(q->blocks);

	wr64(q->info->cpu, QI_STATE, q->state->va);
	wr64(q->info->cpu, QI_RING, q->ring->va);
	wr32(q->info->cpu, QI_EVENT_ID, 0xffffffff);
	wr32(q->info->cpu, QI_UUID, 0x7e570000 | type);
	wr64(q->info->cpu, QI_GPU_CONTEXT, q->ctx->va);
	wr32(q->state->cpu, RS_RB_SIZE, WQ_SIZE);
	wr32(q->ctx->cpu, 0, 0xffff);

	/* Stamps start where they wrap soon */
	wr32_once(gpu->stamps->cpu, 4 * pl->slot, STAMP_BASE);
	wr32_once(gpu->fw_stamps->cpu, 4 * pl->slot, STAMP_BASE);
	q->value = STAMP_BASE;
	q->checked_value = STAMP_BASE;
	spin_lock(&gpu->lock);
	gpu->flag_stamp[pl->slot] = STAMP_BASE;
	set_bit(pl->slot, gpu->our_slots);
	spin_unlock(&gpu->lock);
	return 0;
}

static int agx_gpu_queues(struct agx_gpu *gpu)
{
	unsigned int type;
	int ret;

	if (gpu->queues_ready)
		return 0;
	for (type = 0; type < NUM_PIPES; type++) {
		ret = agx_queue_init(gpu, &gpu->queues[type], type);
		if (ret)
			return ret;
	}
	/* The stamps' start values are in memory before any command */
	wmb();
	gpu->queues_ready = true;
	return 0;
}

static bool agx_reached(struct agx_gpu *gpu, unsigned int slot, u32 value)
{
	bool ret;

	spin_lock(&gpu->lock);
	ret = stamp_ge(gpu->flag_stamp[slot], value);
	spin_unlock(&gpu->lock);
	return ret;
}

static bool agx_interrupted(struct agx_gpu *gpu)
{
	bool ret;

	spin_lock(&gpu->lock);
	ret = gpu->dead || gpu->fault_events != gpu->faults_seen;
	spin_unlock(&gpu->lock);
	return ret;
}

static unsigned int agx_faults(struct agx_gpu *gpu)
{
	unsigned int faults;

	spin_lock(&gpu->lock);
	faults = gpu->fault_events;
	spin_unlock(&gpu->lock);
	return faults;
}

/*
 * Waits until a Flag event showed q's stamp at value.  -EFAULT if a Fault
 * event came first (one beyond faults_seen), -EIO if the firmware died.
 */
static int agx_wait_value(struct agx_gpu *gpu, struct agx_queue *q,
			  u32 value)
{
	unsigned int slot = q->pl->slot;

	wait_event_timeout(gpu->wait, agx_reached(gpu, slot, value) ||
			   agx_interrupted(gpu), msecs_to_jiffies(wait_ms));
	if (agx_reached(gpu, slot, value))
		return 0;
	if (agx_faults(gpu) != gpu->faults_seen)
		return -EFAULT;
	if (agx_interrupted(gpu)) {
		dev_err(gpu->dev, "rtkit-test: firmware died\n");
		return -EIO;
	}
	dev_err(gpu->dev,
		"rtkit-test: %s queue: no Flag for stamp 0x%x in %u ms (stamp 0x%x, Flag stamp 0x%x, done %u of %u)\n",
		q->pl->name, value, wait_ms, agx_stamp(gpu, slot),
		gpu->flag_stamp[slot], rd32_once(q->state->cpu, RS_GPU_DONEPTR),
		q->wptr);
	return -ETIMEDOUT;
}

/* Checks one completed command of q; false on a failed check */
static bool agx_check_job(struct agx_gpu *gpu, struct agx_queue *q,
			  const struct agx_job *job)
{
	const void *blk = q->blocks->cpu + job->block * CMD_BLOCK_SIZE;
	u64 start = rd64_once(blk, B_TS_START);
	u64 end = rd64_once(blk, B_TS_END);
	u64 min_ticks = div_u64((u64)job_ns * 24, 1000);
	/* Its completion was seen: the CPU counter is past its end now */
	u64 now = arch_timer_read_counter();
	const char *bad = NULL;

	if (job->failed) {
		/* Started, then the fault: it never ended */
		if (end)
			bad = "failed command has an end timestamp";
	} else if (!start || end < start + min_ticks) {
		bad = "timestamps out of order or too close";
	} else if (start < job->submitted_at) {
		bad = "GPU start timestamp before CNTVCT at submission";
	} else if (end > now) {
		bad = "GPU end timestamp after CNTVCT at completion";
	} else if (start < q->last_end) {
		bad = "started before the previous command ended";
	} else if (!stamp_ge(agx_fw_stamp(gpu, q->pl->slot), job->value)) {
		bad = "firmware stamp behind the stamp";
	} else if (job->has_after) {
		const struct agx_vertex_end *v =
			&gpu->queues[PIPE_VERTEX].ends[(job->after / STAMP_STEP) %
						       QUEUE_BLOCKS];

		if (v->value != job->after)
			bad = "lost its vertex command";
		else if (start < v->end)
			bad = "started before its vertex command ended";
	}
	if (bad) {
		dev_err(gpu->dev,
			"rtkit-test: %s command 0x%x (block %u): %s: start %llu end %llu, previous end %llu\n",
			q->pl->name, job->value, job->block, bad, start, end,
			q->last_end);
		return false;
	}
	if (job->failed)
		return true;
	q->last_end = end;
	if (q->type == PIPE_VERTEX) {
		struct agx_vertex_end *v =
			&q->ends[(job->value / STAMP_STEP) % QUEUE_BLOCKS];

		v->value = job->value;
		v->end = end;
	}
	if (!gpu->first_start || start < gpu->first_start)
		gpu->first_start = start;
	if (end > gpu->last_end)
		gpu->last_end = end;
	return true;
}

/*
 * Checks every command whose completion a Flag reported, oldest first;
 * vertex before fragment, so that renders find their vertex command.
 */
static int agx_check(struct agx_gpu *gpu)
{
	unsigned int type;

	for (type = 0; type < NUM_PIPES; type++) {
		struct agx_queue *q = &gpu->queues[type];

		while (q->job_count) {
			struct agx_job *job = &q->jobs[q->job_head];

			if (!agx_reached(gpu, q->pl->slot, job->value))
				break;
			if (job->has_after &&
			    !stamp_ge(gpu->queues[PIPE_VERTEX].checked_value,
				      job->after))
				break;
			if (!agx_check_job(gpu, q, job)) {
				agx_gpu_error(gpu);
				return -EIO;
			}
			q->checked_value = job->value;
			q->checked++;
			q->job_head = (q->job_head + 1) % QUEUE_BLOCKS;
			q->job_count--;
			spin_lock(&gpu->lock);
			gpu->jobs_checked++;
			spin_unlock(&gpu->lock);
		}
	}
	return 0;
}

/*
 * The next block of q, for a command that is done when the command with
 * stamp free is checked: waits for the block's previous command.
 */
static int agx_queue_block(struct agx_gpu *gpu, struct agx_queue *q,
			   u32 free, void **cpu, u64 *va)
{
	u32 i = q->next_block;
	int tries, ret;

	for (tries = 0; q->block_used[i] &&
	     !stamp_ge(q->checked_value, q->block_free[i]); tries++) {
		/* A render's vertex command may need one more pass */
		if (tries > 2) {
			dev_err(gpu->dev, "rtkit-test: %s block %u stays busy\n",
				q->pl->name, i);
			return -EIO;
		}
		ret = agx_wait_value(gpu, q, q->block_free[i]);
		if (!ret)
			ret = agx_check(gpu);
		if (ret)
			return ret;
	}
	q->block_used[i] = true;
	q->block_free[i] = free;
	q->next_block = (i + 1) % QUEUE_BLOCKS;
	*cpu = q->blocks->cpu + i * CMD_BLOCK_SIZE;
	*va = q->blocks->va + i * CMD_BLOCK_SIZE;
	memset(*cpu, 0, CMD_BLOCK_SIZE);
	return i;
}

/* Appends a command to the work queue's ring (not yet announced) */
static int agx_queue_append(struct agx_gpu *gpu, struct agx_queue *q,
			    u64 cmd_va)
{
	u32 next = (q->wptr + 1) % WQ_SIZE;

	if (next == rd32_once(q->state->cpu, RS_GPU_DONEPTR)) {
		dev_err(gpu->dev, "rtkit-test: %s work queue full\n",
			q->pl->name);
		return -ENOSPC;
	}
	/* The command is in memory before the entry that points at it */
	wmb();
	wr64_once(q->ring->cpu, q->wptr * sizeof(u64), cmd_va);
	q->wptr = next;
	return 0;
}

/*
 * Timestamp op as drm/asahi fills it: the record's time slot, its
 * {start, end} pointer pair, update_ts at the half the header bit picks
 */
static u32 agx_put_timestamp(void *op, u64 blk_va, u32 cur_ts, bool start,
			     u32 uuid)
{
	wr32(op, 0, OP_TIMESTAMP | (start ? OP_TIMESTAMP_START : 0));
	wr64(op, TS_CUR, blk_va + cur_ts);
	wr64(op, TS_PAIR, blk_va + cur_ts + 8);
	wr64(op, TS_UPDATE, blk_va + cur_ts + 8 + (start ? 0 : 8));
	wr32(op, TS_UUID, uuid);
	return TS_SIZE;
}

/* A Run* command; after: the vertex stamp a render's fragment waits for */
static int agx_submit_run(struct agx_gpu *gpu, struct agx_queue *q,
			  bool has_after, u32 after)
{
	const struct agx_pipe_layout *pl = q->pl;
	u64 stamp_va = gpu->stamps->va + 4 * pl->slot;
	u64 fw_stamp_va = gpu->fw_stamps->va + 4 * pl->slot;
	u32 value = q->value + STAMP_STEP;
	struct agx_job *job;
	void *blk, *useq, *meta;
	u32 pos = 0;
	u64 va, submitted_at;
	int block, ret;

	block = agx_queue_block(gpu, q, value, &blk, &va);
	if (block < 0)
		return block;
	submitted_at = arch_timer_read_counter();
	useq = blk + B_USEQ;
	wr32(useq, 0, pl->start_op);
	pos += pl->start_size;
	pos += agx_put_timestamp(useq + pos, va, pl->cur_ts, true, value);
	wr32(useq, pos, pl->wait_op);
	pos += 4;
	pos += agx_put_timestamp(useq + pos, va, pl->cur_ts, false, value);
	wr32(useq, pos, pl->fin_op);
	wr64(useq, pos + pl->fin_fw_stamp, fw_stamp_va);
	wr32(useq, pos + pl->fin_value, value);
	pos += pl->fin_size;
	wr32(useq, pos, OP_RETIRE_STAMP);
	pos += 4;
	if (WARN_ON_ONCE(pl->size > B_USEQ || B_USEQ + pos > B_TS_START))
		return -EINVAL;

	wr32(blk, 0, pl->tag);
	wr64(blk, pl->useq_ptr, va + B_USEQ);
	wr32(blk, pl->useq_size, pos);
	meta = blk + pl->meta;
	wr64(meta, META_STAMP, stamp_va);
	wr64(meta, META_FW_STAMP, fw_stamp_va);
	wr32(meta, META_VALUE, value);
	wr32(meta, META_SLOT, pl->slot);
	wr32(meta, META_FLUSH_STAMPS, 1);
	/* Where the Timestamp ops store: {start, end} */
	wr64(blk, pl->cur_ts + 8, va + B_TS_START);
	wr64(blk, pl->cur_ts + 16, va + B_TS_END);

	ret = agx_queue_append(gpu, q, va);
	if (ret)
		return ret;
	job = &q->jobs[(q->job_head + q->job_count) % QUEUE_BLOCKS];
	job->value = value;
	job->block = block;
	job->has_after = has_after;
	job->after = after;
	job->failed = false;
	job->submitted_at = submitted_at;
	q->job_count++;
	q->value = value;
	q->submitted++;
	return 0;
}

/* A Barrier on q: wait until on's firmware stamp reaches value */
static int agx_submit_barrier(struct agx_gpu *gpu, struct agx_queue *q,
			      struct agx_queue *on, u32 value)
{
	void *blk;
	u64 va;
	int block;

	/* Done once the command behind it is */
	block = agx_queue_block(gpu, q, q->value + STAMP_STEP, &blk, &va);
	if (block < 0)
		return block;
	wr32(blk, 0, CMD_BARRIER);
	wr64(blk, BAR_WAIT_STAMP, gpu->fw_stamps->va + 4 * on->pl->slot);
	wr32(blk, BAR_WAIT_VALUE, value);
	wr32(blk, BAR_WAIT_SLOT, on->pl->slot);
	wr32(blk, BAR_STAMP_SELF, q->value + STAMP_STEP);
	wr32(blk, BAR_UNK, 0xffffbbbb);
	return agx_queue_append(gpu, q, va);
}

/* Announces what was appended to q: RunWorkQueue, then the doorbell */
static int agx_queue_kick(struct agx_gpu *gpu, struct agx_queue *q)
{
	unsigned int channel = PIPE_CHANNEL(q->type, q->pl->prio);
	u8 msg[PIPE_MSG_SIZE] = { 0 };
	int ret;

	wr32_once(q->state->cpu, RS_CPU_WPTR, q->wptr);
	wr32(msg, RWQ_PIPE_TYPE, q->type);
	wr64(msg, RWQ_QUEUE, q->info->va);
	wr32(msg, RWQ_WPTR, q->wptr);
	wr32(msg, RWQ_SLOT, q->pl->slot);
	msg[RWQ_IS_NEW] = !q->kicked;
	q->kicked = true;
	ret = agx_ring_tx(gpu, &gpu->pipes[channel], msg);
	if (ret)
		return ret;
	return agx_doorbell(gpu, channel);
}

/* drm/asahi's render: fragment behind a Barrier, kicked first */
static int agx_submit_render(struct agx_gpu *gpu)
{
	struct agx_queue *vtx = &gpu->queues[PIPE_VERTEX];
	struct agx_queue *frag = &gpu->queues[PIPE_FRAGMENT];
	u32 want = vtx->value + STAMP_STEP;
	int ret;

	ret = agx_submit_barrier(gpu, frag, vtx, want);
	if (!ret)
		ret = agx_submit_run(gpu, frag, true, want);
	if (!ret)
		ret = agx_queue_kick(gpu, frag);
	if (!ret)
		ret = agx_submit_run(gpu, vtx, false, 0);
	if (!ret)
		ret = agx_queue_kick(gpu, vtx);
	return ret;
}

static int agx_submit_one(struct agx_gpu *gpu, struct agx_queue *q)
{
	int ret = agx_submit_run(gpu, q, false, 0);

	return ret ? ret : agx_queue_kick(gpu, q);
}

/* Waits for and checks everything submitted */
static int agx_drain(struct agx_gpu *gpu)
{
	unsigned int type;
	int ret;

	for (type = 0; type < NUM_PIPES; type++) {
		struct agx_queue *q = &gpu->queues[type];

		ret = agx_wait_value(gpu, q, q->value);
		if (ret)
			return ret;
	}
	/* Twice: the first pass may leave a fragment for its vertex */
	ret = agx_check(gpu);
	if (!ret)
		ret = agx_check(gpu);
	if (ret)
		return ret;
	for (type = 0; type < NUM_PIPES; type++) {
		struct agx_queue *q = &gpu->queues[type];
		u32 done = rd32_once(q->state->cpu, RS_GPU_DONEPTR);

		if (q->job_count || done != q->wptr) {
			dev_err(gpu->dev,
				"rtkit-test: %s queue: %u commands unchecked, done pointer %u, write pointer %u\n",
				q->pl->name, q->job_count, done, q->wptr);
			return -EIO;
		}
	}
	return 0;
}

static unsigned int agx_errors(struct agx_gpu *gpu)
{
	unsigned int errors;

	spin_lock(&gpu->lock);
	errors = gpu->errors;
	spin_unlock(&gpu->lock);
	return errors;
}

static int agx_gpu_jobs(struct agx_gpu *gpu, unsigned int n)
{
	unsigned int errors = agx_errors(gpu), flags[2], doorbells[2];
	unsigned int submitted[NUM_PIPES], type, done = 0;
	bool render = true;
	u64 c0, c1, gpu_ticks;
	ktime_t t0, t1;
	s64 us;
	int ret;

	ret = agx_gpu_queues(gpu);
	if (ret)
		return ret;
	for (type = 0; type < NUM_PIPES; type++)
		submitted[type] = gpu->queues[type].submitted;
	gpu->first_start = 0;
	gpu->last_end = 0;
	gpu->faults_seen = agx_faults(gpu);
	spin_lock(&gpu->lock);
	flags[0] = gpu->flag_events;
	doorbells[0] = gpu->rx_doorbells;
	spin_unlock(&gpu->lock);

	t0 = ktime_get();
	c0 = arch_timer_read_counter();
	while (done < n) {
		if (render && n - done >= 2) {
			ret = agx_submit_render(gpu);
			done += 2;
		} else {
			ret = agx_submit_one(gpu, &gpu->queues[PIPE_COMPUTE]);
			done++;
		}
		render = !render;
		if (ret)
			break;
	}
	if (!ret)
		ret = agx_drain(gpu);
	c1 = arch_timer_read_counter();
	t1 = ktime_get();
	spin_lock(&gpu->lock);
	flags[1] = gpu->flag_events;
	doorbells[1] = gpu->rx_doorbells;
	spin_unlock(&gpu->lock);
	if (ret) {
		if (ret == -EFAULT)
			dev_err(gpu->dev, "rtkit-test: unexpected GPU fault\n");
		return ret;
	}
	if (agx_errors(gpu) != errors) {
		dev_err(gpu->dev, "rtkit-test: %u errors during gpu-jobs\n",
			agx_errors(gpu) - errors);
		return -EIO;
	}
	if (rd32_once(gpu->fw_status->cpu, FWS_HALTED)) {
		dev_err(gpu->dev, "rtkit-test: firmware halted\n");
		return -EIO;
	}

	us = max_t(s64, ktime_us_delta(t1, t0), 1);
	gpu_ticks = gpu->last_end - gpu->first_start;
	dev_info(gpu->dev,
		 "rtkit-test: gpu-jobs: %u jobs (%u vertex, %u fragment, %u compute) in %lld us: %lld jobs/s; %u Flag events, %u RX doorbells\n",
		 n, gpu->queues[PIPE_VERTEX].submitted - submitted[PIPE_VERTEX],
		 gpu->queues[PIPE_FRAGMENT].submitted - submitted[PIPE_FRAGMENT],
		 gpu->queues[PIPE_COMPUTE].submitted - submitted[PIPE_COMPUTE],
		 us, div64_s64((s64)n * USEC_PER_SEC, us),
		 flags[1] - flags[0], doorbells[1] - doorbells[0]);
	dev_info(gpu->dev,
		 "rtkit-test: gpu-jobs: GPU timestamps span %llu ticks (%llu us at 24 MHz), CNTVCT %llu ticks; first start - CNTVCT at submission: %lld ticks\n",
		 gpu_ticks, div_u64(gpu_ticks, 24), c1 - c0,
		 (s64)(gpu->first_start - c0));
	return 0;
}

/* Globals.pending_stamps: is the command with value on slot listed? */
static bool agx_pending_listed(struct agx_gpu *gpu, unsigned int slot,
			       u32 value)
{
	const void *p = gpu->globals->cpu + GL_PENDING_STAMPS;
	unsigned int i;

	for (i = 0; i < NUM_PENDING_STAMPS; i++) {
		u32 info = rd32_once(p, 8 * i);

		if ((info & PENDING_VALID) &&
		    FIELD_GET(PENDING_SLOT, info) == slot &&
		    rd32_once(p, 8 * i + 4) == value) {
			dev_info(gpu->dev,
				 "rtkit-test: pending stamp %u: slot %u value 0x%x\n",
				 i, slot, value);
			return true;
		}
	}
	return false;
}

static int agx_gpu_fault(struct agx_gpu *gpu)
{
	struct agx_queue *q = &gpu->queues[PIPE_VERTEX];
	unsigned long deadline = jiffies + msecs_to_jiffies(10 * wait_ms);
	unsigned int probes;
	void *fws = gpu->fw_status->cpu;
	u64 halts = rd64_once(fws, FWS_HALT_COUNT), info;
	struct agx_job *job;
	u32 value, tag;
	int ret;

	ret = agx_gpu_queues(gpu);
	if (ret)
		return ret;
	gpu->faults_seen = agx_faults(gpu);
	/* Until the host's injection is armed, the commands just complete */
	for (probes = 1;; probes++) {
		ret = agx_submit_one(gpu, q);
		if (ret)
			return ret;
		ret = agx_wait_value(gpu, q, q->value);
		if (ret == -EFAULT)
			break;
		if (!ret)
			ret = agx_check(gpu);
		if (ret)
			return ret;
		if (time_after(jiffies, deadline)) {
			dev_err(gpu->dev, "rtkit-test: no GPU fault in %u commands\n",
				probes);
			return -ETIMEDOUT;
		}
		usleep_range(1000, 2000);
	}
	value = q->value;
	gpu->faults_seen = agx_faults(gpu);

	/* What drm/asahi looks at after a Fault event */
	spin_lock(&gpu->lock);
	tag = get_unaligned_le32(gpu->last_event);
	spin_unlock(&gpu->lock);
	info = readq(gpu->sgx + SGX_FAULT_INFO);
	dev_info(gpu->dev,
		 "rtkit-test: gpu-fault: fault on command 0x%x after %u commands: FAULT_INFO 0x%016llx (reason %llu, VM slot %llu, VA 0x%llx), halt count %llu\n",
		 value, probes, info, FIELD_GET(FAULT_INFO_REASON, info),
		 FIELD_GET(FAULT_INFO_SLOT, info),
		 FIELD_GET(FAULT_INFO_ADDR, info) << 6,
		 rd64_once(fws, FWS_HALT_COUNT));
	if (tag != EV_FAULT || !(info & FAULT_INFO_VALID) ||
	    FIELD_GET(FAULT_INFO_UNIT, info) != FAULT_UNIT_VDM0 ||
	    rd32_once(fws, FWS_HALTED) != 1 ||
	    rd64_once(fws, FWS_HALT_COUNT) != halts + 1 ||
	    stamp_ge(agx_stamp(gpu, q->pl->slot), value) ||
	    !agx_pending_listed(gpu, q->pl->slot, value)) {
		dev_err(gpu->dev, "rtkit-test: gpu-fault: event %u, halted %u: not what a fault looks like\n",
			tag, rd32_once(fws, FWS_HALTED));
		return -EIO;
	}

	/* drm/asahi fails the command, then recover(): halted 0, resume 1 */
	job = &q->jobs[(q->job_head + q->job_count - 1) % QUEUE_BLOCKS];
	job->failed = true;
	wr32_once(fws, FWS_HALTED, 0);
	/* In this order, as the driver writes them */
	wmb();
	wr32_once(fws, FWS_RESUME, 1);

	/*
	 * No doorbell: the halted firmware notices resume by itself and
	 * retires the failed command, whose stamp is how drm/asahi completes
	 * a command it marked in error
	 */
	ret = agx_wait_value(gpu, q, value);
	if (ret) {
		dev_err(gpu->dev, "rtkit-test: gpu-fault: failed command 0x%x not retired after resume\n",
			value);
		return ret;
	}
	ret = agx_submit_one(gpu, q);
	if (!ret)
		ret = agx_drain(gpu);
	if (ret)
		return ret;
	info = readq(gpu->sgx + SGX_FAULT_INFO);
	if (rd32_once(fws, FWS_RESUME) || rd32_once(fws, FWS_HALTED) ||
	    (info & FAULT_INFO_VALID)) {
		dev_err(gpu->dev, "rtkit-test: gpu-fault: after recovery resume %u, halted %u, FAULT_INFO 0x%llx\n",
			rd32_once(fws, FWS_RESUME), rd32_once(fws, FWS_HALTED),
			info);
		return -EIO;
	}
	dev_info(gpu->dev,
		 "rtkit-test: gpu-fault: recovered, command 0x%x completed\n",
		 q->value);
	return 0;
}

/* The gpu-* commands of rtkit_cmd */
int agx_gpu_run(struct agx_rtkit_test *priv, const char *verb,
		const char *arg)
{
	struct agx_gpu *gpu = priv->gpu;
	unsigned int n;
	int ret;

	if (!strcmp(verb, "gpu-init") && !arg)
		return agx_gpu_init(priv);
	if (!gpu) {
		dev_err(priv->dev, "rtkit-test: %s before gpu-init\n", verb);
		return -EINVAL;
	}
	if (!strcmp(verb, "gpu-jobs") && arg) {
		ret = kstrtouint(arg, 0, &n);
		if (ret)
			return ret;
		return n ? agx_gpu_jobs(gpu, n) : -EINVAL;
	}
	if (!strcmp(verb, "gpu-fault") && !arg)
		return agx_gpu_fault(gpu);
	return -EINVAL;
}
