// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: queues and submission.
 *
 * A queue is one DRM scheduler (one entity, one run queue) in front of
 * firmware work queues; this driver has the compute work queue so far.
 * SUBMIT parses the command stream (drm_asahi_cmd_header + payload),
 * checks barriers and attachments, resolves in-syncs into scheduler
 * dependencies, binds the VM to a context slot for the job's life and
 * pushes one job; out-syncs get the scheduler's finished fence.  When the
 * scheduler runs the job, each compute command becomes a RunCompute record
 * with its microsequence (StartCompute, WaitForIdle, FinalizeCompute,
 * RetireStamp) in a block of the queue's command pool, appended to the
 * work queue's ring and announced with RunWorkQueue and a doorbell on the
 * queue's priority channel.  The firmware retires each command by writing
 * its stamp and raising a Flag event for the work queue's event slot; the
 * job's hardware fence signals when its last command retired, in order.
 *
 * Differences from drm/asahi (see docs/system/agx.rst): render commands
 * are refused (no tiled-vertex buffers yet), a work queue keeps its event
 * slot for life, the job parameter blocks of RunCompute are left zero,
 * and user timestamps (GEM_BIND_OBJECT) are not supported.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/dma-fence.h>
#include <linux/dma-fence-chain.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <drm/asahi_drm.h>
#include <drm/drm_file.h>
#include <drm/drm_syncobj.h>
#include <drm/gpu_scheduler.h>

#include "asahi_drv.h"
#include "asahi_fw.h"

#define ASAHI_MAX_COMMANDS	64
#define ASAHI_MAX_ATTACHMENTS	16
#define ASAHI_CMDBUF_MAX	SZ_1M
/* drm/asahi's scheduler: 100 s per job */
#define ASAHI_JOB_TIMEOUT_MS	100000

/* Command blocks per queue: the scheduler's credit limit */
#define WQ_BLOCKS		128

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
	struct asahi_obj *ctx;
	struct asahi_obj *blocks;
	u32 wptr;
	u32 value;			/* of the newest command */
	u32 next_block;
	u64 counter;
	u64 event_seq;
	bool kicked;
	/* Jobs on the ring, oldest first; under lock */
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
	u64 usc_exec_base;
	struct drm_gpu_scheduler sched;
	struct drm_sched_entity entity;
	bool sched_ready;
	bool entity_ready;
	struct asahi_wq comp;
	u64 fence_ctx;
	u64 fence_seqno;
};

/*
 * The hardware fence of a job.  It outlives its queue (syncobjs hold the
 * scheduler fences that hold it), so it carries its own lock.
 */
struct asahi_fence {
	struct dma_fence base;
	spinlock_t lock;
};

struct asahi_job {
	struct drm_sched_job base;
	struct asahi_queue *queue;
	bool vm_bound;
	unsigned int ncmds;
	struct drm_asahi_cmd_compute *cmds;
	bool *flush;
	struct dma_fence *done;
	bool done_init;			/* dma_fence_init() ran on done */
	u32 last_value;
	struct list_head node;		/* in the work queue's pending list */
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

/* Completes, in order, every job whose last command's stamp was reached */
void asahi_wq_signal(struct asahi_wq *wq)
{
	struct asahi_job *job, *tmp;
	u32 stamp;

	spin_lock(&wq->lock);
	stamp = asahi_stamp(wq->gpu, wq->slot);
	list_for_each_entry_safe(job, tmp, &wq->pending, node) {
		if ((s32)(stamp - job->last_value) < 0)
			break;
		list_del_init(&job->node);
		dma_fence_signal(job->done);
	}
	if (list_empty(&wq->pending))
		wake_up_all(&wq->idle);
	spin_unlock(&wq->lock);
}

void asahi_wq_fail_all(struct asahi_wq *wq, int error)
{
	struct asahi_job *job, *tmp;

	spin_lock(&wq->lock);
	list_for_each_entry_safe(job, tmp, &wq->pending, node) {
		list_del_init(&job->node);
		dma_fence_set_error(job->done, error);
		dma_fence_signal(job->done);
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
	asahi_obj_free(gpu, wq->ctx);
	asahi_obj_free(gpu, wq->ring);
	asahi_obj_free(gpu, wq->state);
	asahi_obj_free(gpu, wq->info);
	mutex_unlock(&adev->gpu_lock);
}

/* QueueInfo, RingState, ring, GpuContextData, command pool; a slot */
static int asahi_wq_init(struct asahi_queue *q, struct asahi_wq *wq,
			 unsigned int type, unsigned int prio)
{
	struct asahi_device *adev = q->adev;
	struct asahi_gpu *gpu = adev->gpu;
	unsigned int slot;
	int ret = 0;

	wq->gpu = gpu;
	wq->queue = q;
	wq->type = type;
	wq->prio = prio;
	spin_lock_init(&wq->lock);
	INIT_LIST_HEAD(&wq->pending);
	init_waitqueue_head(&wq->idle);

	mutex_lock(&adev->gpu_lock);
	wq->info = asahi_obj_alloc(gpu, HEAP_PRIVATE, QI_SIZE,
				   UAT_PROT_FW_PRIV_RW);
	wq->state = asahi_obj_alloc(gpu, HEAP_SHARED, RS_SIZE,
				    UAT_PROT_FW_SHARED_RW);
	wq->ring = asahi_obj_alloc(gpu, HEAP_SHARED, WQ_SIZE * sizeof(u64),
				   UAT_PROT_FW_SHARED_RW);
	wq->ctx = asahi_obj_alloc(gpu, HEAP_SHARED, CTX_SIZE,
				  UAT_PROT_FW_SHARED_RW);
	wq->blocks = asahi_obj_alloc(gpu, HEAP_PRIVATE,
				     WQ_BLOCKS * CMD_BLOCK_SIZE,
				     UAT_PROT_FW_PRIV_RW);
	if (IS_ERR(wq->info) || IS_ERR(wq->state) || IS_ERR(wq->ring) ||
	    IS_ERR(wq->ctx) || IS_ERR(wq->blocks)) {
		ret = -ENOMEM;
		goto out;
	}

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
	if (slot >= NUM_SLOTS) {
		ret = -EBUSY;
		goto out;
	}

	wr64(wq->info->cpu, QI_STATE, wq->state->va);
	wr64(wq->info->cpu, QI_RING, wq->ring->va);
	wr32(wq->info->cpu, QI_EVENT_ID, 0xffffffff);
	wr32(wq->info->cpu, QI_UUID, q->id);
	wr64(wq->info->cpu, QI_GPU_CONTEXT, wq->ctx->va);
	wr32(wq->state->cpu, RS_RB_SIZE, WQ_SIZE);
	/* GpuContextData defaults: unk_0 = unk_1 = 0xff, unk_23 = 2 */
	wr32(wq->ctx->cpu, 0, 0xffff);
	((u8 *)wq->ctx->cpu)[0x23] = 2;
	/* All of it is in memory before a command names it */
	wmb();
out:
	mutex_unlock(&adev->gpu_lock);
	if (ret) {
		if (IS_ERR(wq->info))
			wq->info = NULL;
		if (IS_ERR(wq->state))
			wq->state = NULL;
		if (IS_ERR(wq->ring))
			wq->ring = NULL;
		if (IS_ERR(wq->ctx))
			wq->ctx = NULL;
		if (IS_ERR(wq->blocks))
			wq->blocks = NULL;
		asahi_wq_fini(wq);
		wq->gpu = NULL;
	}
	return ret;
}

/* One RunCompute in the next block; returns its GPU VA */
static u64 asahi_wq_build_compute(struct asahi_wq *wq, struct asahi_job *job,
				  unsigned int i, unsigned int vm_slot)
{
	struct asahi_gpu *gpu = wq->gpu;
	u32 block = wq->next_block++ % WQ_BLOCKS;
	void *blk = wq->blocks->cpu + block * CMD_BLOCK_SIZE;
	u64 va = wq->blocks->va + block * CMD_BLOCK_SIZE;
	void *useq = blk + B_RC_USEQ, *meta = blk + RC_META;
	u64 stamp_va = gpu->stamps->va + 4 * wq->slot;
	u64 fw_stamp_va = gpu->fw_stamps->va + 4 * wq->slot;
	u32 value = wq->value + STAMP_STEP;
	u32 uuid = job->queue->id << 16 | (i & 0xffff);
	u32 pos = 0;

	memset(blk, 0, CMD_BLOCK_SIZE);
	wq->counter++;
	wq->event_seq++;

	wr32(useq, pos, OP_START_COMPUTE);
	wr64(useq, pos + SC_JOB_PARAMS1, va + RC_JOB_PARAMS1);
	wr64(useq, pos + SC_WORK_QUEUE, wq->info->va);
	wr32(useq, pos + SC_VM_SLOT, vm_slot);
	wr32(useq, pos + SC_UNK_28, 1);
	wr32(useq, pos + SC_EVENT_GEN, job->queue->id);
	wr64(useq, pos + SC_EVENT_SEQ, wq->event_seq);
	wr64(useq, pos + SC_JOB_PARAMS2, va + RC_JOB_PARAMS2);
	wr32(useq, pos + SC_UUID, uuid);
	wr64(useq, pos + SC_COUNTER, wq->counter);
	pos += SC_SIZE;
	wr32(useq, pos, OP_WAIT_COMPUTE);
	pos += 4;
	wr32(useq, pos, OP_FINALIZE_COMPUTE);
	wr64(useq, pos + FC_WORK_QUEUE, wq->info->va);
	wr32(useq, pos + FC_VM_SLOT, vm_slot);
	wr64(useq, pos + FC_JOB_PARAMS2, va + RC_JOB_PARAMS2);
	wr32(useq, pos + FC_UUID, uuid);
	wr64(useq, pos + FC_FW_STAMP, fw_stamp_va);
	wr32(useq, pos + FC_VALUE, value);
	/* Back to StartCompute, should the firmware restart the job */
	wr32(useq, pos + FC_RESTART, -(s32)pos);
	pos += FC_SIZE;
	wr32(useq, pos, OP_RETIRE_STAMP);
	pos += 4;

	wr32(blk, 0, RC_TAG);
	wr64(blk, RC_COUNTER, wq->counter);
	wr32(blk, RC_VM_SLOT, vm_slot);
	wr64(blk, RC_USEQ_PTR, va + B_RC_USEQ);
	wr32(blk, RC_USEQ_SIZE, pos);
	wr64(meta, META_STAMP, stamp_va);
	wr64(meta, META_FW_STAMP, fw_stamp_va);
	wr32(meta, META_VALUE, value);
	wr32(meta, META_SLOT, wq->slot);
	wr32(meta, META_FLUSH_STAMPS, job->flush[i]);
	wr32(meta, META_UUID, uuid);
	wr64(meta, META_EVENT_SEQ, wq->event_seq);
	((u8 *)blk)[RC_CLIENT_SEQ] = job->queue->id & 0xff;

	wq->value = value;
	return va;
}

/* Appends the job's commands and announces them to the firmware */
static int asahi_wq_submit(struct asahi_wq *wq, struct asahi_job *job)
{
	struct asahi_gpu *gpu = wq->gpu;
	unsigned int channel = PIPE_CHANNEL(wq->type, wq->prio);
	u8 msg[PIPE_MSG_SIZE] = { 0 };
	unsigned int i;
	int ret;

	mutex_lock(&gpu->tx_lock);
	for (i = 0; i < job->ncmds; i++) {
		u64 va = asahi_wq_build_compute(wq, job, i,
						job->queue->vm->mmu.slot);

		/* The command is in memory before the entry that names it */
		wmb();
		wr64_once(wq->ring->cpu, wq->wptr * sizeof(u64), va);
		wq->wptr = (wq->wptr + 1) % WQ_SIZE;
	}
	job->last_value = wq->value;
	spin_lock(&wq->lock);
	list_add_tail(&job->node, &wq->pending);
	spin_unlock(&wq->lock);

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
	mutex_unlock(&gpu->tx_lock);
	return ret;
}

static struct dma_fence *asahi_run_job(struct drm_sched_job *sched_job)
{
	struct asahi_job *job = to_asahi_job(sched_job);
	struct asahi_queue *q = job->queue;
	struct asahi_fence *fence;
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
	ret = asahi_wq_submit(&q->comp, job);
	if (ret) {
		spin_lock(&q->comp.lock);
		if (!list_empty(&job->node)) {
			list_del_init(&job->node);
			dma_fence_set_error(&fence->base, ret);
			dma_fence_signal(&fence->base);
		}
		spin_unlock(&q->comp.lock);
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
	if (job->vm_bound)
		asahi_mmu_unbind_slot(&job->queue->vm->mmu);
	/* Never initialised: the fence is just memory */
	if (job->done_init)
		dma_fence_put(job->done);
	else
		kfree(container_of(job->done, struct asahi_fence, base));
	kfree(job->cmds);
	kfree(job->flush);
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
static void asahi_queue_free_work(struct work_struct *work)
{
	struct asahi_queue *q = container_of(work, struct asahi_queue,
					     free_work);

	if (q->sched_ready)
		drm_sched_fini(&q->sched);
	if (q->comp.gpu) {
		/* Work handed to the firmware is never aborted */
		if (!wait_event_timeout(q->comp.idle,
					list_empty(&q->comp.pending),
					msecs_to_jiffies(asahi_wait_ms)))
			dev_err(q->adev->dev, "queue %u: firmware work left\n",
				q->id);
		asahi_wq_fini(&q->comp);
	}
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
	q->adev = adev;
	kref_init(&q->ref);
	INIT_WORK(&q->free_work, asahi_queue_free_work);
	q->vm = vm;
	q->id = atomic_inc_return(&adev->queue_ids);
	q->usc_exec_base = args->usc_exec_base;
	q->fence_ctx = dma_fence_context_alloc(1);

	/* Firmware priority 3 - UAPI priority picks the pipe channel */
	ret = asahi_wq_init(q, &q->comp, PIPE_COMPUTE, 3 - args->priority);
	if (ret)
		goto err;
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

/*
 * Pass 1 of the command stream: counts, and the index of the last
 * compute command; also every check that needs no job.
 */
static int asahi_parse(const u8 *buf, u32 size, u32 *ncompute,
		       u32 *last_compute)
{
	u32 pos = 0, nrender = 0, ncomp = 0, done_render = 0, done_comp = 0;
	struct drm_asahi_cmd_header hdr;

	while (pos < size) {
		if (size - pos < sizeof(hdr))
			return -EINVAL;
		memcpy(&hdr, buf + pos, sizeof(hdr));
		pos += sizeof(hdr);
		if (size - pos < hdr.size)
			return -EINVAL;
		switch (hdr.cmd_type) {
		case DRM_ASAHI_CMD_RENDER:
			nrender++;
			break;
		case DRM_ASAHI_CMD_COMPUTE:
			*last_compute = ncomp++;
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
	if (!(nrender + ncomp) || nrender + ncomp > ASAHI_MAX_COMMANDS)
		return -EINVAL;

	/* Pass 2: barriers and attachments */
	for (pos = 0; pos < size; pos += hdr.size) {
		bool attach;
		u32 i, n;

		memcpy(&hdr, buf + pos, sizeof(hdr));
		pos += sizeof(hdr);
		attach = hdr.cmd_type >= DRM_ASAHI_SET_VERTEX_ATTACHMENTS;
		/* events[s][n]: 0 = before this submit, n = after command n */
		if (hdr.vdm_barrier != DRM_ASAHI_BARRIER_NONE &&
		    (hdr.vdm_barrier > done_render || attach))
			return -EINVAL;
		if (hdr.cdm_barrier != DRM_ASAHI_BARRIER_NONE &&
		    (hdr.cdm_barrier > done_comp || attach))
			return -EINVAL;
		if (hdr.cmd_type == DRM_ASAHI_CMD_RENDER) {
			/* No tiled-vertex buffers yet: renders are refused */
			return -EOPNOTSUPP;
		} else if (hdr.cmd_type == DRM_ASAHI_CMD_COMPUTE) {
			done_comp++;
		} else {
			n = hdr.size / sizeof(struct drm_asahi_attachment);
			if (n > ASAHI_MAX_ATTACHMENTS)
				return -EINVAL;
			for (i = 0; i < n; i++) {
				struct drm_asahi_attachment a;

				memcpy(&a, buf + pos + i * sizeof(a),
				       sizeof(a));
				if (a.flags || a.pad)
					return -EINVAL;
			}
		}
	}
	*ncompute = ncomp;
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
	struct drm_asahi_cmd_header hdr;
	struct asahi_job *job = NULL;
	struct asahi_fence *fence;
	struct dma_fence *finished;
	u32 nsyncs, ncomp = 0, last = 0, pos, i, c;
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
	for (i = 0; i < nsyncs; i++) {
		if (syncs[i].sync_type > DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ ||
		    (syncs[i].sync_type == DRM_ASAHI_SYNC_SYNCOBJ &&
		     syncs[i].timeline_value)) {
			ret = -EINVAL;
			goto out;
		}
	}
	ret = asahi_parse(buf, args->cmdbuf_size, &ncomp, &last);
	if (ret)
		goto out;

	job = kzalloc_obj(*job);
	if (!job) {
		ret = -ENOMEM;
		goto out;
	}
	INIT_LIST_HEAD(&job->node);
	job->queue = q;
	kref_get(&q->ref);
	job->cmds = kzalloc_objs(*job->cmds, ncomp);
	job->flush = kzalloc_objs(*job->flush, ncomp);
	fence = kzalloc_obj(*fence);
	job->done = fence ? &fence->base : NULL;
	if (!job->cmds || !job->flush || !job->done) {
		ret = -ENOMEM;
		goto out_job;
	}
	for (pos = 0, c = 0; pos < args->cmdbuf_size; pos += hdr.size) {
		memcpy(&hdr, buf + pos, sizeof(hdr));
		pos += sizeof(hdr);
		if (hdr.cmd_type != DRM_ASAHI_CMD_COMPUTE)
			continue;
		/* Read up to size: shorter payloads are zero-extended */
		memcpy(&job->cmds[c], buf + pos,
		       min_t(u32, hdr.size, sizeof(job->cmds[c])));
		if (job->cmds[c].flags) {
			ret = -EINVAL;
			goto out_job;
		}
		/* Timestamp objects do not exist yet (GEM_BIND_OBJECT) */
		if (job->cmds[c].ts.start.handle || job->cmds[c].ts.end.handle) {
			ret = -ENOENT;
			goto out_job;
		}
		job->flush[c] = c == last;
		c++;
	}
	job->ncmds = ncomp;

	ret = drm_sched_job_init(&job->base, &q->entity, ncomp, q,
				 file->client_id);
	if (ret)
		goto out_job;
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
