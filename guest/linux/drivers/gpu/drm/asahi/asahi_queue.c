// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: queues and submission.
 *
 * A queue is one DRM scheduler (one entity, one run queue) in front of
 * three firmware work queues (vertex, fragment, compute), made on first
 * use.
 * SUBMIT parses the command stream (drm_asahi_cmd_header + payload),
 * checks barriers and attachments, resolves in-syncs into scheduler
 * dependencies, binds the VM to a context slot for the job's life and
 * pushes one job; out-syncs get the scheduler's finished fence.  When the
 * scheduler runs the job, a compute command becomes a RunCompute record
 * with its microsequence (StartCompute, WaitForIdle, FinalizeCompute,
 * RetireStamp) on the compute work queue; a render command a RunVertex on
 * the vertex work queue and, on the fragment work queue, a Barrier on the
 * vertex command's firmware stamp then a RunFragment, each with its
 * microsequence.  Explicit barriers become Barrier records at the head of
 * the command's own first work queue.  Records live in blocks of each
 * work queue's command pool; the work queues are kicked (RunWorkQueue and
 * a doorbell on the queue's priority channel) fragment, vertex, compute.
 * The firmware retires each command by writing its stamp and raising a
 * Flag event for the work queue's event slot; the job's hardware fence
 * signals when its last command on every work queue retired.
 *
 * A queue has one GpuContextData, shared by its work queues; when the
 * queue is gone and the firmware finished its work, the firmware is told
 * with DeviceControl DestroyContext, then the context is freed
 * (drm/asahi sends it from the next allocation, for the contexts dropped
 * meanwhile).
 *
 * A render takes a scene of the queue's tiled vertex buffer at SUBMIT
 * (asahi_buffer.c: the buffer grows first, the scene binds a buffer-
 * manager slot); its vertex command goes behind an InitBuffer when the
 * slot was (re)bound or the buffer grew, and both halves name the scene.
 *
 * Differences from drm/asahi (docs/devel/agx-guest-stack.rst): a work
 * queue keeps its event slot for life; the buffer is made at the queue's
 * first render.  The UAPI fields go into the job parameter blocks of the
 * Run records where drm/asahi puts them (asahi_params.c).
 *
 * User timestamps: a stage with a timestamp object gets Timestamp ops
 * around its WaitForIdle; they write the time to the record's kernel
 * {start, end} pair in the command block and to the user's pair (VAs in
 * the GEM_BIND_OBJECT range).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/dma-fence.h>
#include <linux/dma-fence-chain.h>
#include <linux/slab.h>
#include <linux/soc/apple/rtkit.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <drm/asahi_drm.h>
#include <drm/drm_file.h>
#include <drm/drm_syncobj.h>
#include <drm/gpu_scheduler.h>

#include "asahi_drv.h"
#include "asahi_fw.h"
#include "asahi_params.h"

#define ASAHI_MAX_COMMANDS	64
#define ASAHI_MAX_ATTACHMENTS	16
#define ASAHI_CMDBUF_MAX	SZ_1M
/* drm/asahi's scheduler: 100 s per job */
#define ASAHI_JOB_TIMEOUT_MS	100000

/*
 * drm/asahi keeps a queue usable after its job faulted or timed out: the
 * error reaches userspace only on the job's fence, which Mesa does not
 * read.  With lost_on_fault=1 such a queue refuses later SUBMITs with
 * ECANCELED instead, so that userspace learns of it synchronously (Mesa's
 * Vulkan driver would mark its device lost on a failed SUBMIT, but Mesa
 * 26.1 swallows the error); jobs killed for another queue's fault
 * (ECANCELED) do not count.
 */
static bool lost_on_fault;
module_param(lost_on_fault, bool, 0644);
MODULE_PARM_DESC(lost_on_fault,
		 "A queue whose job faulted or timed out refuses later submits (not drm/asahi)");

/* Command blocks per queue: the scheduler's credit limit */
#define WQ_BLOCKS		512

/* RunCompute (13.5, G13) and its ops */
#define RC_TAG			3
#define RC_COUNTER		0x04
#define RC_VM_SLOT		0x10
#define RC_JOB_PARAMS1		0x70
#define RC_USEQ_PTR		0x1f0
#define RC_USEQ_SIZE		0x1f8
#define RC_JOB_PARAMS2		0x1fc
#define RC_META			0x284
#define RC_CLIENT_SEQ		0x2d8
#define META_UUID		0x24
#define META_EVENT_SEQ		0x28
#define B_RC_USEQ		0x400
#define OP_START_COMPUTE	0x29
#define SC_SIZE			0x16c
#define SC_JOB_PARAMS1		0x0c
#define SC_WORK_QUEUE		0x1c
#define SC_VM_SLOT		0x24
#define SC_UNK_28		0x28
#define SC_EVENT_GEN		0x2c
#define SC_EVENT_SEQ		0x30
#define SC_JOB_PARAMS2		0x3c
#define SC_UUID			0x48
#define SC_COUNTER		0x15c
#define OP_WAIT_COMPUTE		0x00800001
#define OP_FINALIZE_COMPUTE	0x2a
#define FC_SIZE			0x7c
#define FC_WORK_QUEUE		0x0c
#define FC_VM_SLOT		0x14
#define FC_JOB_PARAMS2		0x18
#define FC_UUID			0x24
#define FC_FW_STAMP		0x28
#define FC_VALUE		0x30
#define FC_RESTART		0x58

/* RunVertex, RunFragment (13.5, G13) and their ops */
#define RV_TAG			0
#define RV_COUNTER		0x04
#define RV_VM_SLOT		0x0c
#define RV_JOB_PARAMS1		0x40
#define RV_TILING_PARAMS	0x3c4
#define RV_USEQ_PTR		0x474
#define RV_USEQ_SIZE		0x47c
#define RV_FRAG_STAMP_SLOT	0x480
#define RV_FRAG_STAMP_VALUE	0x484
#define RV_META			0x56c
#define RV_CLIENT_SEQ		0x5dc
#define OP_START_VERTEX		0x22
#define SV_SIZE			0x18c
#define SV_TILING_PARAMS	0x04
#define SV_JOB_PARAMS1		0x0c
#define SV_WORK_QUEUE		0x2c
#define SV_VM_SLOT		0x34
#define SV_UNK_38		0x38
#define SV_EVENT_GEN		0x3c
#define SV_EVENT_SEQ		0x48
#define SV_UUID			0x6c
#define SV_COUNTER		0x178
#define SV_UNK_178		0x188
#define OP_WAIT_VERTEX		0x00000101
#define OP_FINALIZE_VERTEX	0x23
#define FV_SIZE			0x84
#define FV_WORK_QUEUE		0x1c
#define FV_VM_SLOT		0x24
#define FV_UUID			0x38
#define FV_FW_STAMP		0x3c
#define FV_VALUE		0x44
#define FV_RESTART		0x6c
#define RF_TAG			1
#define RF_COUNTER		0x04
#define RF_VM_SLOT		0x0c
#define RF_USEQ_PTR		0x14
#define RF_USEQ_SIZE		0x1c
#define RF_JOB_PARAMS1		0x80
#define RF_JOB_PARAMS2		0x3c8
#define RF_META			0x8d0
#define RF_CLIENT_SEQ		0x940
#define OP_START_FRAGMENT	0x24
#define SF_SIZE			0x1ac
#define SF_JOB_PARAMS2		0x04
#define SF_JOB_PARAMS1		0x0c
#define SF_WORK_QUEUE		0x3c
#define SF_WORK_ITEM		0x44
#define SF_VM_SLOT		0x4c
#define SF_UNK_50		0x50
#define SF_EVENT_GEN		0x54
#define SF_EVENT_SEQ		0x60
#define SF_UUID			0x90
#define SF_COUNTER		0x19c
#define OP_WAIT_FRAGMENT	0x00010001
#define OP_FINALIZE_FRAGMENT	0x25
#define FF_SIZE			0xb4
#define FF_UUID			0x04
#define FF_FW_STAMP		0x0c
#define FF_VALUE		0x14
#define FF_WORK_QUEUE		0x4c
#define FF_WORK_ITEM		0x54
#define FF_VM_SLOT		0x5c
#define FF_RESTART		0x9c
#define B_USEQ_OFF		0x980	/* past the largest record (0x96c) */
#define B_INIT_BUFFER		0xf40	/* past the kernel timestamps */
#define CMD_INIT_BUFFER		6
#define IB_VM_SLOT		0x04
#define IB_BUFFER_SLOT		0x08
#define IB_BLOCK_COUNT		0x10
#define IB_BUFFER		0x14
#define IB_STAMP_VALUE		0x1c
#define SV_BUFFER		0x14
#define SV_SCENE		0x1c
#define SV_BUFFER_SLOT		0x40
#define FV_SCENE		0x04
#define FV_BUFFER		0x0c
#define SF_SCENE		0x14
#define SF_BUFFER_SLOT		0x58
#define FF_SCENE		0x1c
#define FF_BUFFER		0x24
#define BAR_TYPE		0x1c
#define BAR_UUID_EXPLICIT	0xffffbbbb

#define NUM_WQS			3	/* vertex, fragment, compute */

/*
 * Offsets for this ABI (asahi_abi): R() for Run record fields between
 * the 13.0b4 counter and JobMeta, TIME() for the time slots that follow
 * JobMeta (at the same distance from it on both ABIs).
 */
#define R(a, off)		((off) - (a)->rec_shift)
#define TIME(a, pipe, off13)	((a)->run_meta[pipe] + (off13) - \
				 asahi_abis13_meta[pipe])

static const u32 asahi_abis13_meta[3] = { RV_META, RF_META, RC_META };

/* A firmware work queue */
struct asahi_wq {
	struct asahi_gpu *gpu;
	struct asahi_queue *queue;
	unsigned int type;
	unsigned int prio;		/* firmware priority: pipe channel */
	unsigned int slot;		/* event slot */
	struct asahi_obj *info;
	struct asahi_obj *state;
	struct asahi_obj *ring;
	struct asahi_obj *blocks;
	u32 wptr;
	u32 value;			/* of the newest command */
	bool used;			/* a command went on it */
	u32 next_block;
	u64 counter;
	u64 event_seq;
	bool kicked;
	/* Job parts on the ring, oldest first; under lock */
	spinlock_t lock;
	struct list_head pending;
	wait_queue_head_t idle;
};

struct asahi_queue {
	struct asahi_device *adev;
	struct kref ref;
	struct work_struct free_work;
	struct asahi_vm *vm;
	u32 id;				/* global, as the firmware sees it */
	u32 prio;			/* firmware priority */
	u64 usc_exec_base;
	struct drm_gpu_scheduler sched;
	struct drm_sched_entity entity;
	bool sched_ready;
	bool entity_ready;
	/*
	 * A SUBMIT arms and pushes its job under submit_lock; QUEUE_DESTROY
	 * marks the queue dead under it before the entity goes, so that no
	 * job is armed on a destroyed entity
	 */
	struct mutex submit_lock;
	bool dead;
	/* A job of this queue failed by its own fault (lost_on_fault=1) */
	bool lost;
	/* Made on first use (SUBMIT); under wq_lock */
	struct mutex wq_lock;
	struct asahi_wq *wq[NUM_WQS];
	struct asahi_obj *ctx;		/* GpuContextData of its work queues */
	struct asahi_buffer *buf;	/* tiled vertex buffer, first render */
	u64 fence_ctx;
	u64 fence_seqno;
	/*
	 * Jobs handed to the firmware, oldest first: their fences share a
	 * context, so they signal in this order even when a later job's
	 * work queues finished first.
	 */
	spinlock_t done_lock;
	struct list_head inflight;
};

/*
 * The hardware fence of a job.  It outlives its queue (syncobjs hold the
 * scheduler fences that hold it), so it carries its own lock.
 */
struct asahi_fence {
	struct dma_fence base;
	spinlock_t lock;
};

/* What a job put on one work queue: done when that stamp is reached */
struct asahi_job_part {
	struct asahi_job *job;
	struct list_head node;		/* in the work queue's pending list */
	struct list_head done_node;	/* retired, being completed */
	u32 first_value;
	u32 last_value;
	int error;			/* marked by an error event */
	bool queued;
};

/* Where a barrier waits: a work queue and the value to reach */
struct asahi_event {
	struct asahi_wq *wq;
	u32 value;
};

/* User timestamps of a command: vertex start/end, fragment start/end */
enum { TS_VTX_START, TS_VTX_END, TS_FRAG_START, TS_FRAG_END, NUM_TS };

/* One UAPI command, as SUBMIT copied it */
struct asahi_cmd {
	u16 type;
	u16 vdm_barrier;
	u16 cdm_barrier;
	bool flush;
	/* Compute uses the vertex pair */
	struct asahi_ts_obj *ts[NUM_TS];
	u64 ts_va[NUM_TS];
	union {
		struct drm_asahi_cmd_render render;
		struct drm_asahi_cmd_compute compute;
	};
	struct asahi_scene *scene;	/* render: from SUBMIT to job free */
};

struct asahi_job {
	struct drm_sched_job base;
	struct asahi_queue *queue;
	bool vm_bound;
	unsigned int ncmds;
	struct asahi_cmd *cmds;
	/* Barrier targets per subqueue, 1 + ncmds each (asahi_queue_run) */
	struct asahi_event *ev[2];
	struct asahi_job_part parts[NUM_WQS];
	atomic_t parts_left;
	struct list_head qnode;		/* in the queue's inflight list */
	bool hw_done;
	struct dma_fence *done;
	bool done_init;			/* dma_fence_init() ran on done */
};

#define to_asahi_job(j) container_of(j, struct asahi_job, base)

static const char *asahi_fence_driver_name(struct dma_fence *f)
{
	return "asahi";
}

static const char *asahi_fence_timeline_name(struct dma_fence *f)
{
	return "queue";
}

static const struct dma_fence_ops asahi_fence_ops = {
	.get_driver_name = asahi_fence_driver_name,
	.get_timeline_name = asahi_fence_timeline_name,
};

/* A part of the job finished (with error, if not 0) */
static void asahi_job_part_done(struct asahi_job_part *part, int error)
{
	struct asahi_job *job = part->job, *head;
	struct asahi_queue *q = job->queue;
	unsigned long flags;

	if (!error)
		error = part->error;
	if (error)
		dma_fence_set_error(job->done, error);
	if ((error == -EIO || error == -ETIMEDOUT) &&
	    READ_ONCE(lost_on_fault))
		WRITE_ONCE(q->lost, true);
	if (!atomic_dec_and_test(&job->parts_left))
		return;
	spin_lock_irqsave(&q->done_lock, flags);
	job->hw_done = true;
	while ((head = list_first_entry_or_null(&q->inflight,
						struct asahi_job, qnode)) &&
	       head->hw_done) {
		list_del_init(&head->qnode);
		dma_fence_signal(head->done);
	}
	spin_unlock_irqrestore(&q->done_lock, flags);
}

/*
 * Completes, in order, every job part whose last stamp was reached.  The
 * fences are signalled outside wq->lock: their callbacks wake the
 * scheduler and waiters on other CPUs, and run_job takes wq->lock to
 * queue the next parts.
 */
void asahi_wq_signal(struct asahi_wq *wq)
{
	struct asahi_job_part *part, *tmp;
	LIST_HEAD(done);
	u32 stamp;

	spin_lock(&wq->lock);
	stamp = asahi_stamp(wq->gpu, wq->slot);
	list_for_each_entry_safe(part, tmp, &wq->pending, node) {
		if ((s32)(stamp - part->last_value) < 0)
			break;
		list_del_init(&part->node);
		list_add_tail(&part->done_node, &done);
	}
	if (list_empty(&wq->pending))
		wake_up_all(&wq->idle);
	spin_unlock(&wq->lock);
	/* The last completion may free the queue and wq: wq is not touched */
	list_for_each_entry_safe(part, tmp, &done, done_node)
		asahi_job_part_done(part, 0);
}

/*
 * An error event: the commands up to value on wq fail with error when
 * they complete (ECANCELED for a fault in another VM's slot).
 */
void asahi_wq_mark_error(struct asahi_wq *wq, u32 value, int error,
			 int fault_vm_slot)
{
	struct asahi_job_part *part;

	spin_lock(&wq->lock);
	list_for_each_entry(part, &wq->pending, node) {
		if ((s32)(value - part->first_value) < 0)
			break;
		if (fault_vm_slot >= 0 &&
		    fault_vm_slot != part->job->queue->vm->mmu.slot)
			part->error = -ECANCELED;
		else
			part->error = error;
	}
	spin_unlock(&wq->lock);
}

u64 asahi_wq_info_va(struct asahi_wq *wq)
{
	return wq->info->va;
}

void asahi_wq_fail_all(struct asahi_wq *wq, int error)
{
	struct asahi_job_part *part, *tmp;

	spin_lock(&wq->lock);
	list_for_each_entry_safe(part, tmp, &wq->pending, node) {
		list_del_init(&part->node);
		asahi_job_part_done(part, error);
	}
	wake_up_all(&wq->idle);
	spin_unlock(&wq->lock);
}

static void asahi_wq_fini(struct asahi_wq *wq)
{
	struct asahi_device *adev = wq->queue->adev;
	struct asahi_gpu *gpu = wq->gpu;

	mutex_lock(&adev->gpu_lock);
	if (wq->slot) {
		spin_lock(&gpu->lock);
		gpu->slot_owner[wq->slot] = NULL;
		clear_bit(wq->slot, gpu->our_slots);
		spin_unlock(&gpu->lock);
	}
	asahi_obj_free(gpu, wq->blocks);
	asahi_obj_free(gpu, wq->ring);
	asahi_obj_free(gpu, wq->state);
	asahi_obj_free(gpu, wq->info);
	mutex_unlock(&adev->gpu_lock);
	kfree(wq);
}

/* QueueInfo, RingState, ring, GpuContextData, command pool; a slot */
static struct asahi_wq *asahi_wq_create(struct asahi_queue *q,
					unsigned int type)
{
	struct asahi_device *adev = q->adev;
	struct asahi_gpu *gpu = adev->gpu;
	struct asahi_wq *wq = kzalloc_obj(*wq);
	unsigned int slot = NUM_SLOTS;

	if (!wq)
		return ERR_PTR(-ENOMEM);
	wq->gpu = gpu;
	wq->queue = q;
	wq->type = type;
	wq->prio = q->prio;
	spin_lock_init(&wq->lock);
	INIT_LIST_HEAD(&wq->pending);
	init_waitqueue_head(&wq->idle);

	mutex_lock(&adev->gpu_lock);
	wq->info = asahi_obj_alloc(gpu, HEAP_PRIVATE, gpu->abi->qi_size,
				   UAT_PROT_FW_PRIV_RW);
	wq->state = asahi_obj_alloc(gpu, HEAP_SHARED, RS_SIZE,
				    UAT_PROT_FW_SHARED_RW);
	wq->ring = asahi_obj_alloc(gpu, HEAP_SHARED, WQ_SIZE * sizeof(u64),
				   UAT_PROT_FW_SHARED_RW);
	wq->blocks = asahi_obj_alloc(gpu, HEAP_PRIVATE,
				     WQ_BLOCKS * CMD_BLOCK_SIZE,
				     UAT_PROT_FW_PRIV_RW);
	if (!IS_ERR(wq->info) && !IS_ERR(wq->state) && !IS_ERR(wq->ring) &&
	    !IS_ERR(wq->blocks)) {
		spin_lock(&gpu->lock);
		slot = find_next_zero_bit(gpu->our_slots, NUM_SLOTS,
					  ASAHI_FIRST_QUEUE_SLOT);
		if (slot < NUM_SLOTS) {
			set_bit(slot, gpu->our_slots);
			gpu->slot_owner[slot] = wq;
			gpu->flag_stamp[slot] = 0;
			wq->slot = slot;
			/* The slot's stamps start at our first value */
			wr32_once(gpu->stamps->cpu, 4 * slot, 0);
			wr32_once(gpu->fw_stamps->cpu, 4 * slot, 0);
		}
		spin_unlock(&gpu->lock);
	}
	mutex_unlock(&adev->gpu_lock);
	if (slot >= NUM_SLOTS) {
		if (IS_ERR(wq->info))
			wq->info = NULL;
		if (IS_ERR(wq->state))
			wq->state = NULL;
		if (IS_ERR(wq->ring))
			wq->ring = NULL;
		if (IS_ERR(wq->blocks))
			wq->blocks = NULL;
		asahi_wq_fini(wq);
		return ERR_PTR(-EBUSY);
	}

	wr64(wq->info->cpu, QI_STATE, wq->state->va);
	wr64(wq->info->cpu, QI_RING, wq->ring->va);
	wr32(wq->info->cpu, QI_EVENT_ID, 0xffffffff);
	wr32(wq->info->cpu, QI_UUID, q->id);
	wr64(wq->info->cpu, gpu->abi->qi_gpu_context, q->ctx->va);
	wr32(wq->state->cpu, RS_RB_SIZE, WQ_SIZE);
	/* All of it is in memory before a command names it */
	wmb();
	return wq;
}

/* GpuContextData bytes the driver sets and DestroyContext reads back */
#define CTX_UNK_0		0x00
#define CTX_UNK_4		0x04
#define CTX_UNK_23		0x23

/* The work queues a job needs, made if they do not exist yet */
static int asahi_queue_get_wqs(struct asahi_queue *q, bool render,
			       bool compute)
{
	unsigned int type;
	int ret = 0;

	mutex_lock(&q->wq_lock);
	if (!q->ctx) {
		struct asahi_device *adev = q->adev;
		struct asahi_obj *ctx;

		mutex_lock(&adev->gpu_lock);
		ctx = asahi_obj_alloc(adev->gpu, HEAP_SHARED, CTX_SIZE,
				      UAT_PROT_FW_SHARED_RW);
		mutex_unlock(&adev->gpu_lock);
		if (IS_ERR(ctx)) {
			mutex_unlock(&q->wq_lock);
			return PTR_ERR(ctx);
		}
		/* GpuContextData defaults: unk_0 = unk_1 = 0xff, unk_23 = 2 */
		wr32(ctx->cpu, CTX_UNK_0, 0xffff);
		((u8 *)ctx->cpu)[CTX_UNK_23] = 2;
		q->ctx = ctx;
	}
	if (render && !q->buf) {
		struct asahi_device *adev = q->adev;
		struct asahi_buffer *buf;

		mutex_lock(&adev->gpu_lock);
		buf = asahi_buffer_create(adev->gpu);
		mutex_unlock(&adev->gpu_lock);
		if (IS_ERR(buf)) {
			mutex_unlock(&q->wq_lock);
			return PTR_ERR(buf);
		}
		q->buf = buf;
	}
	for (type = 0; type < NUM_WQS && !ret; type++) {
		struct asahi_wq *wq;

		if (q->wq[type] || (type == PIPE_COMPUTE ? !compute : !render))
			continue;
		wq = asahi_wq_create(q, type);
		if (IS_ERR(wq))
			ret = PTR_ERR(wq);
		else
			q->wq[type] = wq;
	}
	mutex_unlock(&q->wq_lock);
	return ret;
}

/* The next block of the work queue's pool, zeroed */
static void *asahi_wq_block(struct asahi_wq *wq, u64 *va)
{
	u32 block = wq->next_block++ % WQ_BLOCKS;
	void *blk = wq->blocks->cpu + block * CMD_BLOCK_SIZE;

	*va = wq->blocks->va + block * CMD_BLOCK_SIZE;
	memset(blk, 0, CMD_BLOCK_SIZE);
	return blk;
}

static void asahi_wq_append(struct asahi_wq *wq, u64 va)
{
	/* The record is in memory before the entry that names it */
	wmb();
	wr64_once(wq->ring->cpu, wq->wptr * sizeof(u64), va);
	wq->wptr = (wq->wptr + 1) % WQ_SIZE;
	wq->used = true;
}

/* A Barrier on wq: wait until on's firmware stamp reaches value */
static void asahi_wq_barrier(struct asahi_wq *wq, struct asahi_wq *on,
			     u32 value, u32 uuid, u32 type)
{
	struct asahi_gpu *gpu = wq->gpu;
	u64 va;
	void *blk = asahi_wq_block(wq, &va);

	wr32(blk, 0, CMD_BARRIER);
	wr64(blk, BAR_WAIT_STAMP, gpu->fw_stamps->va + 4 * on->slot);
	wr32(blk, BAR_WAIT_VALUE, value);
	wr32(blk, BAR_WAIT_SLOT, on->slot);
	wr32(blk, BAR_STAMP_SELF, wq->value + STAMP_STEP);
	wr32(blk, BAR_UNK, uuid);
	wr32(blk, BAR_TYPE, type);
	asahi_wq_append(wq, va);
}

/* JobMeta: the stamp the command retires with */
static void asahi_put_meta(struct asahi_wq *wq, void *meta, u32 value,
			   bool flush, u32 uuid)
{
	struct asahi_gpu *gpu = wq->gpu;

	wr64(meta, META_STAMP, gpu->stamps->va + 4 * wq->slot);
	wr64(meta, META_FW_STAMP, gpu->fw_stamps->va + 4 * wq->slot);
	wr32(meta, META_VALUE, value);
	wr32(meta, META_SLOT, wq->slot);
	wr32(meta, META_FLUSH_STAMPS, flush);
	wr32(meta, META_UUID, uuid);
	wr64(meta, META_EVENT_SEQ, wq->event_seq);
}

/* Timestamp op fields and the record's time slots */
#define TS_WORK_QUEUE		0x1c
#define TS_USER			0x24
#define REC_TS_PAIR		0x08	/* after cur_ts: kernel {start, end} */
#define REC_TS_USER		0x18	/* user {start, end} */
#define B_KERNEL_TS		0xf00	/* kernel timestamps in the block */
#define RC_CUR_TS		0x2b0
#define RV_CUR_TS		0x5b4
#define RF_CUR_TS		0x918

/* Does the stage (0: vertex or compute, 1: fragment) write timestamps? */
static bool asahi_cmd_ts(const struct asahi_cmd *cmd, unsigned int stage)
{
	return cmd->ts[2 * stage] || cmd->ts[2 * stage + 1];
}

/* The record's time slots, and one Timestamp op into useq at pos */
static u32 asahi_put_ts(struct asahi_wq *wq, const struct asahi_cmd *cmd,
			unsigned int stage, void *blk, u64 va, u32 cur,
			void *useq, u32 pos, bool start, u32 uuid)
{
	void *op = useq + pos;

	wr64(blk, cur + REC_TS_PAIR, va + B_KERNEL_TS);
	wr64(blk, cur + REC_TS_PAIR + 8, va + B_KERNEL_TS + 8);
	wr64(blk, cur + REC_TS_USER, cmd->ts_va[2 * stage]);
	wr64(blk, cur + REC_TS_USER + 8, cmd->ts_va[2 * stage + 1]);
	wr32(op, 0, OP_TIMESTAMP | (start ? OP_TIMESTAMP_START : 0));
	wr64(op, TS_CUR, va + cur);
	wr64(op, TS_PAIR, va + cur + REC_TS_PAIR);
	wr64(op, TS_UPDATE, va + cur + REC_TS_PAIR + (start ? 0 : 8));
	wr64(op, TS_WORK_QUEUE, wq->info->va);
	wr64(op, TS_USER, va + cur + REC_TS_USER);
	wr32(op, wq->gpu->abi->ts_uuid, uuid);
	return wq->gpu->abi->ts_size;
}

/* RunCompute and its microsequence */
static void asahi_wq_compute(struct asahi_wq *wq, struct asahi_job *job,
			     struct asahi_cmd *cmd, u32 uuid,
			     unsigned int vm_slot)
{
	const struct asahi_abi *a = wq->gpu->abi;
	u64 fw_stamp_va = wq->gpu->fw_stamps->va + 4 * wq->slot;
	u32 value = wq->value + STAMP_STEP, pos = 0, fc = a->fc_shift;
	u32 cur = TIME(a, PIPE_COMPUTE, RC_CUR_TS);
	u64 va;
	void *blk = asahi_wq_block(wq, &va);
	void *useq = blk + B_USEQ_OFF;

	wq->counter++;
	wq->event_seq++;
	wr32(useq, pos, OP_START_COMPUTE);
	wr64(useq, pos + SC_JOB_PARAMS1, va + R(a, RC_JOB_PARAMS1));
	wr64(useq, pos + SC_WORK_QUEUE, wq->info->va);
	wr32(useq, pos + SC_VM_SLOT, vm_slot);
	wr32(useq, pos + SC_UNK_28, 1);
	wr32(useq, pos + SC_EVENT_GEN, job->queue->id);
	wr64(useq, pos + SC_EVENT_SEQ, wq->event_seq);
	wr64(useq, pos + SC_JOB_PARAMS2, va + R(a, RC_JOB_PARAMS2));
	wr32(useq, pos + SC_UUID, uuid);
	if (a->v13)
		wr64(useq, pos + SC_COUNTER, wq->counter);
	pos += a->op_start[PIPE_COMPUTE];
	if (asahi_cmd_ts(cmd, 0))
		pos += asahi_put_ts(wq, cmd, 0, blk, va, cur, useq, pos,
				    true, uuid);
	wr32(useq, pos, OP_WAIT_COMPUTE);
	pos += 4;
	if (asahi_cmd_ts(cmd, 0))
		pos += asahi_put_ts(wq, cmd, 0, blk, va, cur, useq, pos,
				    false, uuid);
	wr32(useq, pos, OP_FINALIZE_COMPUTE);
	wr64(useq, pos + FC_WORK_QUEUE, wq->info->va);
	wr32(useq, pos + FC_VM_SLOT, vm_slot);
	wr64(useq, pos + FC_JOB_PARAMS2 + fc, va + R(a, RC_JOB_PARAMS2));
	wr32(useq, pos + FC_UUID + fc, uuid);
	wr64(useq, pos + FC_FW_STAMP + fc, fw_stamp_va);
	wr32(useq, pos + FC_VALUE + fc, value);
	/* Back to StartCompute, should the firmware restart the job */
	wr32(useq, pos + FC_RESTART + fc, -(s32)pos);
	pos += a->op_finalize[PIPE_COMPUTE];
	wr32(useq, pos, OP_RETIRE_STAMP);
	pos += 4;

	wr32(blk, 0, RC_TAG);
	if (a->v13)
		wr64(blk, RC_COUNTER, wq->counter);
	wr32(blk, a->run_vm_slot[PIPE_COMPUTE], vm_slot);
	wr64(blk, a->run_useq[PIPE_COMPUTE], va + B_USEQ_OFF);
	wr32(blk, a->run_useq[PIPE_COMPUTE] + 8, pos);
	asahi_params_compute(a, blk, &cmd->compute, job->queue->usc_exec_base);
	asahi_put_meta(wq, blk + a->run_meta[PIPE_COMPUTE], value, cmd->flush,
		       uuid);
	((u8 *)blk)[TIME(a, PIPE_COMPUTE, RC_CLIENT_SEQ)] =
		job->queue->id & 0xff;
	asahi_wq_append(wq, va);
	wq->value = value;
}

/* RunVertex: its fragment half will retire on frag with frag_value */
static void asahi_wq_vertex(struct asahi_wq *wq, struct asahi_job *job,
			    struct asahi_cmd *cmd, u32 uuid,
			    unsigned int vm_slot, struct asahi_wq *frag,
			    u32 frag_value)
{
	const struct asahi_abi *a = wq->gpu->abi;
	u64 fw_stamp_va = wq->gpu->fw_stamps->va + 4 * wq->slot;
	u32 value = wq->value + STAMP_STEP, pos = 0;
	u32 cur = TIME(a, PIPE_VERTEX, RV_CUR_TS);
	struct asahi_scene_va sv;
	u32 blocks;
	u64 va;
	void *blk = asahi_wq_block(wq, &va);
	void *useq = blk + B_USEQ_OFF;

	asahi_scene_va(cmd->scene, &sv);
	if (asahi_buffer_take_init(cmd->scene->buf, &blocks)) {
		/* The buffer's slot binding, before the job that uses it */
		void *ib = blk + B_INIT_BUFFER;

		wr32(ib, 0, CMD_INIT_BUFFER);
		wr32(ib, IB_VM_SLOT, vm_slot);
		wr32(ib, IB_BUFFER_SLOT, sv.slot);
		wr32(ib, IB_BLOCK_COUNT, blocks);
		wr64(ib, IB_BUFFER, sv.info);
		wr32(ib, IB_STAMP_VALUE, value);
		asahi_wq_append(wq, va + B_INIT_BUFFER);
	}
	wq->counter++;
	wq->event_seq++;
	wr32(useq, pos, OP_START_VERTEX);
	wr64(useq, pos + SV_TILING_PARAMS, va + R(a, RV_TILING_PARAMS));
	wr64(useq, pos + SV_JOB_PARAMS1, va + R(a, RV_JOB_PARAMS1));
	wr64(useq, pos + SV_BUFFER, sv.info);
	wr64(useq, pos + SV_SCENE, sv.scene);
	wr64(useq, pos + SV_WORK_QUEUE, wq->info->va);
	wr32(useq, pos + SV_VM_SLOT, vm_slot);
	wr32(useq, pos + SV_BUFFER_SLOT, sv.slot);
	wr32(useq, pos + SV_UNK_38, 1);
	wr32(useq, pos + SV_EVENT_GEN, job->queue->id);
	wr64(useq, pos + SV_EVENT_SEQ, wq->event_seq);
	wr32(useq, pos + SV_UUID, uuid);
	if (a->v13) {
		wr64(useq, pos + SV_COUNTER, wq->counter);
		/* One cluster: no vertex clustering */
		wr32(useq, pos + SV_UNK_178, 1);
	}
	pos += a->op_start[PIPE_VERTEX];
	if (asahi_cmd_ts(cmd, 0))
		pos += asahi_put_ts(wq, cmd, 0, blk, va, cur, useq, pos,
				    true, uuid);
	wr32(useq, pos, OP_WAIT_VERTEX);
	pos += 4;
	if (asahi_cmd_ts(cmd, 0))
		pos += asahi_put_ts(wq, cmd, 0, blk, va, cur, useq, pos,
				    false, uuid);
	wr32(useq, pos, OP_FINALIZE_VERTEX);
	wr64(useq, pos + FV_SCENE, sv.scene);
	wr64(useq, pos + FV_BUFFER, sv.info);
	wr64(useq, pos + FV_WORK_QUEUE, wq->info->va);
	wr32(useq, pos + FV_VM_SLOT, vm_slot);
	wr32(useq, pos + FV_UUID, uuid);
	wr64(useq, pos + FV_FW_STAMP, fw_stamp_va);
	wr32(useq, pos + FV_VALUE, value);
	wr32(useq, pos + FV_RESTART, -(s32)pos);
	pos += a->op_finalize[PIPE_VERTEX];
	wr32(useq, pos, OP_RETIRE_STAMP);
	pos += 4;

	wr32(blk, 0, RV_TAG);
	if (a->v13)
		wr64(blk, RV_COUNTER, wq->counter);
	wr32(blk, a->run_vm_slot[PIPE_VERTEX], vm_slot);
	wr64(blk, a->run_useq[PIPE_VERTEX], va + B_USEQ_OFF);
	wr32(blk, a->run_useq[PIPE_VERTEX] + 8, pos);
	wr32(blk, R(a, RV_FRAG_STAMP_SLOT), frag->slot);
	wr32(blk, R(a, RV_FRAG_STAMP_VALUE), frag_value);
	asahi_params_vertex(a, blk, &cmd->render, job->queue->usc_exec_base,
			    wq->gpu->priv->core_mask);
	asahi_params_scene_vertex(a, blk, &sv);
	asahi_put_meta(wq, blk + a->run_meta[PIPE_VERTEX], value, cmd->flush,
		       uuid);
	((u8 *)blk)[TIME(a, PIPE_VERTEX, RV_CLIENT_SEQ)] =
		job->queue->id & 0xff;
	asahi_wq_append(wq, va);
	wq->value = value;
}

/* RunFragment, behind its Barrier on the vertex half */
static void asahi_wq_fragment(struct asahi_wq *wq, struct asahi_job *job,
			      struct asahi_cmd *cmd, u32 uuid,
			      unsigned int vm_slot)
{
	const struct asahi_abi *a = wq->gpu->abi;
	u64 fw_stamp_va = wq->gpu->fw_stamps->va + 4 * wq->slot;
	u32 value = wq->value + STAMP_STEP, pos = 0;
	u32 cur = TIME(a, PIPE_FRAGMENT, RF_CUR_TS);
	struct asahi_scene_va sv;
	u64 va;
	void *blk = asahi_wq_block(wq, &va);
	void *useq = blk + B_USEQ_OFF;

	asahi_scene_va(cmd->scene, &sv);
	wq->counter++;
	wq->event_seq++;
	wr32(useq, pos, OP_START_FRAGMENT);
	wr64(useq, pos + SF_JOB_PARAMS2, va + R(a, RF_JOB_PARAMS2));
	wr64(useq, pos + SF_JOB_PARAMS1, va + R(a, RF_JOB_PARAMS1));
	wr64(useq, pos + SF_SCENE, sv.scene);
	wr64(useq, pos + SF_WORK_QUEUE, wq->info->va);
	wr64(useq, pos + SF_WORK_ITEM, va);
	wr32(useq, pos + SF_VM_SLOT, vm_slot);
	wr32(useq, pos + SF_UNK_50, 1);
	wr32(useq, pos + SF_EVENT_GEN, job->queue->id);
	wr32(useq, pos + SF_BUFFER_SLOT, sv.slot);
	wr64(useq, pos + SF_EVENT_SEQ, wq->event_seq);
	wr32(useq, pos + SF_UUID - a->sf_shift, uuid);
	if (a->v13)
		wr64(useq, pos + SF_COUNTER, wq->counter);
	pos += a->op_start[PIPE_FRAGMENT];
	if (asahi_cmd_ts(cmd, 1))
		pos += asahi_put_ts(wq, cmd, 1, blk, va, cur, useq, pos,
				    true, uuid);
	wr32(useq, pos, OP_WAIT_FRAGMENT);
	pos += 4;
	if (asahi_cmd_ts(cmd, 1))
		pos += asahi_put_ts(wq, cmd, 1, blk, va, cur, useq, pos,
				    false, uuid);
	wr32(useq, pos, OP_FINALIZE_FRAGMENT);
	wr32(useq, pos + FF_UUID, uuid);
	wr64(useq, pos + FF_FW_STAMP, fw_stamp_va);
	wr32(useq, pos + FF_VALUE, value);
	wr64(useq, pos + FF_SCENE, sv.scene);
	wr64(useq, pos + FF_BUFFER, sv.info);
	wr64(useq, pos + FF_WORK_QUEUE, wq->info->va);
	wr64(useq, pos + FF_WORK_ITEM, va);
	wr32(useq, pos + FF_VM_SLOT, vm_slot);
	wr32(useq, pos + FF_RESTART - a->ff_shift, -(s32)pos);
	pos += a->op_finalize[PIPE_FRAGMENT];
	wr32(useq, pos, OP_RETIRE_STAMP);
	pos += 4;

	wr32(blk, 0, RF_TAG);
	if (a->v13)
		wr64(blk, RF_COUNTER, wq->counter);
	wr32(blk, a->run_vm_slot[PIPE_FRAGMENT], vm_slot);
	wr64(blk, a->run_useq[PIPE_FRAGMENT], va + B_USEQ_OFF);
	wr32(blk, a->run_useq[PIPE_FRAGMENT] + 8, pos);
	asahi_params_fragment(a, blk, &cmd->render, job->queue->usc_exec_base);
	asahi_params_scene_fragment(a, blk, &sv);
	asahi_put_meta(wq, blk + a->run_meta[PIPE_FRAGMENT], value,
		       cmd->flush, uuid);
	((u8 *)blk)[TIME(a, PIPE_FRAGMENT, RF_CLIENT_SEQ)] =
		job->queue->id & 0xff;
	asahi_wq_append(wq, va);
	wq->value = value;
}

/* Announces what was appended to wq: RunWorkQueue, then the doorbell */
static int asahi_wq_kick(struct asahi_wq *wq)
{
	struct asahi_gpu *gpu = wq->gpu;
	unsigned int channel = PIPE_CHANNEL(wq->type, wq->prio);
	u8 msg[PIPE_MSG_SIZE] = { 0 };
	int ret;

	/* Entries before the write pointer that publishes them */
	wmb();
	wr32_once(wq->state->cpu, RS_CPU_WPTR, wq->wptr);
	wr32(msg, RWQ_PIPE_TYPE, wq->type);
	wr64(msg, RWQ_QUEUE, wq->info->va);
	wr32(msg, RWQ_WPTR, wq->wptr);
	wr32(msg, RWQ_SLOT, wq->slot);
	msg[RWQ_IS_NEW] = !wq->kicked;
	wq->kicked = true;
	ret = asahi_ring_tx(gpu, &gpu->pipes[channel], msg);
	if (!ret)
		ret = asahi_doorbell(gpu, channel);
	return ret;
}

/* The subqueue's state now: none if its work queue never ran anything */
static struct asahi_event asahi_event_now(struct asahi_wq *wq)
{
	if (!wq || !wq->used)
		return (struct asahi_event){ NULL, 0 };
	return (struct asahi_event){ wq, wq->value };
}

/*
 * Turns the job's commands into firmware records on the work queues,
 * explicit barriers first, and kicks fragment, vertex, compute.
 */
static int asahi_queue_run(struct asahi_queue *q, struct asahi_job *job)
{
	struct asahi_wq *vtx = q->wq[PIPE_VERTEX], *frag = q->wq[PIPE_FRAGMENT];
	struct asahi_wq *comp = q->wq[PIPE_COMPUTE];
	struct asahi_event **ev = job->ev;
	unsigned int n[2] = { 0, 0 }, vm_slot = q->vm->mmu.slot, i, t;
	u32 first[NUM_WQS];
	struct asahi_gpu *gpu = q->adev->gpu;
	int ret = 0;

	mutex_lock(&gpu->tx_lock);
	for (t = 0; t < NUM_WQS; t++)
		first[t] = q->wq[t] ? q->wq[t]->value : 0;
	ev[0][0] = asahi_event_now(frag);
	ev[1][0] = asahi_event_now(comp);
	for (i = 0; i < job->ncmds; i++) {
		struct asahi_cmd *cmd = &job->cmds[i];
		bool render = cmd->type == DRM_ASAHI_CMD_RENDER;
		struct asahi_wq *first = render ? vtx : comp;
		u32 uuid = q->id << 16 | (i & 0xffff);
		u16 barrier[2] = { cmd->vdm_barrier, cmd->cdm_barrier };

		for (t = 0; t < 2; t++) {
			struct asahi_event e;

			if (barrier[t] == DRM_ASAHI_BARRIER_NONE)
				continue;
			e = ev[t][barrier[t]];
			if (e.wq)
				asahi_wq_barrier(first, e.wq, e.value,
						 BAR_UUID_EXPLICIT, 1);
		}
		if (render) {
			u32 vtx_value = vtx->value + STAMP_STEP;

			asahi_wq_vertex(vtx, job, cmd, uuid, vm_slot, frag,
					frag->value + STAMP_STEP);
			asahi_wq_barrier(frag, vtx, vtx_value, uuid, 0);
			asahi_wq_fragment(frag, job, cmd, uuid, vm_slot);
			asahi_buffer_increment(cmd->scene->buf);
			ev[0][++n[0]] = asahi_event_now(frag);
		} else {
			asahi_wq_compute(comp, job, cmd, uuid, vm_slot);
			ev[1][++n[1]] = asahi_event_now(comp);
		}
	}

	/* Track each touched work queue's last value, then kick */
	for (t = 0; t < NUM_WQS; t++) {
		struct asahi_job_part *part = &job->parts[t];

		if (!part->queued)
			continue;
		part->last_value = q->wq[t]->value;
		part->first_value = first[t] + STAMP_STEP;
		spin_lock(&q->wq[t]->lock);
		list_add_tail(&part->node, &q->wq[t]->pending);
		spin_unlock(&q->wq[t]->lock);
	}
	for (t = PIPE_FRAGMENT; ; t = t == PIPE_FRAGMENT ? PIPE_VERTEX :
	     PIPE_COMPUTE) {
		if (job->parts[t].queued && !ret)
			ret = asahi_wq_kick(q->wq[t]);
		if (t == PIPE_COMPUTE)
			break;
	}
	mutex_unlock(&gpu->tx_lock);
	return ret;
}

static struct dma_fence *asahi_run_job(struct drm_sched_job *sched_job)
{
	struct asahi_job *job = to_asahi_job(sched_job);
	struct asahi_queue *q = job->queue;
	struct asahi_fence *fence;
	unsigned int t;
	bool crashed;
	int ret;

	spin_lock(&q->adev->lock);
	crashed = q->adev->crashed;
	spin_unlock(&q->adev->lock);
	if (crashed)
		return ERR_PTR(-ENODEV);
	if (sched_job->s_fence->finished.error)
		return NULL;

	/* Allocated at submit: nothing allocates here */
	fence = container_of(job->done, struct asahi_fence, base);
	spin_lock_init(&fence->lock);
	dma_fence_init(&fence->base, &asahi_fence_ops, &fence->lock,
		       q->fence_ctx, ++q->fence_seqno);
	job->done_init = true;
	/* Ours until free_job, and the scheduler's */
	dma_fence_get(&fence->base);
	spin_lock_irq(&q->done_lock);
	list_add_tail(&job->qnode, &q->inflight);
	spin_unlock_irq(&q->done_lock);
	ret = asahi_queue_run(q, job);
	/* The firmware crashed while we kicked it: what a crash means */
	if (ret && apple_rtkit_is_crashed(q->adev->rtk))
		ret = -ENODEV;
	if (ret) {
		for (t = 0; t < NUM_WQS; t++) {
			struct asahi_job_part *part = &job->parts[t];
			struct asahi_wq *wq = q->wq[t];

			if (!part->queued)
				continue;
			spin_lock(&wq->lock);
			if (!list_empty(&part->node)) {
				list_del_init(&part->node);
				asahi_job_part_done(part, ret);
			}
			spin_unlock(&wq->lock);
		}
	}
	return &fence->base;
}

static enum drm_gpu_sched_stat asahi_timedout_job(struct drm_sched_job *job)
{
	struct asahi_job *ajob = to_asahi_job(job);

	dev_err(ajob->queue->adev->dev,
		"Job timed out on the DRM scheduler, things will probably break\n");
	return DRM_GPU_SCHED_STAT_ENODEV;
}

static void asahi_queue_put(struct asahi_queue *q);

static void asahi_job_free(struct asahi_job *job)
{
	unsigned int i, t;

	if (job->vm_bound)
		asahi_mmu_unbind_slot(&job->queue->vm->mmu);
	/* Never initialised: the fence is just memory */
	if (job->done_init)
		dma_fence_put(job->done);
	else
		kfree(container_of(job->done, struct asahi_fence, base));
	for (i = 0; job->cmds && i < job->ncmds; i++) {
		for (t = 0; t < NUM_TS; t++)
			asahi_ts_obj_put(job->cmds[i].ts[t]);
		if (job->cmds[i].scene) {
			struct asahi_device *adev = job->queue->adev;

			mutex_lock(&adev->gpu_lock);
			asahi_scene_put(job->cmds[i].scene);
			mutex_unlock(&adev->gpu_lock);
		}
	}
	kfree(job->cmds);
	kfree(job->ev[0]);
	kfree(job->ev[1]);
	asahi_queue_put(job->queue);
	kfree(job);
}

static void asahi_free_job(struct drm_sched_job *sched_job)
{
	struct asahi_job *job = to_asahi_job(sched_job);

	drm_sched_job_cleanup(sched_job);
	asahi_job_free(job);
}

static const struct drm_sched_backend_ops asahi_sched_ops = {
	.run_job = asahi_run_job,
	.timedout_job = asahi_timedout_job,
	.free_job = asahi_free_job,
};

/* The last reference: wait for the firmware, then free (process context) */
/* DeviceControl DestroyContext (13.3 dropped its padding) */
#define DC_DESTROY_CONTEXT(a)	((a)->v13 ? 0x18 : 0x17)
#define DCX_CTX_23		0x08
#define DCX_CTX_0(a)		((a)->v13 ? 0x11 : 0x14)
#define DCX_GPU_CONTEXT(a)	((a)->v13 ? 0x14 : 0x1c)
#define DESTROY_CONTEXT_MS	1000

/*
 * The queue's work is over: tell the firmware its context is gone
 * ({ctx_23, ctx_0, ctx_1, ctx_4} read back from the context, its VA),
 * wait up to a second for it to take the message, then free the context
 */
static void asahi_queue_destroy_context(struct asahi_queue *q)
{
	struct asahi_device *adev = q->adev;
	struct asahi_gpu *gpu = adev->gpu;
	const struct asahi_abi *a = gpu->abi;
	const u8 *ctx = q->ctx->cpu;
	u8 msg[DEVCTRL_MSG_SIZE] = { 0 };
	struct asahi_ring *r = &gpu->devctrl;
	unsigned long timeout;
	bool crashed;
	u32 pos;
	int ret;

	spin_lock(&adev->lock);
	crashed = adev->crashed;
	spin_unlock(&adev->lock);
	if (!crashed) {
		wr32(msg, 0, DC_DESTROY_CONTEXT(a));
		msg[DCX_CTX_23] = ctx[CTX_UNK_23];
		msg[DCX_CTX_0(a)] = ctx[CTX_UNK_0];
		msg[DCX_CTX_0(a) + 1] = ctx[CTX_UNK_0 + 1];
		msg[DCX_CTX_0(a) + 2] = ctx[CTX_UNK_4];
		wr64(msg, DCX_GPU_CONTEXT(a), q->ctx->va);
		mutex_lock(&gpu->tx_lock);
		ret = asahi_ring_tx(gpu, r, msg);
		pos = r->ptr;
		if (!ret)
			ret = asahi_doorbell(gpu, DOORBELL_DEVCTRL);
		/* Nobody else sends meanwhile: the read pointer reaches ours */
		timeout = jiffies + msecs_to_jiffies(DESTROY_CONTEXT_MS);
		while (!ret && rd32_once(r->state, CH_RPTR) != pos) {
			if (time_after(jiffies, timeout)) {
				ret = -ETIMEDOUT;
				break;
			}
			wait_event_timeout(gpu->wait,
					   rd32_once(r->state, CH_RPTR) == pos,
					   msecs_to_jiffies(10));
		}
		mutex_unlock(&gpu->tx_lock);
		if (ret)
			dev_err(adev->dev, "queue %u: DestroyContext failed: %d\n",
				q->id, ret);
	}
	mutex_lock(&adev->gpu_lock);
	asahi_obj_free(gpu, q->ctx);
	mutex_unlock(&adev->gpu_lock);
	q->ctx = NULL;
}

static void asahi_queue_free_work(struct work_struct *work)
{
	struct asahi_queue *q = container_of(work, struct asahi_queue,
					     free_work);

	unsigned int t;

	if (q->sched_ready)
		drm_sched_fini(&q->sched);
	for (t = 0; t < NUM_WQS; t++) {
		struct asahi_wq *wq = q->wq[t];

		if (!wq)
			continue;
		/* Work handed to the firmware is never aborted */
		if (!wait_event_timeout(wq->idle, list_empty(&wq->pending),
					msecs_to_jiffies(asahi_wait_ms)))
			dev_err(q->adev->dev, "queue %u: firmware work left\n",
				q->id);
		asahi_wq_fini(wq);
	}
	if (q->buf) {
		mutex_lock(&q->adev->gpu_lock);
		asahi_buffer_free(q->buf);
		mutex_unlock(&q->adev->gpu_lock);
	}
	if (q->ctx)
		asahi_queue_destroy_context(q);
	mutex_destroy(&q->wq_lock);
	mutex_destroy(&q->submit_lock);
	asahi_vm_put(q->vm);
	kfree(q);
}

static void asahi_queue_release(struct kref *ref)
{
	struct asahi_queue *q = container_of(ref, struct asahi_queue, ref);

	/* free_job may drop the last reference from the scheduler's wq */
	schedule_work(&q->free_work);
}

static void asahi_queue_put(struct asahi_queue *q)
{
	kref_put(&q->ref, asahi_queue_release);
}

/* Stops taking jobs (queued ones are flushed or killed) and lets go */
static void asahi_queue_destroy(struct asahi_queue *q)
{
	mutex_lock(&q->submit_lock);
	q->dead = true;
	mutex_unlock(&q->submit_lock);
	if (q->entity_ready)
		drm_sched_entity_destroy(&q->entity);
	asahi_queue_put(q);
}

int asahi_ioctl_queue_create(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct asahi_device *adev = to_asahi_device(drm);
	struct asahi_file *afile = file->driver_priv;
	struct drm_asahi_queue_create *args = data;
	struct drm_sched_init_args sargs = {
		.ops = &asahi_sched_ops,
		.num_rqs = 1,
		.credit_limit = WQ_BLOCKS,
		.hang_limit = 0,
		.timeout = msecs_to_jiffies(ASAHI_JOB_TIMEOUT_MS),
		.name = "asahi_sched",
		.dev = adev->dev,
	};
	struct drm_gpu_scheduler *sched;
	struct asahi_queue *q;
	struct asahi_vm *vm;
	u32 id;
	int ret;

	if (args->flags || args->priority > DRM_ASAHI_PRIORITY_REALTIME)
		return -EINVAL;
	/* drm/asahi: "TODO: Allow with CAP_SYS_NICE" */
	if (args->priority >= DRM_ASAHI_PRIORITY_HIGH)
		return -EINVAL;
	vm = asahi_vm_lookup(afile, args->vm_id);
	if (!vm)
		return -ENOENT;

	q = kzalloc_obj(*q);
	if (!q) {
		asahi_vm_put(vm);
		return -ENOMEM;
	}
	sargs.submit_wq = adev->sched_wq;
	q->adev = adev;
	kref_init(&q->ref);
	INIT_WORK(&q->free_work, asahi_queue_free_work);
	q->vm = vm;
	q->id = atomic_inc_return(&adev->queue_ids);
	q->usc_exec_base = args->usc_exec_base;
	q->fence_ctx = dma_fence_context_alloc(1);

	/* Firmware priority 3 - UAPI priority picks the pipe channel */
	q->prio = 3 - args->priority;
	mutex_init(&q->submit_lock);
	mutex_init(&q->wq_lock);
	spin_lock_init(&q->done_lock);
	INIT_LIST_HEAD(&q->inflight);
	ret = drm_sched_init(&q->sched, &sargs);
	if (ret)
		goto err;
	q->sched_ready = true;
	sched = &q->sched;
	ret = drm_sched_entity_init(&q->entity, DRM_SCHED_PRIORITY_KERNEL,
				    &sched, 1, NULL);
	if (ret)
		goto err;
	q->entity_ready = true;
	ret = xa_alloc(&afile->queues, &id, q, xa_limit_32b, GFP_KERNEL);
	if (ret)
		goto err;
	args->queue_id = id;
	return 0;
err:
	asahi_queue_destroy(q);
	return ret;
}

int asahi_ioctl_queue_destroy(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct asahi_file *afile = file->driver_priv;
	struct drm_asahi_queue_destroy *args = data;
	struct asahi_queue *q = xa_erase(&afile->queues, args->queue_id);

	if (!q)
		return -ENOENT;
	asahi_queue_destroy(q);
	return 0;
}

void asahi_queues_release(struct asahi_file *afile)
{
	struct asahi_queue *q;
	unsigned long id;

	xa_for_each(&afile->queues, id, q)
		asahi_queue_destroy(q);
}

/* Out-syncs: what to attach the finished fence to */
struct asahi_out_sync {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	u64 point;
};

static void asahi_out_syncs_free(struct asahi_out_sync *out, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (out[i].syncobj)
			drm_syncobj_put(out[i].syncobj);
		dma_fence_chain_free(out[i].chain);
	}
	kfree(out);
}

/* A timestamp of a command: its object (held) and firmware VA */
static int asahi_get_ts(struct asahi_file *afile, struct asahi_cmd *cmd,
			unsigned int i, const struct drm_asahi_timestamp *t)
{
	struct asahi_ts_obj *ts;

	if (!t->handle)
		return 0;
	ts = asahi_ts_obj_lookup(afile, t->handle);
	if (!ts)
		return -ENOENT;
	cmd->ts[i] = ts;
	if ((u64)t->offset + 8 > ts->size)
		return -ERANGE;
	cmd->ts_va[i] = ts->va + t->offset;
	return 0;
}

/* The render command checks of drm/asahi */
static int asahi_check_render(const struct drm_asahi_cmd_render *r)
{
	u32 uw = r->utile_width_px, uh = r->utile_height_px;

	if (r->flags & ~(DRM_ASAHI_RENDER_VERTEX_SCRATCH |
			 DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES |
			 DRM_ASAHI_RENDER_NO_VERTEX_CLUSTERING |
			 DRM_ASAHI_RENDER_DBIAS_IS_INT))
		return -EINVAL;
	if (!r->width_px || r->width_px > 16384 || !r->height_px ||
	    r->height_px > 16384 || !r->layers || r->layers > 2048)
		return -EINVAL;
	if (!((uw == 32 && uh == 32) || (uw == 32 && uh == 16) ||
	      (uw == 16 && uh == 16)))
		return -EINVAL;
	if (r->samples != 1 && r->samples != 2 && r->samples != 4)
		return -EINVAL;
	return 0;
}

/*
 * The command stream, into cmds (NULL: count only, into *ncmds).  Pass
 * one counts and finds the last render and compute commands; pass two
 * checks barriers, attachments and each command, and copies them.
 */
static int asahi_parse(struct asahi_file *afile, const u8 *buf, u32 size,
		       struct asahi_cmd *cmds, u32 *ncmds)
{
	u32 pos = 0, n[2] = { 0, 0 }, done[2] = { 0, 0 }, last[2] = { 0, 0 };
	struct drm_asahi_cmd_header hdr;
	u32 c = 0;
	int ret;

	while (pos < size) {
		if (size - pos < sizeof(hdr))
			return -EINVAL;
		memcpy(&hdr, buf + pos, sizeof(hdr));
		pos += sizeof(hdr);
		if (size - pos < hdr.size)
			return -EINVAL;
		switch (hdr.cmd_type) {
		case DRM_ASAHI_CMD_RENDER:
		case DRM_ASAHI_CMD_COMPUTE:
			last[hdr.cmd_type] = n[hdr.cmd_type]++;
			break;
		case DRM_ASAHI_SET_VERTEX_ATTACHMENTS:
		case DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS:
		case DRM_ASAHI_SET_COMPUTE_ATTACHMENTS:
			break;
		default:
			return -EINVAL;
		}
		pos += hdr.size;
	}
	if (!(n[0] + n[1]) || n[0] + n[1] > ASAHI_MAX_COMMANDS)
		return -EINVAL;
	if (!cmds) {
		*ncmds = n[0] + n[1];
		return 0;
	}

	for (pos = 0; pos < size; pos += hdr.size) {
		bool attach;
		u32 i, na;

		memcpy(&hdr, buf + pos, sizeof(hdr));
		pos += sizeof(hdr);
		attach = hdr.cmd_type >= DRM_ASAHI_SET_VERTEX_ATTACHMENTS;
		/* events[s][n]: 0 = before this submit, n = after command n */
		if (hdr.vdm_barrier != DRM_ASAHI_BARRIER_NONE &&
		    (hdr.vdm_barrier > done[0] || attach))
			return -EINVAL;
		if (hdr.cdm_barrier != DRM_ASAHI_BARRIER_NONE &&
		    (hdr.cdm_barrier > done[1] || attach))
			return -EINVAL;
		if (attach) {
			na = hdr.size / sizeof(struct drm_asahi_attachment);
			if (na > ASAHI_MAX_ATTACHMENTS)
				return -EINVAL;
			for (i = 0; i < na; i++) {
				struct drm_asahi_attachment a;

				memcpy(&a, buf + pos + i * sizeof(a),
				       sizeof(a));
				if (a.flags || a.pad)
					return -EINVAL;
			}
			continue;
		}

		cmds[c].type = hdr.cmd_type;
		cmds[c].vdm_barrier = hdr.vdm_barrier;
		cmds[c].cdm_barrier = hdr.cdm_barrier;
		cmds[c].flush = done[hdr.cmd_type] == last[hdr.cmd_type];
		/* Read up to size: shorter payloads are zero-extended */
		if (hdr.cmd_type == DRM_ASAHI_CMD_RENDER) {
			memcpy(&cmds[c].render, buf + pos,
			       min_t(u32, hdr.size, sizeof(cmds[c].render)));
			struct drm_asahi_cmd_render *r = &cmds[c].render;

			ret = asahi_check_render(r);
			if (!ret)
				ret = asahi_get_ts(afile, &cmds[c], TS_VTX_START,
						   &r->ts_vtx.start);
			if (!ret)
				ret = asahi_get_ts(afile, &cmds[c], TS_VTX_END,
						   &r->ts_vtx.end);
			if (!ret)
				ret = asahi_get_ts(afile, &cmds[c],
						   TS_FRAG_START,
						   &r->ts_frag.start);
			if (!ret)
				ret = asahi_get_ts(afile, &cmds[c], TS_FRAG_END,
						   &r->ts_frag.end);
			if (ret)
				return ret;
		} else {
			struct drm_asahi_cmd_compute *cc = &cmds[c].compute;

			memcpy(cc, buf + pos, min_t(u32, hdr.size, sizeof(*cc)));
			if (cc->flags)
				return -EINVAL;
			ret = asahi_get_ts(afile, &cmds[c], TS_VTX_START,
					   &cc->ts.start);
			if (!ret)
				ret = asahi_get_ts(afile, &cmds[c], TS_VTX_END,
						   &cc->ts.end);
			if (ret)
				return ret;
		}
		done[hdr.cmd_type]++;
		c++;
	}
	return 0;
}

int asahi_ioctl_submit(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct asahi_device *adev = to_asahi_device(drm);
	struct asahi_file *afile = file->driver_priv;
	struct drm_asahi_submit *args = data;
	struct asahi_out_sync *out = NULL;
	struct drm_asahi_sync *syncs = NULL;
	struct asahi_job *job = NULL;
	struct asahi_fence *fence;
	struct dma_fence *finished;
	u32 nsyncs, ncmds = 0, credits = 0, i;
	bool render = false, compute = false;
	struct asahi_queue *q;
	bool crashed;
	u8 *buf = NULL;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	xa_lock(&afile->queues);
	q = xa_load(&afile->queues, args->queue_id);
	if (q)
		kref_get(&q->ref);
	xa_unlock(&afile->queues);
	if (!q)
		return -ENOENT;

	nsyncs = args->in_sync_count + args->out_sync_count;
	if (nsyncs < args->in_sync_count || nsyncs > 1024 ||
	    args->cmdbuf_size > ASAHI_CMDBUF_MAX) {
		ret = -EINVAL;
		goto out;
	}
	syncs = kvmalloc_array(nsyncs, sizeof(*syncs), GFP_KERNEL);
	buf = kvmalloc(args->cmdbuf_size ?: 1, GFP_KERNEL);
	out = kzalloc_objs(*out, args->out_sync_count ?: 1);
	if (!syncs || !buf || !out) {
		ret = -ENOMEM;
		goto out;
	}
	if (copy_from_user(syncs, u64_to_user_ptr(args->syncs),
			   nsyncs * sizeof(*syncs)) ||
	    copy_from_user(buf, u64_to_user_ptr(args->cmdbuf),
			   args->cmdbuf_size)) {
		ret = -EFAULT;
		goto out;
	}
	spin_lock(&adev->lock);
	crashed = adev->crashed;
	spin_unlock(&adev->lock);
	if (crashed) {
		ret = -ENODEV;
		goto out;
	}
	if (READ_ONCE(q->lost)) {
		ret = -ECANCELED;
		goto out;
	}
	for (i = 0; i < nsyncs; i++) {
		if (syncs[i].sync_type > DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ ||
		    (syncs[i].sync_type == DRM_ASAHI_SYNC_SYNCOBJ &&
		     syncs[i].timeline_value)) {
			ret = -EINVAL;
			goto out;
		}
	}
	ret = asahi_parse(afile, buf, args->cmdbuf_size, NULL, &ncmds);
	if (ret)
		goto out;

	job = kzalloc_obj(*job);
	if (!job) {
		ret = -ENOMEM;
		goto out;
	}
	job->queue = q;
	kref_get(&q->ref);
	INIT_LIST_HEAD(&job->qnode);
	for (i = 0; i < NUM_WQS; i++) {
		INIT_LIST_HEAD(&job->parts[i].node);
		job->parts[i].job = job;
	}
	job->cmds = kzalloc_objs(*job->cmds, ncmds);
	job->ev[0] = kzalloc_objs(*job->ev[0], ncmds + 1);
	job->ev[1] = kzalloc_objs(*job->ev[1], ncmds + 1);
	fence = kzalloc_obj(*fence);
	job->done = fence ? &fence->base : NULL;
	if (!job->cmds || !job->ev[0] || !job->ev[1] || !job->done) {
		ret = -ENOMEM;
		goto out_job;
	}
	/* From here on job free drops the timestamp objects it took */
	job->ncmds = ncmds;
	ret = asahi_parse(afile, buf, args->cmdbuf_size, job->cmds, &ncmds);
	if (ret)
		goto out_job;
	for (i = 0; i < ncmds; i++) {
		if (job->cmds[i].type == DRM_ASAHI_CMD_RENDER) {
			render = true;
			job->parts[PIPE_VERTEX].queued = true;
			job->parts[PIPE_FRAGMENT].queued = true;
			/*
			 * Vertex, fragment and its barrier, explicit ones,
			 * an InitBuffer
			 */
			credits += 6;
		} else {
			compute = true;
			job->parts[PIPE_COMPUTE].queued = true;
			credits += 3;
		}
	}
	for (i = 0; i < NUM_WQS; i++)
		atomic_add(job->parts[i].queued, &job->parts_left);
	ret = asahi_queue_get_wqs(q, render, compute);
	if (ret)
		goto out_job;

	mutex_lock(&q->submit_lock);
	if (q->dead) {
		/* Destroyed since we looked it up */
		mutex_unlock(&q->submit_lock);
		ret = -ENOENT;
		goto out_job;
	}
	/* Scenes in submission order: InitBuffer goes with the first */
	for (i = 0; i < ncmds && !ret; i++) {
		struct asahi_cmd *cmd = &job->cmds[i];
		struct asahi_scene *scene;

		if (cmd->type != DRM_ASAHI_CMD_RENDER)
			continue;
		mutex_lock(&adev->gpu_lock);
		scene = asahi_scene_get(q->buf, &cmd->render);
		mutex_unlock(&adev->gpu_lock);
		if (IS_ERR(scene))
			ret = PTR_ERR(scene);
		else
			cmd->scene = scene;
	}
	if (ret) {
		mutex_unlock(&q->submit_lock);
		goto out_job;
	}
	ret = drm_sched_job_init(&job->base, &q->entity, credits, q,
				 file->client_id);
	if (ret) {
		mutex_unlock(&q->submit_lock);
		goto out_job;
	}
	for (i = 0; i < args->in_sync_count; i++) {
		ret = drm_sched_job_add_syncobj_dependency(&job->base, file,
							   syncs[i].handle,
							   syncs[i].timeline_value);
		if (ret)
			goto out_sched;
	}
	for (i = 0; i < args->out_sync_count; i++) {
		struct drm_asahi_sync *s = &syncs[args->in_sync_count + i];

		out[i].syncobj = drm_syncobj_find(file, s->handle);
		if (!out[i].syncobj) {
			ret = -ENOENT;
			goto out_sched;
		}
		if (s->sync_type == DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ) {
			out[i].chain = dma_fence_chain_alloc();
			if (!out[i].chain) {
				ret = -ENOMEM;
				goto out_sched;
			}
			out[i].point = s->timeline_value;
		}
	}

	/* The VM keeps a context slot while the job lives */
	ret = asahi_mmu_bind_slot(&q->vm->mmu);
	if (ret < 0)
		goto out_sched;
	job->vm_bound = true;

	drm_sched_job_arm(&job->base);
	finished = dma_fence_get(&job->base.s_fence->finished);
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&q->submit_lock);
	for (i = 0; i < args->out_sync_count; i++) {
		if (out[i].chain) {
			drm_syncobj_add_point(out[i].syncobj, out[i].chain,
					      finished, out[i].point);
			out[i].chain = NULL;
		} else {
			drm_syncobj_replace_fence(out[i].syncobj, finished);
		}
	}
	dma_fence_put(finished);
	ret = 0;
	goto out;

out_sched:
	mutex_unlock(&q->submit_lock);
	drm_sched_job_cleanup(&job->base);
out_job:
	asahi_job_free(job);
out:
	if (out)
		asahi_out_syncs_free(out, args->out_sync_count);
	kvfree(syncs);
	kvfree(buf);
	asahi_queue_put(q);
	return ret;
}
