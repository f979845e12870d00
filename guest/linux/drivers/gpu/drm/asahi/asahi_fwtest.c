// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: the driver's own firmware self-tests (the former agx-rtkit-test
 * module's gpu-jobs and gpu-fault), run through the "selftest" sysfs
 * attribute of the GPU device: kernel-built Run* commands on work queues
 * of the driver's firmware instance, checked for order, stamps and
 * timestamps; and an injected GPU fault with drm/asahi's recovery.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/string.h>

#include <clocksource/arm_arch_timer.h>

#include "asahi_drv.h"
#include "asahi_fw.h"

static const struct asahi_pipe_layout pipe_layouts[NUM_PIPES] = {
	[PIPE_VERTEX] = {
		.name = "vertex", .prio = 1, .slot = 3, .tag = 0,
		.size = 0x608, .useq_ptr = 0x474, .useq_size = 0x47c,
		.meta = 0x56c, .cur_ts = 0x5b4, .start_op = 0x22, .start_size = 0x18c,
		.wait_op = 0x00000101, .fin_op = 0x23, .fin_size = 0x84,
		.fin_fw_stamp = 0x3c, .fin_value = 0x44,
		.start_params = { 0x04, 0x0c }, .params = { 0x3c4, 0x40 },
	},
	[PIPE_FRAGMENT] = {
		.name = "fragment", .prio = 1, .slot = 4, .tag = 1,
		.size = 0x96c, .useq_ptr = 0x14, .useq_size = 0x1c,
		.meta = 0x8d0, .cur_ts = 0x918, .start_op = 0x24, .start_size = 0x1ac,
		.wait_op = 0x00010001, .fin_op = 0x25, .fin_size = 0xb4,
		.fin_fw_stamp = 0x0c, .fin_value = 0x14,
		.start_params = { 0x04, 0x0c }, .params = { 0x3c8, 0x80 },
	},
	[PIPE_COMPUTE] = {
		.name = "compute", .prio = 2, .slot = 5, .tag = 3,
		.size = 0x31c, .useq_ptr = 0x1f0, .useq_size = 0x1f8,
		.meta = 0x284, .cur_ts = 0x2b0, .start_op = 0x29, .start_size = 0x16c,
		.wait_op = 0x00800001, .fin_op = 0x2a, .fin_size = 0x7c,
		.fin_fw_stamp = 0x28, .fin_value = 0x30,
		.start_params = { 0x0c, 0x3c }, .params = { 0x70, 0x1fc },
	},
};

/* A work queue of our own on one pipe */
static int asahi_testq_init(struct asahi_gpu *gpu, struct asahi_testq *q,
			  unsigned int type)
{
	const struct asahi_pipe_layout *pl = &pipe_layouts[type];

	q->pl = pl;
	q->type = type;
	q->info = asahi_obj_alloc(gpu, HEAP_PRIVATE, QI_SIZE,
				UAT_PROT_FW_PRIV_RW);
	q->state = asahi_obj_alloc(gpu, HEAP_SHARED, RS_SIZE,
				 UAT_PROT_FW_SHARED_RW);
	q->ring = asahi_obj_alloc(gpu, HEAP_SHARED, WQ_SIZE * sizeof(u64),
				UAT_PROT_FW_SHARED_RW);
	q->ctx = asahi_obj_alloc(gpu, HEAP_SHARED, CTX_SIZE,
			       UAT_PROT_FW_SHARED_RW);
	q->blocks = asahi_obj_alloc(gpu, HEAP_PRIVATE, QUEUE_BLOCKS * CMD_BLOCK_SIZE,
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

static int asahi_gpu_queues(struct asahi_gpu *gpu)
{
	unsigned int type;
	int ret;

	if (gpu->queues_ready)
		return 0;
	for (type = 0; type < NUM_PIPES; type++) {
		ret = asahi_testq_init(gpu, &gpu->queues[type], type);
		if (ret)
			return ret;
	}
	/* The stamps' start values are in memory before any command */
	wmb();
	gpu->queues_ready = true;
	return 0;
}

static bool asahi_reached(struct asahi_gpu *gpu, unsigned int slot, u32 value)
{
	bool ret;

	spin_lock(&gpu->lock);
	ret = stamp_ge(gpu->flag_stamp[slot], value);
	spin_unlock(&gpu->lock);
	return ret;
}

static bool asahi_interrupted(struct asahi_gpu *gpu)
{
	bool ret;

	spin_lock(&gpu->lock);
	ret = gpu->dead || gpu->fault_events != gpu->faults_seen;
	spin_unlock(&gpu->lock);
	return ret;
}

static unsigned int asahi_faults(struct asahi_gpu *gpu)
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
static int asahi_wait_value(struct asahi_gpu *gpu, struct asahi_testq *q,
			  u32 value)
{
	unsigned int slot = q->pl->slot;

	wait_event_timeout(gpu->wait, asahi_reached(gpu, slot, value) ||
			   asahi_interrupted(gpu), msecs_to_jiffies(asahi_wait_ms));
	if (asahi_reached(gpu, slot, value))
		return 0;
	if (asahi_faults(gpu) != gpu->faults_seen)
		return -EFAULT;
	if (asahi_interrupted(gpu)) {
		dev_err(gpu->dev, "firmware died\n");
		return -EIO;
	}
	dev_err(gpu->dev,
		"%s queue: no Flag for stamp 0x%x in %u ms (stamp 0x%x, Flag stamp 0x%x, done %u of %u)\n",
		q->pl->name, value, asahi_wait_ms, asahi_stamp(gpu, slot),
		gpu->flag_stamp[slot], rd32_once(q->state->cpu, RS_GPU_DONEPTR),
		q->wptr);
	return -ETIMEDOUT;
}

/* Checks one completed command of q; false on a failed check */
static bool asahi_check_job(struct asahi_gpu *gpu, struct asahi_testq *q,
			  const struct asahi_tjob *job)
{
	const void *blk = q->blocks->cpu + job->block * CMD_BLOCK_SIZE;
	u64 start = rd64_once(blk, B_TS_START);
	u64 end = rd64_once(blk, B_TS_END);
	u64 min_ticks = div_u64((u64)asahi_job_ns * 24, 1000);
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
	} else if (!stamp_ge(asahi_fw_stamp(gpu, q->pl->slot), job->value)) {
		bad = "firmware stamp behind the stamp";
	} else if (job->has_after) {
		const struct asahi_vertex_end *v =
			&gpu->queues[PIPE_VERTEX].ends[(job->after / STAMP_STEP) %
						       QUEUE_BLOCKS];

		if (v->value != job->after)
			bad = "lost its vertex command";
		else if (start < v->end)
			bad = "started before its vertex command ended";
	}
	if (bad) {
		dev_err(gpu->dev,
			"%s command 0x%x (block %u): %s: start %llu end %llu, previous end %llu\n",
			q->pl->name, job->value, job->block, bad, start, end,
			q->last_end);
		return false;
	}
	if (job->failed)
		return true;
	q->last_end = end;
	if (q->type == PIPE_VERTEX) {
		struct asahi_vertex_end *v =
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
static int asahi_check(struct asahi_gpu *gpu)
{
	unsigned int type;

	for (type = 0; type < NUM_PIPES; type++) {
		struct asahi_testq *q = &gpu->queues[type];

		while (q->job_count) {
			struct asahi_tjob *job = &q->jobs[q->job_head];

			if (!asahi_reached(gpu, q->pl->slot, job->value))
				break;
			if (job->has_after &&
			    !stamp_ge(gpu->queues[PIPE_VERTEX].checked_value,
				      job->after))
				break;
			if (!asahi_check_job(gpu, q, job)) {
				asahi_gpu_error(gpu);
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
static int asahi_testq_block(struct asahi_gpu *gpu, struct asahi_testq *q,
			   u32 free, void **cpu, u64 *va)
{
	u32 i = q->next_block;
	int tries, ret;

	for (tries = 0; q->block_used[i] &&
	     !stamp_ge(q->checked_value, q->block_free[i]); tries++) {
		/* A render's vertex command may need one more pass */
		if (tries > 2) {
			dev_err(gpu->dev, "%s block %u stays busy\n",
				q->pl->name, i);
			return -EIO;
		}
		ret = asahi_wait_value(gpu, q, q->block_free[i]);
		if (!ret)
			ret = asahi_check(gpu);
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
static int asahi_testq_append(struct asahi_gpu *gpu, struct asahi_testq *q,
			    u64 cmd_va)
{
	u32 next = (q->wptr + 1) % WQ_SIZE;

	if (next == rd32_once(q->state->cpu, RS_GPU_DONEPTR)) {
		dev_err(gpu->dev, "%s work queue full\n",
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
static u32 asahi_put_timestamp(void *op, u64 blk_va, u32 cur_ts, bool start,
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
static int asahi_submit_run(struct asahi_gpu *gpu, struct asahi_testq *q,
			  bool has_after, u32 after)
{
	const struct asahi_pipe_layout *pl = q->pl;
	u64 stamp_va = gpu->stamps->va + 4 * pl->slot;
	u64 fw_stamp_va = gpu->fw_stamps->va + 4 * pl->slot;
	u32 value = q->value + STAMP_STEP;
	struct asahi_tjob *job;
	void *blk, *useq, *meta;
	u32 pos = 0;
	u64 va, submitted_at;
	int block, ret;

	block = asahi_testq_block(gpu, q, value, &blk, &va);
	if (block < 0)
		return block;
	submitted_at = arch_timer_read_counter();
	useq = blk + B_USEQ;
	wr32(useq, 0, pl->start_op);
	/* The firmware reads the job's parameter blocks when it starts */
	wr64(useq, pl->start_params[0], va + pl->params[0]);
	wr64(useq, pl->start_params[1], va + pl->params[1]);
	pos += pl->start_size;
	pos += asahi_put_timestamp(useq + pos, va, pl->cur_ts, true, value);
	wr32(useq, pos, pl->wait_op);
	pos += 4;
	pos += asahi_put_timestamp(useq + pos, va, pl->cur_ts, false, value);
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

	ret = asahi_testq_append(gpu, q, va);
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
static int asahi_submit_barrier(struct asahi_gpu *gpu, struct asahi_testq *q,
			      struct asahi_testq *on, u32 value)
{
	void *blk;
	u64 va;
	int block;

	/* Done once the command behind it is */
	block = asahi_testq_block(gpu, q, q->value + STAMP_STEP, &blk, &va);
	if (block < 0)
		return block;
	wr32(blk, 0, CMD_BARRIER);
	wr64(blk, BAR_WAIT_STAMP, gpu->fw_stamps->va + 4 * on->pl->slot);
	wr32(blk, BAR_WAIT_VALUE, value);
	wr32(blk, BAR_WAIT_SLOT, on->pl->slot);
	wr32(blk, BAR_STAMP_SELF, q->value + STAMP_STEP);
	wr32(blk, BAR_UNK, 0xffffbbbb);
	return asahi_testq_append(gpu, q, va);
}

/* Announces what was appended to q: RunWorkQueue, then the doorbell */
static int asahi_testq_kick(struct asahi_gpu *gpu, struct asahi_testq *q)
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
	/* The pipe channels are shared with the DRM queues */
	mutex_lock(&gpu->tx_lock);
	ret = asahi_ring_tx(gpu, &gpu->pipes[channel], msg);
	if (!ret)
		ret = asahi_doorbell(gpu, channel);
	mutex_unlock(&gpu->tx_lock);
	return ret;
}

/* drm/asahi's render: fragment behind a Barrier, kicked first */
static int asahi_submit_render(struct asahi_gpu *gpu)
{
	struct asahi_testq *vtx = &gpu->queues[PIPE_VERTEX];
	struct asahi_testq *frag = &gpu->queues[PIPE_FRAGMENT];
	u32 want = vtx->value + STAMP_STEP;
	int ret;

	ret = asahi_submit_barrier(gpu, frag, vtx, want);
	if (!ret)
		ret = asahi_submit_run(gpu, frag, true, want);
	if (!ret)
		ret = asahi_testq_kick(gpu, frag);
	if (!ret)
		ret = asahi_submit_run(gpu, vtx, false, 0);
	if (!ret)
		ret = asahi_testq_kick(gpu, vtx);
	return ret;
}

static int asahi_submit_one(struct asahi_gpu *gpu, struct asahi_testq *q)
{
	int ret = asahi_submit_run(gpu, q, false, 0);

	return ret ? ret : asahi_testq_kick(gpu, q);
}

/* Waits for and checks everything submitted */
static int asahi_drain(struct asahi_gpu *gpu)
{
	unsigned int type;
	int ret;

	for (type = 0; type < NUM_PIPES; type++) {
		struct asahi_testq *q = &gpu->queues[type];

		ret = asahi_wait_value(gpu, q, q->value);
		if (ret)
			return ret;
	}
	/* Twice: the first pass may leave a fragment for its vertex */
	ret = asahi_check(gpu);
	if (!ret)
		ret = asahi_check(gpu);
	if (ret)
		return ret;
	for (type = 0; type < NUM_PIPES; type++) {
		struct asahi_testq *q = &gpu->queues[type];
		u32 done = rd32_once(q->state->cpu, RS_GPU_DONEPTR);

		if (q->job_count || done != q->wptr) {
			dev_err(gpu->dev,
				"%s queue: %u commands unchecked, done pointer %u, write pointer %u\n",
				q->pl->name, q->job_count, done, q->wptr);
			return -EIO;
		}
	}
	return 0;
}

static unsigned int asahi_errors(struct asahi_gpu *gpu)
{
	unsigned int errors;

	spin_lock(&gpu->lock);
	errors = gpu->errors;
	spin_unlock(&gpu->lock);
	return errors;
}

static int asahi_gpu_jobs(struct asahi_gpu *gpu, unsigned int n)
{
	unsigned int errors = asahi_errors(gpu), flags[2], doorbells[2];
	unsigned int submitted[NUM_PIPES], type, done = 0;
	bool render = true;
	u64 c0, c1, gpu_ticks;
	ktime_t t0, t1;
	s64 us;
	int ret;

	ret = asahi_gpu_queues(gpu);
	if (ret)
		return ret;
	for (type = 0; type < NUM_PIPES; type++)
		submitted[type] = gpu->queues[type].submitted;
	gpu->first_start = 0;
	gpu->last_end = 0;
	gpu->faults_seen = asahi_faults(gpu);
	spin_lock(&gpu->lock);
	flags[0] = gpu->flag_events;
	doorbells[0] = gpu->rx_doorbells;
	spin_unlock(&gpu->lock);

	t0 = ktime_get();
	c0 = arch_timer_read_counter();
	while (done < n) {
		if (render && n - done >= 2) {
			ret = asahi_submit_render(gpu);
			done += 2;
		} else {
			ret = asahi_submit_one(gpu, &gpu->queues[PIPE_COMPUTE]);
			done++;
		}
		render = !render;
		if (ret)
			break;
	}
	if (!ret)
		ret = asahi_drain(gpu);
	c1 = arch_timer_read_counter();
	t1 = ktime_get();
	spin_lock(&gpu->lock);
	flags[1] = gpu->flag_events;
	doorbells[1] = gpu->rx_doorbells;
	spin_unlock(&gpu->lock);
	if (ret) {
		if (ret == -EFAULT)
			dev_err(gpu->dev, "unexpected GPU fault\n");
		return ret;
	}
	if (asahi_errors(gpu) != errors) {
		dev_err(gpu->dev, "%u errors during gpu-jobs\n",
			asahi_errors(gpu) - errors);
		return -EIO;
	}
	if (rd32_once(gpu->fw_status->cpu, FWS_HALTED)) {
		dev_err(gpu->dev, "firmware halted\n");
		return -EIO;
	}

	us = max_t(s64, ktime_us_delta(t1, t0), 1);
	gpu_ticks = gpu->last_end - gpu->first_start;
	dev_info(gpu->dev,
		 "gpu-jobs: %u jobs (%u vertex, %u fragment, %u compute) in %lld us: %lld jobs/s; %u Flag events, %u RX doorbells\n",
		 n, gpu->queues[PIPE_VERTEX].submitted - submitted[PIPE_VERTEX],
		 gpu->queues[PIPE_FRAGMENT].submitted - submitted[PIPE_FRAGMENT],
		 gpu->queues[PIPE_COMPUTE].submitted - submitted[PIPE_COMPUTE],
		 us, div64_s64((s64)n * USEC_PER_SEC, us),
		 flags[1] - flags[0], doorbells[1] - doorbells[0]);
	dev_info(gpu->dev,
		 "gpu-jobs: GPU timestamps span %llu ticks (%llu us at 24 MHz), CNTVCT %llu ticks; first start - CNTVCT at submission: %lld ticks\n",
		 gpu_ticks, div_u64(gpu_ticks, 24), c1 - c0,
		 (s64)(gpu->first_start - c0));
	return 0;
}

/* Globals.pending_stamps: is the command with value on slot listed? */
static bool asahi_pending_listed(struct asahi_gpu *gpu, unsigned int slot,
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
				 "pending stamp %u: slot %u value 0x%x\n",
				 i, slot, value);
			return true;
		}
	}
	return false;
}

static int asahi_gpu_fault(struct asahi_gpu *gpu)
{
	struct asahi_testq *q = &gpu->queues[PIPE_VERTEX];
	unsigned long deadline = jiffies + msecs_to_jiffies(10 * asahi_wait_ms);
	unsigned int probes;
	void *fws = gpu->fw_status->cpu;
	u64 halts = rd64_once(fws, FWS_HALT_COUNT), info;
	struct asahi_tjob *job;
	u32 value, tag;
	int ret;

	ret = asahi_gpu_queues(gpu);
	if (ret)
		return ret;
	gpu->faults_seen = asahi_faults(gpu);
	/* Until the host's injection is armed, the commands just complete */
	for (probes = 1;; probes++) {
		ret = asahi_submit_one(gpu, q);
		if (ret)
			return ret;
		ret = asahi_wait_value(gpu, q, q->value);
		if (ret == -EFAULT)
			break;
		if (!ret)
			ret = asahi_check(gpu);
		if (ret)
			return ret;
		if (time_after(jiffies, deadline)) {
			dev_err(gpu->dev, "no GPU fault in %u commands\n",
				probes);
			return -ETIMEDOUT;
		}
		usleep_range(1000, 2000);
	}
	value = q->value;
	gpu->faults_seen = asahi_faults(gpu);

	/* What drm/asahi looks at after a Fault event */
	spin_lock(&gpu->lock);
	tag = get_unaligned_le32(gpu->last_event);
	spin_unlock(&gpu->lock);
	info = readq(gpu->sgx + SGX_FAULT_INFO);
	dev_info(gpu->dev,
		 "gpu-fault: fault on command 0x%x after %u commands: FAULT_INFO 0x%016llx (reason %llu, VM slot %llu, VA 0x%llx), halt count %llu\n",
		 value, probes, info, FIELD_GET(FAULT_INFO_REASON, info),
		 FIELD_GET(FAULT_INFO_SLOT, info),
		 FIELD_GET(FAULT_INFO_ADDR, info) << 6,
		 rd64_once(fws, FWS_HALT_COUNT));
	if (tag != EV_FAULT || !(info & FAULT_INFO_VALID) ||
	    FIELD_GET(FAULT_INFO_UNIT, info) != FAULT_UNIT_VDM0 ||
	    rd32_once(fws, FWS_HALTED) != 1 ||
	    rd64_once(fws, FWS_HALT_COUNT) != halts + 1 ||
	    stamp_ge(asahi_stamp(gpu, q->pl->slot), value) ||
	    !asahi_pending_listed(gpu, q->pl->slot, value)) {
		dev_err(gpu->dev, "gpu-fault: event %u, halted %u: not what a fault looks like\n",
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
	ret = asahi_wait_value(gpu, q, value);
	if (ret) {
		dev_err(gpu->dev, "gpu-fault: failed command 0x%x not retired after resume\n",
			value);
		return ret;
	}
	ret = asahi_submit_one(gpu, q);
	if (!ret)
		ret = asahi_drain(gpu);
	if (ret)
		return ret;
	info = readq(gpu->sgx + SGX_FAULT_INFO);
	if (rd32_once(fws, FWS_RESUME) || rd32_once(fws, FWS_HALTED) ||
	    (info & FAULT_INFO_VALID)) {
		dev_err(gpu->dev, "gpu-fault: after recovery resume %u, halted %u, FAULT_INFO 0x%llx\n",
			rd32_once(fws, FWS_RESUME), rd32_once(fws, FWS_HALTED),
			info);
		return -EIO;
	}
	dev_info(gpu->dev,
		 "gpu-fault: recovered, command 0x%x completed\n",
		 q->value);
	return 0;
}

/* The gpu-* commands of rtkit_cmd */
int asahi_gpu_run(struct asahi_device *priv, const char *verb,
		const char *arg)
{
	struct asahi_gpu *gpu = priv->gpu;
	unsigned int n;
	int ret;

	if (!strcmp(verb, "gpu-init") && !arg)
		return asahi_gpu_init(priv);
	if (!gpu) {
		dev_err(priv->dev, "%s before gpu-init\n", verb);
		return -EINVAL;
	}
	/* The self-tests lay out 13.5 records only */
	if (!gpu->abi->v13)
		return -EOPNOTSUPP;
	if (!strcmp(verb, "gpu-jobs") && arg) {
		ret = kstrtouint(arg, 0, &n);
		if (ret)
			return ret;
		return n ? asahi_gpu_jobs(gpu, n) : -EINVAL;
	}
	if (!strcmp(verb, "gpu-fault") && !arg)
		return asahi_gpu_fault(gpu);
	return -EINVAL;
}
