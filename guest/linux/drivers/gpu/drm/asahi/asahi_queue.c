// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: DRM queues, their scheduler and their fences.
 *
 * A queue is one DRM scheduler (one entity, one run queue) in front of
 * three firmware work queues (vertex, fragment, compute;
 * asahi_workqueue.c), made on first use.  SUBMIT (asahi_submit.c) pushes
 * jobs; when the scheduler runs one, asahi_submit_run() puts its records
 * on the work queues.  The firmware retires each command by writing its
 * stamp and raising a Flag event for the work queue's event slot; the
 * job's hardware fence signals when its last command on every work queue
 * retired, in submission order.
 *
 * A queue has one GpuContextData, shared by its work queues; when the
 * queue is gone and the firmware finished its work, the firmware is told
 * with DeviceControl DestroyContext, then the context is freed
 * (drm/asahi sends it from the next allocation, for the contexts dropped
 * meanwhile).
 *
 * Differences from drm/asahi (docs/devel/agx-guest-stack.rst): a work queue
 * keeps its event slot for life; the tiled vertex buffer (asahi_buffer.c)
 * is made at the queue's first render.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/dma-fence.h>
#include <linux/slab.h>
#include <linux/soc/apple/rtkit.h>
#include <linux/workqueue.h>

#include <drm/asahi_drm.h>
#include <drm/drm_file.h>
#include <drm/gpu_scheduler.h>

#include "asahi_buffer.h"
#include "asahi_drv.h"
#include "asahi_fw.h"
#include "asahi_queue.h"
#include "asahi_workqueue.h"

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
	if (q->signalling) {
		spin_unlock_irqrestore(&q->done_lock, flags);
		return;
	}
	/*
	 * Signal the done jobs at the head in order, one signaller at a
	 * time, but outside done_lock: the fences' callbacks queue the
	 * scheduler's work and wake waiters, and run_job on another CPU
	 * needs the lock meanwhile to add its job.  The queue and the fence
	 * are held across it.
	 */
	q->signalling = true;
	kref_get(&q->ref);
	while ((head = list_first_entry_or_null(&q->inflight,
						struct asahi_job, qnode)) &&
	       head->hw_done) {
		struct dma_fence *fence = dma_fence_get(head->done);

		list_del_init(&head->qnode);
		spin_unlock_irqrestore(&q->done_lock, flags);
		dma_fence_signal(fence);
		dma_fence_put(fence);
		spin_lock_irqsave(&q->done_lock, flags);
	}
	q->signalling = false;
	spin_unlock_irqrestore(&q->done_lock, flags);
	asahi_queue_put(q);
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

/* The work queues a job needs, made if they do not exist yet */
int asahi_queue_get_wqs(struct asahi_queue *q, bool render, bool compute)
{
	unsigned int type;
	int ret = 0;

	mutex_lock(&q->wq_lock);
	if (!q->ctx) {
		struct asahi_obj *ctx = asahi_ctx_create(q->adev->gpu);

		if (IS_ERR(ctx)) {
			mutex_unlock(&q->wq_lock);
			return PTR_ERR(ctx);
		}
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
		struct asahi_wq_args args = {
			.type = type,
			.prio = q->prio,
			.uuid = q->id,
			.ctx_va = q->ctx->va,
			.nblocks = WQ_BLOCKS,
			.drm = true,
		};
		struct asahi_wq *wq;

		if (q->wq[type] || (type == PIPE_COMPUTE ? !compute : !render))
			continue;
		wq = asahi_wq_create(q->adev->gpu, &args);
		if (IS_ERR(wq))
			ret = PTR_ERR(wq);
		else
			q->wq[type] = wq;
	}
	mutex_unlock(&q->wq_lock);
	return ret;
}

static struct dma_fence *asahi_run_job_kcov(struct drm_sched_job *sched_job)
{
	struct asahi_job *job = to_asahi_job(sched_job);
	struct asahi_queue *q = job->queue;
	struct asahi_fence *fence;
	unsigned int t;
	int ret;

	if (asahi_crashed(q->adev))
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
	ret = asahi_submit_run(q, job);
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

/*
 * The scheduler's worker runs the job: a fuzzer that asked for remote
 * KCOV coverage (KCOV_REMOTE_ENABLE with a common handle) sees this part
 * of its submission too
 */
static struct dma_fence *asahi_run_job(struct drm_sched_job *sched_job)
{
	struct dma_fence *fence;

	kcov_remote_start_common(to_asahi_job(sched_job)->kcov);
	fence = asahi_run_job_kcov(sched_job);
	kcov_remote_stop();
	return fence;
}

static enum drm_gpu_sched_stat asahi_timedout_job(struct drm_sched_job *job)
{
	struct asahi_job *ajob = to_asahi_job(job);

	dev_err(ajob->queue->adev->dev,
		"Job timed out on the DRM scheduler, things will probably break\n");
	return DRM_GPU_SCHED_STAT_ENODEV;
}

void asahi_job_free(struct asahi_job *job)
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
		asahi_wq_destroy(wq);
	}
	if (q->buf) {
		mutex_lock(&q->adev->gpu_lock);
		asahi_buffer_free(q->buf);
		mutex_unlock(&q->adev->gpu_lock);
	}
	if (q->ctx) {
		int ret = asahi_ctx_destroy(q->adev->gpu, q->ctx);

		if (ret)
			dev_err(q->adev->dev,
				"queue %u: DestroyContext failed: %d\n", q->id,
				ret);
	}
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

void asahi_queue_put(struct asahi_queue *q)
{
	kref_put(&q->ref, asahi_queue_release);
}

/* The queue userspace calls id, held; NULL if none */
struct asahi_queue *asahi_queue_get(struct asahi_file *afile, u32 id)
{
	struct asahi_queue *q;

	xa_lock(&afile->queues);
	q = xa_load(&afile->queues, id);
	if (q)
		kref_get(&q->ref);
	xa_unlock(&afile->queues);
	return q;
}

/* A job of q for ncmds commands, with its fence's memory; it holds q */
struct asahi_job *asahi_job_alloc(struct asahi_queue *q, unsigned int ncmds)
{
	struct asahi_fence *fence;
	struct asahi_job *job;
	unsigned int i;

	job = kzalloc_obj(*job);
	if (!job)
		return NULL;
	job->queue = q;
	kref_get(&q->ref);
	/* SUBMIT allocates it: the submitting task's handle */
	job->kcov = kcov_common_handle();
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
		asahi_job_free(job);
		return NULL;
	}
	/* From here on job free drops what the commands hold */
	job->ncmds = ncmds;
	return job;
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

