/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * asahi: DRM queues and their jobs, shared by the queues, scheduler and
 * fences (asahi_queue.c) and SUBMIT (asahi_submit.c).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#ifndef ASAHI_QUEUE_H
#define ASAHI_QUEUE_H

#include <linux/dma-fence.h>
#include <linux/kcov.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/asahi_drm.h>
#include <drm/gpu_scheduler.h>

#include "asahi_drv.h"

struct asahi_buffer;
struct asahi_obj;
struct asahi_scene;
struct asahi_wq;

#define NUM_WQS			3	/* vertex, fragment, compute */

/* Command blocks per work queue: the scheduler's credit limit */
#define WQ_BLOCKS		512

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
	/*
	 * Someone signals the fences at the list's head (outside done_lock):
	 * others that complete a job meanwhile leave it to them
	 */
	bool signalling;
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
	/* Barrier targets per subqueue, 1 + ncmds each (asahi_submit_run) */
	struct asahi_event *ev[2];
	struct asahi_job_part parts[NUM_WQS];
	atomic_t parts_left;
	struct list_head qnode;		/* in the queue's inflight list */
	bool hw_done;
	struct dma_fence *done;
	bool done_init;			/* dma_fence_init() ran on done */
	/* The submitter's KCOV handle: run_job's coverage is theirs */
	struct kcov_common_handle_id kcov;
};

#define to_asahi_job(j) container_of(j, struct asahi_job, base)

/* asahi_queue.c */
struct asahi_queue *asahi_queue_get(struct asahi_file *afile, u32 id);
void asahi_queue_put(struct asahi_queue *q);
int asahi_queue_get_wqs(struct asahi_queue *q, bool render, bool compute);
struct asahi_job *asahi_job_alloc(struct asahi_queue *q, unsigned int ncmds);
void asahi_job_free(struct asahi_job *job);

/* A Flag for a DRM queue's work queue; an error event; the firmware died */
void asahi_wq_signal(struct asahi_wq *wq);
void asahi_wq_mark_error(struct asahi_wq *wq, u32 value, int error,
			 int fault_vm_slot);
void asahi_wq_fail_all(struct asahi_wq *wq, int error);

/* asahi_submit.c: the job's commands as records on its work queues */
int asahi_submit_run(struct asahi_queue *q, struct asahi_job *job);

#endif
