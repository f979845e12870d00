// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: the driver's own firmware self-tests (the former agx-rtkit-test
 * module's gpu-jobs and gpu-fault), run through the "selftest" sysfs
 * attribute of the GPU device: Run* commands with empty job parameters on
 * work queues of their own (asahi_workqueue.c, on event slots below
 * ASAHI_FIRST_QUEUE_SLOT), checked for order, stamps and timestamps; and
 * an injected GPU fault with drm/asahi's recovery.  Their state lives in
 * struct asahi_fwtest, made at the first test, kept for the device's life.
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
#include "asahi_workqueue.h"

/* Command blocks per work queue; stamps start so that they wrap soon */
#define TEST_BLOCKS		128
#define STAMP_BASE		((u32)(-100 * STAMP_STEP))

/* A submitted Run* command, until it is checked */
struct asahi_tjob {
	u32 value;		/* the stamp value it retires with */
	u32 block;
	u32 after;		/* fragment: value of its vertex command */
	bool has_after;
	bool failed;		/* taken down by a fault: never retires */
	u64 submitted_at;	/* CNTVCT before it was written */
};

/* A vertex command's end, for the fragment command behind it */
struct asahi_vertex_end {
	u32 value;
	u64 end;
};

/* A work queue of the self-tests and what it has in flight */
struct asahi_testq {
	const char *name;
	struct asahi_wq *wq;
	/* Blocks: in use until the command with stamp block_free is checked */
	bool block_used[TEST_BLOCKS];
	u32 block_free[TEST_BLOCKS];
	/* Submitted commands not yet checked, oldest first */
	struct asahi_tjob jobs[TEST_BLOCKS];
	u32 job_head;
	u32 job_count;
	u32 checked_value;	/* stamp value of the newest checked command */
	u64 last_end;		/* end timestamp of the newest checked one */
	struct asahi_vertex_end ends[TEST_BLOCKS];
	unsigned int submitted;
};

struct asahi_fwtest {
	struct asahi_gpu *gpu;
	struct asahi_obj *ctx;		/* GpuContextData of the work queues */
	struct asahi_testq queues[NUM_PIPES];
	/* Fault events accounted for: any other one interrupts waits */
	unsigned int faults_seen;
	/* Over all checked commands, for the report */
	u64 first_start;
	u64 last_end;
	unsigned int jobs_checked;
};

static const char *const pipe_names[NUM_PIPES] = {
	"vertex", "fragment", "compute",
};

/* The firmware priority (pipe channel) of the tests' queue on each pipe */
static const unsigned int pipe_prio[NUM_PIPES] = { 1, 1, 2 };

/* The work queues go before the firmware's memory does (asahi_gpu_fini) */
static void asahi_fwtest_fini(void *data)
{
	struct asahi_fwtest *ft = data;
	struct asahi_device *priv = ft->gpu->priv;
	unsigned int type;

	for (type = 0; type < NUM_PIPES; type++) {
		if (!IS_ERR_OR_NULL(ft->queues[type].wq))
			asahi_wq_destroy(ft->queues[type].wq);
	}
	if (!IS_ERR_OR_NULL(ft->ctx))
		asahi_ctx_destroy(ft->gpu, ft->ctx);
	priv->fwtest = NULL;
	kfree(ft);
}

/* The self-tests' state and work queues, made by the first test */
static struct asahi_fwtest *asahi_fwtest_get(struct asahi_device *priv)
{
	struct asahi_gpu *gpu = priv->gpu;
	struct asahi_fwtest *ft = priv->fwtest;
	unsigned int type;
	int ret;

	if (ft)
		return ft;
	ft = kzalloc_obj(*ft);
	if (!ft)
		return ERR_PTR(-ENOMEM);
	ft->gpu = gpu;
	priv->fwtest = ft;
	ret = devm_add_action_or_reset(priv->dev, asahi_fwtest_fini, ft);
	if (ret)
		return ERR_PTR(ret);
	ft->ctx = asahi_ctx_create(gpu);
	ret = PTR_ERR_OR_ZERO(ft->ctx);
	for (type = 0; type < NUM_PIPES && !ret; type++) {
		struct asahi_testq *q = &ft->queues[type];
		struct asahi_wq_args args = {
			.type = type,
			.prio = pipe_prio[type],
			.uuid = 0x7e570000 | type,
			.ctx_va = ft->ctx->va,
			.nblocks = TEST_BLOCKS,
			.stamp = STAMP_BASE,
		};

		q->name = pipe_names[type];
		q->checked_value = STAMP_BASE;
		q->wq = asahi_wq_create(gpu, &args);
		ret = PTR_ERR_OR_ZERO(q->wq);
	}
	if (ret) {
		/* No half-made state: the next test tries again */
		devm_release_action(priv->dev, asahi_fwtest_fini, ft);
		return ERR_PTR(ret);
	}
	return ft;
}

static bool asahi_reached(struct asahi_gpu *gpu, unsigned int slot, u32 value)
{
	bool ret;

	spin_lock(&gpu->lock);
	ret = stamp_ge(gpu->flag_stamp[slot], value);
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

static bool asahi_interrupted(struct asahi_fwtest *ft)
{
	struct asahi_gpu *gpu = ft->gpu;
	bool ret;

	spin_lock(&gpu->lock);
	ret = gpu->dead || gpu->fault_events != ft->faults_seen;
	spin_unlock(&gpu->lock);
	return ret;
}

/*
 * Waits until a Flag event showed q's stamp at value.  -EFAULT if a Fault
 * event came first (one beyond faults_seen), -EIO if the firmware died.
 */
static int asahi_wait_value(struct asahi_fwtest *ft, struct asahi_testq *q,
			    u32 value)
{
	struct asahi_gpu *gpu = ft->gpu;
	unsigned int slot = q->wq->slot;

	wait_event_timeout(gpu->wait, asahi_reached(gpu, slot, value) ||
			   asahi_interrupted(ft),
			   msecs_to_jiffies(asahi_wait_ms));
	if (asahi_reached(gpu, slot, value))
		return 0;
	if (asahi_faults(gpu) != ft->faults_seen)
		return -EFAULT;
	if (asahi_interrupted(ft)) {
		dev_err(gpu->dev, "firmware died\n");
		return -EIO;
	}
	dev_err(gpu->dev,
		"%s queue: no Flag for stamp 0x%x in %u ms (stamp 0x%x, Flag stamp 0x%x, done %u of %u)\n",
		q->name, value, asahi_wait_ms, asahi_stamp(gpu, slot),
		gpu->flag_stamp[slot],
		rd32_once(q->wq->state->cpu, RS_GPU_DONEPTR), q->wq->wptr);
	return -ETIMEDOUT;
}

/* What is wrong with a completed command's timestamps, if anything */
static const char *asahi_check_times(struct asahi_fwtest *ft,
				     struct asahi_testq *q,
				     const struct asahi_tjob *job, u64 start,
				     u64 end)
{
	u64 min_ticks = div_u64((u64)asahi_job_ns * 24, 1000);
	/* Its completion was seen: the CPU counter is past its end now */
	u64 now = arch_timer_read_counter();
	const struct asahi_vertex_end *v;

	if (job->failed)
		/* Started, then the fault: it never ended */
		return end ? "failed command has an end timestamp" : NULL;
	if (!start || end < start + min_ticks)
		return "timestamps out of order or too close";
	if (start < job->submitted_at)
		return "GPU start timestamp before CNTVCT at submission";
	if (end > now)
		return "GPU end timestamp after CNTVCT at completion";
	if (start < q->last_end)
		return "started before the previous command ended";
	if (!stamp_ge(asahi_fw_stamp(ft->gpu, q->wq->slot), job->value))
		return "firmware stamp behind the stamp";
	if (!job->has_after)
		return NULL;
	v = &ft->queues[PIPE_VERTEX].ends[(job->after / STAMP_STEP) %
					  TEST_BLOCKS];
	if (v->value != job->after)
		return "lost its vertex command";
	if (start < v->end)
		return "started before its vertex command ended";
	return NULL;
}

/* Checks one completed command of q; false on a failed check */
static bool asahi_check_job(struct asahi_fwtest *ft, struct asahi_testq *q,
			    const struct asahi_tjob *job)
{
	const void *blk = asahi_wq_block(q->wq, job->block);
	u64 start = rd64_once(blk, B_KERNEL_TS);
	u64 end = rd64_once(blk, B_KERNEL_TS + 8);
	const char *bad = asahi_check_times(ft, q, job, start, end);

	if (bad) {
		dev_err(ft->gpu->dev,
			"%s command 0x%x (block %u): %s: start %llu end %llu, previous end %llu\n",
			q->name, job->value, job->block, bad, start, end,
			q->last_end);
		return false;
	}
	if (job->failed)
		return true;
	q->last_end = end;
	if (q->wq->type == PIPE_VERTEX) {
		struct asahi_vertex_end *v =
			&q->ends[(job->value / STAMP_STEP) % TEST_BLOCKS];

		v->value = job->value;
		v->end = end;
	}
	if (!ft->first_start || start < ft->first_start)
		ft->first_start = start;
	if (end > ft->last_end)
		ft->last_end = end;
	return true;
}

/*
 * Checks every command whose completion a Flag reported, oldest first;
 * vertex before fragment, so that renders find their vertex command.
 */
static int asahi_check(struct asahi_fwtest *ft)
{
	unsigned int type;

	for (type = 0; type < NUM_PIPES; type++) {
		struct asahi_testq *q = &ft->queues[type];

		while (q->job_count) {
			struct asahi_tjob *job = &q->jobs[q->job_head];

			if (!asahi_reached(ft->gpu, q->wq->slot, job->value))
				break;
			if (job->has_after &&
			    !stamp_ge(ft->queues[PIPE_VERTEX].checked_value,
				      job->after))
				break;
			if (!asahi_check_job(ft, q, job)) {
				asahi_gpu_error(ft->gpu);
				return -EIO;
			}
			q->checked_value = job->value;
			q->job_head = (q->job_head + 1) % TEST_BLOCKS;
			q->job_count--;
			WRITE_ONCE(ft->jobs_checked, ft->jobs_checked + 1);
		}
	}
	return 0;
}

/*
 * Makes the next block of q free for a command that is done when the
 * command with stamp free is checked: waits for the block's previous
 * command.  Returns the block.
 */
static int asahi_testq_block(struct asahi_fwtest *ft, struct asahi_testq *q,
			     u32 free)
{
	u32 i = asahi_wq_next_block(q->wq);
	int tries, ret;

	for (tries = 0; q->block_used[i] &&
	     !stamp_ge(q->checked_value, q->block_free[i]); tries++) {
		/* A render's vertex command may need one more pass */
		if (tries > 2) {
			dev_err(ft->gpu->dev, "%s block %u stays busy\n",
				q->name, i);
			return -EIO;
		}
		ret = asahi_wait_value(ft, q, q->block_free[i]);
		if (!ret)
			ret = asahi_check(ft);
		if (ret)
			return ret;
	}
	q->block_used[i] = true;
	q->block_free[i] = free;
	return i;
}

/*
 * A Run* command with timestamps; after: the vertex stamp a render's
 * fragment waits for
 */
static int asahi_test_run(struct asahi_fwtest *ft, struct asahi_testq *q,
			  bool has_after, u32 after)
{
	struct asahi_wq *wq = q->wq;
	u32 value = wq->value + STAMP_STEP;
	struct asahi_run run = {
		.uuid = value,
		.flush = true,
		.ts = true,
	};
	struct asahi_testq *frag = &ft->queues[PIPE_FRAGMENT];
	struct asahi_tjob *job;
	u64 submitted_at;
	int block;

	block = asahi_testq_block(ft, q, value);
	if (block < 0)
		return block;
	submitted_at = arch_timer_read_counter();
	if (wq->type == PIPE_VERTEX)
		asahi_wq_vertex(wq, &run, frag->wq, frag->wq->value);
	else if (wq->type == PIPE_FRAGMENT)
		asahi_wq_fragment(wq, &run);
	else
		asahi_wq_compute(wq, &run);

	job = &q->jobs[(q->job_head + q->job_count) % TEST_BLOCKS];
	job->value = value;
	job->block = block;
	job->has_after = has_after;
	job->after = after;
	job->failed = false;
	job->submitted_at = submitted_at;
	q->job_count++;
	q->submitted++;
	return 0;
}

/* A Barrier on q: wait until on's firmware stamp reaches value */
static int asahi_test_barrier(struct asahi_fwtest *ft, struct asahi_testq *q,
			      struct asahi_testq *on, u32 value)
{
	/* Done once the command behind it is */
	int block = asahi_testq_block(ft, q, q->wq->value + STAMP_STEP);

	if (block < 0)
		return block;
	asahi_wq_barrier(q->wq, on->wq, value, BAR_UUID_EXPLICIT, 0);
	return 0;
}

/* Announces what was appended to q: RunWorkQueue, then the doorbell */
static int asahi_testq_kick(struct asahi_fwtest *ft, struct asahi_testq *q)
{
	int ret;

	/* The pipe channels are shared with the DRM queues */
	mutex_lock(&ft->gpu->tx_lock);
	ret = asahi_wq_kick(q->wq);
	mutex_unlock(&ft->gpu->tx_lock);
	return ret;
}

/* drm/asahi's render: fragment behind a Barrier, kicked first */
static int asahi_test_render(struct asahi_fwtest *ft)
{
	struct asahi_testq *vtx = &ft->queues[PIPE_VERTEX];
	struct asahi_testq *frag = &ft->queues[PIPE_FRAGMENT];
	u32 want = vtx->wq->value + STAMP_STEP;
	int ret;

	ret = asahi_test_barrier(ft, frag, vtx, want);
	if (!ret)
		ret = asahi_test_run(ft, frag, true, want);
	if (!ret)
		ret = asahi_testq_kick(ft, frag);
	if (!ret)
		ret = asahi_test_run(ft, vtx, false, 0);
	if (!ret)
		ret = asahi_testq_kick(ft, vtx);
	return ret;
}

static int asahi_test_one(struct asahi_fwtest *ft, struct asahi_testq *q)
{
	int ret = asahi_test_run(ft, q, false, 0);

	return ret ? ret : asahi_testq_kick(ft, q);
}

/* Waits for and checks everything submitted */
static int asahi_drain(struct asahi_fwtest *ft)
{
	unsigned int type;
	int ret;

	for (type = 0; type < NUM_PIPES; type++) {
		struct asahi_testq *q = &ft->queues[type];

		ret = asahi_wait_value(ft, q, q->wq->value);
		if (ret)
			return ret;
	}
	/* Twice: the first pass may leave a fragment for its vertex */
	ret = asahi_check(ft);
	if (!ret)
		ret = asahi_check(ft);
	if (ret)
		return ret;
	for (type = 0; type < NUM_PIPES; type++) {
		struct asahi_testq *q = &ft->queues[type];
		u32 done = rd32_once(q->wq->state->cpu, RS_GPU_DONEPTR);

		if (q->job_count || done != q->wq->wptr) {
			dev_err(ft->gpu->dev,
				"%s queue: %u commands unchecked, done pointer %u, write pointer %u\n",
				q->name, q->job_count, done, q->wq->wptr);
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

/* Flag events and RX doorbells so far */
static void asahi_counts(struct asahi_gpu *gpu, unsigned int *flags,
			 unsigned int *doorbells)
{
	spin_lock(&gpu->lock);
	*flags = gpu->flag_events;
	*doorbells = gpu->rx_doorbells;
	spin_unlock(&gpu->lock);
}

/* Submits n jobs, renders and computes in turn, and checks them all */
static int asahi_run_jobs(struct asahi_fwtest *ft, unsigned int n)
{
	bool render = true;
	unsigned int done = 0;
	int ret = 0;

	while (done < n && !ret) {
		if (render && n - done >= 2) {
			ret = asahi_test_render(ft);
			done += 2;
		} else {
			ret = asahi_test_one(ft, &ft->queues[PIPE_COMPUTE]);
			done++;
		}
		render = !render;
	}
	return ret ? ret : asahi_drain(ft);
}

static int asahi_gpu_jobs(struct asahi_fwtest *ft, unsigned int n)
{
	struct asahi_gpu *gpu = ft->gpu;
	unsigned int errors = asahi_errors(gpu), flags[2], doorbells[2];
	unsigned int submitted[NUM_PIPES], type;
	u64 c0, c1, gpu_ticks;
	ktime_t t0, t1;
	s64 us;
	int ret;

	for (type = 0; type < NUM_PIPES; type++)
		submitted[type] = ft->queues[type].submitted;
	ft->first_start = 0;
	ft->last_end = 0;
	ft->faults_seen = asahi_faults(gpu);
	asahi_counts(gpu, &flags[0], &doorbells[0]);

	t0 = ktime_get();
	c0 = arch_timer_read_counter();
	ret = asahi_run_jobs(ft, n);
	c1 = arch_timer_read_counter();
	t1 = ktime_get();
	asahi_counts(gpu, &flags[1], &doorbells[1]);
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
	gpu_ticks = ft->last_end - ft->first_start;
	for (type = 0; type < NUM_PIPES; type++)
		submitted[type] = ft->queues[type].submitted - submitted[type];
	dev_info(gpu->dev,
		 "gpu-jobs: %u jobs (%u vertex, %u fragment, %u compute) in %lld us: %lld jobs/s; %u Flag events, %u RX doorbells\n",
		 n, submitted[PIPE_VERTEX], submitted[PIPE_FRAGMENT],
		 submitted[PIPE_COMPUTE], us,
		 div64_s64((s64)n * USEC_PER_SEC, us),
		 flags[1] - flags[0], doorbells[1] - doorbells[0]);
	dev_info(gpu->dev,
		 "gpu-jobs: GPU timestamps span %llu ticks (%llu us at 24 MHz), CNTVCT %llu ticks; first start - CNTVCT at submission: %lld ticks\n",
		 gpu_ticks, div_u64(gpu_ticks, 24), c1 - c0,
		 (s64)(ft->first_start - c0));
	return 0;
}

/* Globals.pending_stamps: is the command with value on slot listed? */
static bool asahi_pending_listed(struct asahi_gpu *gpu, unsigned int slot,
				 u32 value)
{
	const void *p = gpu->globals->cpu + gpu->abi->gl_pending_stamps;
	unsigned int i;

	for (i = 0; i < NUM_PENDING_STAMPS; i++) {
		u32 info = rd32_once(p, 8 * i);

		if ((info & PENDING_VALID) &&
		    asahi_pending_slot(gpu, info) == slot &&
		    rd32_once(p, 8 * i + 4) == value) {
			dev_info(gpu->dev,
				 "pending stamp %u: slot %u value 0x%x\n",
				 i, slot, value);
			return true;
		}
	}
	return false;
}

/* Until the host's injection is armed, the commands just complete */
static int asahi_fault_probe(struct asahi_fwtest *ft, struct asahi_testq *q,
			     unsigned int *probes)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(10 * asahi_wait_ms);
	int ret;

	for (*probes = 1;; (*probes)++) {
		ret = asahi_test_one(ft, q);
		if (ret)
			return ret;
		ret = asahi_wait_value(ft, q, q->wq->value);
		if (ret == -EFAULT)
			return 0;
		if (!ret)
			ret = asahi_check(ft);
		if (ret)
			return ret;
		if (time_after(jiffies, deadline)) {
			dev_err(ft->gpu->dev, "no GPU fault in %u commands\n",
				*probes);
			return -ETIMEDOUT;
		}
		usleep_range(1000, 2000);
	}
}

/* What drm/asahi looks at after a Fault event: is it the fault we made? */
static bool asahi_fault_seen(struct asahi_fwtest *ft, struct asahi_testq *q,
			     u32 value, unsigned int probes, u64 halts)
{
	struct asahi_gpu *gpu = ft->gpu;
	void *fws = gpu->fw_status->cpu;
	u64 info;
	u32 tag;

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
	    stamp_ge(asahi_stamp(gpu, q->wq->slot), value) ||
	    !asahi_pending_listed(gpu, q->wq->slot, value)) {
		dev_err(gpu->dev, "gpu-fault: event %u, halted %u: not what a fault looks like\n",
			tag, rd32_once(fws, FWS_HALTED));
		return false;
	}
	return true;
}

static int asahi_gpu_fault(struct asahi_fwtest *ft)
{
	struct asahi_gpu *gpu = ft->gpu;
	struct asahi_testq *q = &ft->queues[PIPE_VERTEX];
	void *fws = gpu->fw_status->cpu;
	u64 halts = rd64_once(fws, FWS_HALT_COUNT), info;
	unsigned int probes;
	u32 value;
	int ret;

	ft->faults_seen = asahi_faults(gpu);
	ret = asahi_fault_probe(ft, q, &probes);
	if (ret)
		return ret;
	value = q->wq->value;
	ft->faults_seen = asahi_faults(gpu);
	if (!asahi_fault_seen(ft, q, value, probes, halts))
		return -EIO;

	/* drm/asahi fails the command, then recover(): halted 0, resume 1 */
	q->jobs[(q->job_head + q->job_count - 1) % TEST_BLOCKS].failed = true;
	wr32_once(fws, FWS_HALTED, 0);
	/* In this order, as the driver writes them */
	wmb();
	wr32_once(fws, FWS_RESUME, 1);

	/*
	 * No doorbell: the halted firmware notices resume by itself and
	 * retires the failed command, whose stamp is how drm/asahi completes
	 * a command it marked in error
	 */
	ret = asahi_wait_value(ft, q, value);
	if (ret) {
		dev_err(gpu->dev, "gpu-fault: failed command 0x%x not retired after resume\n",
			value);
		return ret;
	}
	ret = asahi_test_one(ft, q);
	if (!ret)
		ret = asahi_drain(ft);
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
		 q->wq->value);
	return 0;
}

/* Commands the self-tests checked, for gpu_state */
unsigned int asahi_fwtest_jobs(struct asahi_device *priv)
{
	struct asahi_fwtest *ft = READ_ONCE(priv->fwtest);

	return ft ? READ_ONCE(ft->jobs_checked) : 0;
}

/* The gpu-* commands of the selftest attribute; under priv->cmd_lock */
int asahi_gpu_run(struct asahi_device *priv, const char *verb,
		  const char *arg)
{
	struct asahi_fwtest *ft;
	unsigned int n;
	int ret;

	if (!strcmp(verb, "gpu-init") && !arg)
		return asahi_gpu_init(priv);
	if (!priv->gpu) {
		dev_err(priv->dev, "%s before gpu-init\n", verb);
		return -EINVAL;
	}
	if (!strcmp(verb, "gpu-jobs") && arg) {
		ret = kstrtouint(arg, 0, &n);
		if (ret)
			return ret;
		if (!n)
			return -EINVAL;
		ft = asahi_fwtest_get(priv);
		return IS_ERR(ft) ? PTR_ERR(ft) : asahi_gpu_jobs(ft, n);
	}
	if (!strcmp(verb, "gpu-fault") && !arg) {
		ft = asahi_fwtest_get(priv);
		return IS_ERR(ft) ? PTR_ERR(ft) : asahi_gpu_fault(ft);
	}
	return -EINVAL;
}
