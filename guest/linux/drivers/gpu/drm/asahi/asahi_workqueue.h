/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * asahi: firmware work queues (asahi_workqueue.c), the one place that
 * writes command records; DRM queues (asahi_queue.c, asahi_submit.c) and
 * the firmware self-tests (asahi_fwtest.c) use them.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#ifndef ASAHI_WORKQUEUE_H
#define ASAHI_WORKQUEUE_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "asahi_fw.h"

struct asahi_scene;
struct drm_asahi_cmd_compute;
struct drm_asahi_cmd_render;

/* Stamps go up by this much per command */
#define STAMP_STEP		0x100

/*
 * A command block: the Run record at 0, its microsequence, the kernel's
 * {start, end} time stamp results and an InitBuffer before a vertex
 * command
 */
#define CMD_BLOCK_SIZE		0x1000
#define B_USEQ			0x980	/* past the largest record (0x96c) */
#define B_KERNEL_TS		0xf00
#define B_INIT_BUFFER		0xf40

/* Event slots below this one are the self-tests' (asahi_fwtest.c) */
#define ASAHI_FIRST_QUEUE_SLOT	8

/* A firmware work queue: QueueInfo, RingState, ring, command blocks */
struct asahi_wq {
	struct asahi_gpu *gpu;
	unsigned int type;		/* pipe */
	unsigned int prio;		/* firmware priority: pipe channel */
	unsigned int slot;		/* event slot */
	bool drm;			/* a DRM queue's: slot_owner */
	struct asahi_obj *info;
	struct asahi_obj *state;
	struct asahi_obj *ring;
	struct asahi_obj *blocks;
	u32 nblocks;
	u32 wptr;
	u32 value;			/* of the newest command */
	bool used;			/* a command went on it */
	u32 next_block;
	u64 counter;
	u64 event_seq;
	bool kicked;
	/* Job parts on the ring, oldest first; under lock (asahi_queue.c) */
	spinlock_t lock;
	struct list_head pending;
	wait_queue_head_t idle;
};

/* What a work queue is made of */
struct asahi_wq_args {
	unsigned int type;
	unsigned int prio;
	u32 uuid;			/* QueueInfo's: the queue's id */
	u64 ctx_va;			/* its GpuContextData */
	u32 nblocks;
	u32 stamp;			/* the slot's stamps before any command */
	/* A DRM queue's: Flags and error events of its slot reach it */
	bool drm;
};

/* One Run record: what it says beyond its work queue */
struct asahi_run {
	u32 uuid;
	u32 vm_slot;
	u32 event_gen;			/* the queue's id */
	u64 usc_exec_base;
	bool flush;			/* JobMeta: flush the stamps */
	bool ts;			/* Timestamp ops around WaitForIdle */
	u64 user_ts[2];			/* user {start, end} results, or 0 */
	/* The UAPI command; none: empty parameter blocks (self-tests) */
	const struct drm_asahi_cmd_render *render;
	const struct drm_asahi_cmd_compute *compute;
	struct asahi_scene *scene;	/* render: its TVB scene, or none */
};

/* GpuContextData, shared by a queue's work queues */
struct asahi_obj *asahi_ctx_create(struct asahi_gpu *gpu);
int asahi_ctx_destroy(struct asahi_gpu *gpu, struct asahi_obj *ctx);

struct asahi_wq *asahi_wq_create(struct asahi_gpu *gpu,
				 const struct asahi_wq_args *args);
void asahi_wq_destroy(struct asahi_wq *wq);

/* Records, each in the next command block; they return its index */
u32 asahi_wq_next_block(const struct asahi_wq *wq);
const void *asahi_wq_block(const struct asahi_wq *wq, u32 block);
u32 asahi_wq_barrier(struct asahi_wq *wq, struct asahi_wq *on, u32 value,
		     u32 uuid, u32 type);
u32 asahi_wq_compute(struct asahi_wq *wq, const struct asahi_run *run);
u32 asahi_wq_vertex(struct asahi_wq *wq, const struct asahi_run *run,
		    struct asahi_wq *frag, u32 frag_value);
u32 asahi_wq_fragment(struct asahi_wq *wq, const struct asahi_run *run);
/* Announces the new records; under gpu->tx_lock */
int asahi_wq_kick(struct asahi_wq *wq);

#endif
