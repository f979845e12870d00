// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: firmware work queues.
 *
 * A work queue is a QueueInfo (pointing at its RingState, its ring and the
 * GpuContextData it runs in, which DeviceControl DestroyContext ends), a
 * ring of command VAs the firmware consumes, a pool of command blocks and
 * an event slot whose stamps its commands retire with.  Commands are
 * written into the next block of the pool and appended to the ring;
 * asahi_wq_kick() publishes the write pointer and tells the firmware with
 * RunWorkQueue and a doorbell on the queue's priority channel.
 *
 * Records: a RunCompute with its microsequence (StartCompute,
 * WaitForIdle, FinalizeCompute, RetireStamp), a RunVertex (behind an
 * InitBuffer when its TVB scene asks for one) and a RunFragment with
 * theirs, and Barriers that wait for another work queue's firmware
 * stamp.  With timestamps, Timestamp ops go around WaitForIdle; they
 * write the time to the record's kernel {start, end} pair in the command
 * block and to the user's pair.  The job parameters come from
 * asahi_params.c, the TVB words from asahi_buffer.c.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "asahi_buffer.h"
#include "asahi_drv.h"
#include "asahi_fw.h"
#include "asahi_params.h"
#include "asahi_workqueue.h"

#define DESTROY_CONTEXT_MS	1000

/* A GpuContextData for work queues to run in (they name it) */
struct asahi_obj *asahi_ctx_create(struct asahi_gpu *gpu)
{
	struct asahi_obj *ctx;

	mutex_lock(&gpu->priv->gpu_lock);
	ctx = asahi_obj_alloc(gpu, HEAP_SHARED, CTX_SIZE,
			      UAT_PROT_FW_SHARED_RW);
	mutex_unlock(&gpu->priv->gpu_lock);
	if (IS_ERR(ctx))
		return ctx;
	/* GpuContextData defaults: unk_0 = unk_1 = 0xff, unk_23 = 2 */
	wr32(ctx->cpu, CTX_UNK_0, 0xffff);
	((u8 *)ctx->cpu)[CTX_UNK_23] = 2;
	return ctx;
}

/*
 * The context's work queues are gone and their work over: tell the
 * firmware with DeviceControl DestroyContext ({ctx_23, ctx_0, ctx_1,
 * ctx_4} read back from the context, its VA), wait up to a second for it
 * to take the message, then free the context.  Not to a crashed
 * firmware.
 */
int asahi_ctx_destroy(struct asahi_gpu *gpu, struct asahi_obj *ctx)
{
	const struct asahi_abi *a = gpu->abi;
	const u8 *c = ctx->cpu;
	u8 msg[DEVCTRL_MSG_SIZE] = { 0 };
	struct asahi_ring *r = &gpu->devctrl;
	unsigned long timeout;
	u32 pos;
	int ret = 0;

	if (!asahi_crashed(gpu->priv)) {
		wr32(msg, 0, DC_DESTROY_CONTEXT(a));
		msg[DCX_CTX_23] = c[CTX_UNK_23];
		msg[DCX_CTX_0(a)] = c[CTX_UNK_0];
		msg[DCX_CTX_0(a) + 1] = c[CTX_UNK_0 + 1];
		msg[DCX_CTX_0(a) + 2] = c[CTX_UNK_4];
		wr64(msg, DCX_GPU_CONTEXT(a), ctx->va);
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
	}
	mutex_lock(&gpu->priv->gpu_lock);
	asahi_obj_free(gpu, ctx);
	mutex_unlock(&gpu->priv->gpu_lock);
	return ret;
}

/* Frees what asahi_wq_create() made; the firmware is done with it */
void asahi_wq_destroy(struct asahi_wq *wq)
{
	struct asahi_gpu *gpu = wq->gpu;
	struct asahi_device *adev = gpu->priv;

	mutex_lock(&adev->gpu_lock);
	if (wq->slot) {
		spin_lock(&gpu->lock);
		gpu->slot_owner[wq->slot] = NULL;
		clear_bit(wq->slot, gpu->our_slots);
		set_bit(wq->slot, gpu->freed_slots);
		spin_unlock(&gpu->lock);
	}
	asahi_obj_free(gpu, wq->blocks);
	asahi_obj_free(gpu, wq->ring);
	asahi_obj_free(gpu, wq->state);
	asahi_obj_free(gpu, wq->info);
	mutex_unlock(&adev->gpu_lock);
	kfree(wq);
}

/* A free event slot for wq, its stamps at value; under gpu->lock */
static bool asahi_wq_take_slot(struct asahi_wq *wq, u32 value)
{
	struct asahi_gpu *gpu = wq->gpu;
	unsigned int first = wq->drm ? ASAHI_FIRST_QUEUE_SLOT : 1;
	unsigned int end = wq->drm ? NUM_SLOTS : ASAHI_FIRST_QUEUE_SLOT;
	unsigned int slot = find_next_zero_bit(gpu->our_slots, end, first);

	if (slot >= end)
		return false;
	set_bit(slot, gpu->our_slots);
	clear_bit(slot, gpu->freed_slots);
	if (wq->drm)
		gpu->slot_owner[slot] = wq;
	gpu->flag_stamp[slot] = value;
	wq->slot = slot;
	wr32_once(gpu->stamps->cpu, 4 * slot, value);
	wr32_once(gpu->fw_stamps->cpu, 4 * slot, value);
	return true;
}

/* QueueInfo, RingState, ring, command blocks and an event slot */
struct asahi_wq *asahi_wq_create(struct asahi_gpu *gpu,
				 const struct asahi_wq_args *args)
{
	struct asahi_device *adev = gpu->priv;
	struct asahi_wq *wq = kzalloc_obj(*wq);
	bool ok = false;

	if (!wq)
		return ERR_PTR(-ENOMEM);
	wq->gpu = gpu;
	wq->type = args->type;
	wq->prio = args->prio;
	wq->drm = args->drm;
	wq->nblocks = args->nblocks;
	wq->value = args->stamp;
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
				     (size_t)wq->nblocks * CMD_BLOCK_SIZE,
				     UAT_PROT_FW_PRIV_RW);
	if (!IS_ERR(wq->info) && !IS_ERR(wq->state) && !IS_ERR(wq->ring) &&
	    !IS_ERR(wq->blocks)) {
		spin_lock(&gpu->lock);
		ok = asahi_wq_take_slot(wq, args->stamp);
		spin_unlock(&gpu->lock);
	}
	mutex_unlock(&adev->gpu_lock);
	if (!ok) {
		if (IS_ERR(wq->info))
			wq->info = NULL;
		if (IS_ERR(wq->state))
			wq->state = NULL;
		if (IS_ERR(wq->ring))
			wq->ring = NULL;
		if (IS_ERR(wq->blocks))
			wq->blocks = NULL;
		asahi_wq_destroy(wq);
		return ERR_PTR(-EBUSY);
	}

	wr64(wq->info->cpu, QI_STATE, wq->state->va);
	wr64(wq->info->cpu, QI_RING, wq->ring->va);
	wr32(wq->info->cpu, QI_EVENT_ID, 0xffffffff);
	wr32(wq->info->cpu, QI_UUID, args->uuid);
	wr64(wq->info->cpu, gpu->abi->qi_gpu_context, args->ctx_va);
	wr32(wq->state->cpu, RS_RB_SIZE, WQ_SIZE);
	/* All of it is in memory before a command names it */
	wmb();
	return wq;
}

/* The block the next record goes into */
u32 asahi_wq_next_block(const struct asahi_wq *wq)
{
	return wq->next_block % wq->nblocks;
}

const void *asahi_wq_block(const struct asahi_wq *wq, u32 block)
{
	return wq->blocks->cpu + (size_t)block * CMD_BLOCK_SIZE;
}

/* The next block of the pool, zeroed: its index, CPU pointer and VA */
static u32 asahi_wq_take_block(struct asahi_wq *wq, void **blk, u64 *va)
{
	u32 block = asahi_wq_next_block(wq);

	wq->next_block++;
	*blk = wq->blocks->cpu + (size_t)block * CMD_BLOCK_SIZE;
	*va = wq->blocks->va + (u64)block * CMD_BLOCK_SIZE;
	memset(*blk, 0, CMD_BLOCK_SIZE);
	return block;
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
u32 asahi_wq_barrier(struct asahi_wq *wq, struct asahi_wq *on, u32 value,
		     u32 uuid, u32 type)
{
	struct asahi_gpu *gpu = wq->gpu;
	void *blk;
	u64 va;
	u32 block = asahi_wq_take_block(wq, &blk, &va);

	wr32(blk, 0, CMD_BARRIER);
	wr64(blk, BAR_WAIT_STAMP, gpu->fw_stamps->va + 4 * on->slot);
	wr32(blk, BAR_WAIT_VALUE, value);
	wr32(blk, BAR_WAIT_SLOT, on->slot);
	wr32(blk, BAR_STAMP_SELF, wq->value + STAMP_STEP);
	wr32(blk, BAR_UUID, uuid);
	wr32(blk, BAR_TYPE, type);
	asahi_wq_append(wq, va);
	return block;
}

/* JobMeta: the stamp the command retires with */
static void asahi_put_meta(struct asahi_wq *wq, void *meta, u32 value,
			   const struct asahi_run *run)
{
	struct asahi_gpu *gpu = wq->gpu;

	wr64(meta, META_STAMP, gpu->stamps->va + 4 * wq->slot);
	wr64(meta, META_FW_STAMP, gpu->fw_stamps->va + 4 * wq->slot);
	wr32(meta, META_VALUE, value);
	wr32(meta, META_SLOT, wq->slot);
	wr32(meta, META_FLUSH_STAMPS, run->flush);
	wr32(meta, META_UUID, run->uuid);
	wr64(meta, META_EVENT_SEQ, wq->event_seq);
}

/* The record's time slots, and one Timestamp op into useq at pos */
static u32 asahi_put_ts(struct asahi_wq *wq, const struct asahi_run *run,
			void *blk, u64 va, u32 cur, void *useq, u32 pos,
			bool start)
{
	void *op = useq + pos;

	wr64(blk, cur + REC_TS_PAIR, va + B_KERNEL_TS);
	wr64(blk, cur + REC_TS_PAIR + 8, va + B_KERNEL_TS + 8);
	wr64(blk, cur + REC_TS_USER, run->user_ts[0]);
	wr64(blk, cur + REC_TS_USER + 8, run->user_ts[1]);
	wr32(op, 0, OP_TIMESTAMP | (start ? OP_TIMESTAMP_START : 0));
	wr64(op, TS_CUR, va + cur);
	wr64(op, TS_PAIR, va + cur + REC_TS_PAIR);
	wr64(op, TS_UPDATE, va + cur + REC_TS_PAIR + (start ? 0 : 8));
	wr64(op, TS_WORK_QUEUE, wq->info->va);
	wr64(op, TS_USER, va + cur + REC_TS_USER);
	wr32(op, wq->gpu->abi->ts_uuid, run->uuid);
	return wq->gpu->abi->ts_size;
}

/*
 * The middle of every microsequence, from pos: [Timestamp] WaitForIdle
 * [Timestamp] for the record's pipe; returns the new position
 */
static u32 asahi_put_wait(struct asahi_wq *wq, const struct asahi_run *run,
			  void *blk, u64 va, void *useq, u32 pos)
{
	static const u32 wait_op[NUM_PIPES] = {
		OP_WAIT_VERTEX, OP_WAIT_FRAGMENT, OP_WAIT_COMPUTE,
	};
	static const u32 cur_ts[NUM_PIPES] = { RV_CUR_TS, RF_CUR_TS, RC_CUR_TS };
	const struct asahi_abi *a = wq->gpu->abi;
	u32 cur = ABI_TIME(a, wq->type, cur_ts[wq->type]);

	if (run->ts)
		pos += asahi_put_ts(wq, run, blk, va, cur, useq, pos, true);
	wr32(useq, pos, wait_op[wq->type]);
	pos += 4;
	if (run->ts)
		pos += asahi_put_ts(wq, run, blk, va, cur, useq, pos, false);
	return pos;
}

/*
 * The words every Run record has: tag, counter, VM slot, microsequence,
 * JobMeta, client sequence; then it goes on the ring with stamp value
 */
static void asahi_wq_put_run(struct asahi_wq *wq, const struct asahi_run *run,
			     void *blk, u64 va, u32 useq_size, u32 value)
{
	static const u32 tag[NUM_PIPES] = { RV_TAG, RF_TAG, RC_TAG };
	static const u32 counter[NUM_PIPES] = {
		RV_COUNTER, RF_COUNTER, RC_COUNTER,
	};
	static const u32 client_seq[NUM_PIPES] = {
		RV_CLIENT_SEQ, RF_CLIENT_SEQ, RC_CLIENT_SEQ,
	};
	const struct asahi_abi *a = wq->gpu->abi;
	unsigned int t = wq->type;

	wr32(blk, 0, tag[t]);
	if (a->v13)
		wr64(blk, counter[t], wq->counter);
	wr32(blk, a->run_vm_slot[t], run->vm_slot);
	wr64(blk, a->run_useq[t], va + B_USEQ);
	wr32(blk, a->run_useq[t] + 8, useq_size);
	asahi_put_meta(wq, blk + a->run_meta[t], value, run);
	((u8 *)blk)[ABI_TIME(a, t, client_seq[t])] = run->event_gen & 0xff;
	asahi_wq_append(wq, va);
	wq->value = value;
}

/* RunCompute and its microsequence */
u32 asahi_wq_compute(struct asahi_wq *wq, const struct asahi_run *run)
{
	const struct asahi_abi *a = wq->gpu->abi;
	u64 fw_stamp_va = wq->gpu->fw_stamps->va + 4 * wq->slot;
	u32 value = wq->value + STAMP_STEP, pos = 0, fc = a->fc_shift;
	void *blk, *useq;
	u64 va;
	u32 block = asahi_wq_take_block(wq, &blk, &va);

	useq = blk + B_USEQ;
	wq->counter++;
	wq->event_seq++;
	wr32(useq, pos, OP_START_COMPUTE);
	wr64(useq, pos + SC_JOB_PARAMS1, va + ABI_REC(a, RC_JOB_PARAMS1));
	wr64(useq, pos + SC_WORK_QUEUE, wq->info->va);
	wr32(useq, pos + SC_VM_SLOT, run->vm_slot);
	wr32(useq, pos + SC_UNK_28, 1);
	wr32(useq, pos + SC_EVENT_GEN, run->event_gen);
	wr64(useq, pos + SC_EVENT_SEQ, wq->event_seq);
	wr64(useq, pos + SC_JOB_PARAMS2, va + ABI_REC(a, RC_JOB_PARAMS2));
	wr32(useq, pos + SC_UUID, run->uuid);
	if (a->v13)
		wr64(useq, pos + SC_COUNTER, wq->counter);
	pos += a->op_start[PIPE_COMPUTE];
	pos = asahi_put_wait(wq, run, blk, va, useq, pos);
	wr32(useq, pos, OP_FINALIZE_COMPUTE);
	wr64(useq, pos + FC_WORK_QUEUE, wq->info->va);
	wr32(useq, pos + FC_VM_SLOT, run->vm_slot);
	wr64(useq, pos + FC_JOB_PARAMS2 + fc,
	     va + ABI_REC(a, RC_JOB_PARAMS2));
	wr32(useq, pos + FC_UUID + fc, run->uuid);
	wr64(useq, pos + FC_FW_STAMP + fc, fw_stamp_va);
	wr32(useq, pos + FC_VALUE + fc, value);
	/* Back to StartCompute, should the firmware restart the job */
	wr32(useq, pos + FC_RESTART + fc, -(s32)pos);
	pos += a->op_finalize[PIPE_COMPUTE];
	wr32(useq, pos, OP_RETIRE_STAMP);
	pos += 4;

	if (run->compute)
		asahi_params_compute(a, blk, run->compute, run->usc_exec_base);
	asahi_wq_put_run(wq, run, blk, va, pos, value);
	return block;
}

/* The buffer's slot binding, before the vertex command that uses it */
static void asahi_wq_init_buffer(struct asahi_wq *wq,
				 const struct asahi_run *run,
				 const struct asahi_scene_va *sv, void *blk,
				 u64 va, u32 value)
{
	void *ib = blk + B_INIT_BUFFER;
	u32 blocks;

	if (!run->scene || !asahi_buffer_take_init(run->scene->buf, &blocks))
		return;
	wr32(ib, 0, CMD_INIT_BUFFER);
	wr32(ib, IB_VM_SLOT, run->vm_slot);
	wr32(ib, IB_BUFFER_SLOT, sv->slot);
	wr32(ib, IB_BLOCK_COUNT, blocks);
	wr64(ib, IB_BUFFER, sv->info);
	wr32(ib, IB_STAMP_VALUE, value);
	asahi_wq_append(wq, va + B_INIT_BUFFER);
}

/* RunVertex: its fragment half will retire on frag with frag_value */
u32 asahi_wq_vertex(struct asahi_wq *wq, const struct asahi_run *run,
		    struct asahi_wq *frag, u32 frag_value)
{
	const struct asahi_abi *a = wq->gpu->abi;
	u64 fw_stamp_va = wq->gpu->fw_stamps->va + 4 * wq->slot;
	u32 value = wq->value + STAMP_STEP, pos = 0;
	struct asahi_scene_va sv = { 0 };
	void *blk, *useq;
	u64 va;
	u32 block = asahi_wq_take_block(wq, &blk, &va);

	useq = blk + B_USEQ;
	if (run->scene)
		asahi_scene_va(run->scene, &sv);
	asahi_wq_init_buffer(wq, run, &sv, blk, va, value);
	wq->counter++;
	wq->event_seq++;
	wr32(useq, pos, OP_START_VERTEX);
	wr64(useq, pos + SV_TILING_PARAMS, va + ABI_REC(a, RV_TILING_PARAMS));
	wr64(useq, pos + SV_JOB_PARAMS1, va + ABI_REC(a, RV_JOB_PARAMS1));
	wr64(useq, pos + SV_BUFFER, sv.info);
	wr64(useq, pos + SV_SCENE, sv.scene);
	wr64(useq, pos + SV_WORK_QUEUE, wq->info->va);
	wr32(useq, pos + SV_VM_SLOT, run->vm_slot);
	wr32(useq, pos + SV_BUFFER_SLOT, sv.slot);
	wr32(useq, pos + SV_UNK_38, 1);
	wr32(useq, pos + SV_EVENT_GEN, run->event_gen);
	wr64(useq, pos + SV_EVENT_SEQ, wq->event_seq);
	wr32(useq, pos + SV_UUID, run->uuid);
	if (a->v13) {
		wr64(useq, pos + SV_COUNTER, wq->counter);
		/* One cluster: no vertex clustering */
		wr32(useq, pos + SV_UNK_178, 1);
	}
	pos += a->op_start[PIPE_VERTEX];
	pos = asahi_put_wait(wq, run, blk, va, useq, pos);
	wr32(useq, pos, OP_FINALIZE_VERTEX);
	wr64(useq, pos + FV_SCENE, sv.scene);
	wr64(useq, pos + FV_BUFFER, sv.info);
	wr64(useq, pos + FV_WORK_QUEUE, wq->info->va);
	wr32(useq, pos + FV_VM_SLOT, run->vm_slot);
	wr32(useq, pos + FV_UUID, run->uuid);
	wr64(useq, pos + FV_FW_STAMP, fw_stamp_va);
	wr32(useq, pos + FV_VALUE, value);
	wr32(useq, pos + FV_RESTART, -(s32)pos);
	pos += a->op_finalize[PIPE_VERTEX];
	wr32(useq, pos, OP_RETIRE_STAMP);
	pos += 4;

	wr32(blk, ABI_REC(a, RV_FRAG_STAMP_SLOT), frag->slot);
	wr32(blk, ABI_REC(a, RV_FRAG_STAMP_VALUE), frag_value);
	if (run->render)
		asahi_params_vertex(a, blk, run->render, run->usc_exec_base,
				    wq->gpu->priv->core_mask);
	if (run->scene)
		asahi_params_scene_vertex(a, blk, &sv);
	asahi_wq_put_run(wq, run, blk, va, pos, value);
	return block;
}

/* RunFragment, for a queue that put its Barrier on the vertex half */
u32 asahi_wq_fragment(struct asahi_wq *wq, const struct asahi_run *run)
{
	const struct asahi_abi *a = wq->gpu->abi;
	u64 fw_stamp_va = wq->gpu->fw_stamps->va + 4 * wq->slot;
	u32 value = wq->value + STAMP_STEP, pos = 0;
	struct asahi_scene_va sv = { 0 };
	void *blk, *useq;
	u64 va;
	u32 block = asahi_wq_take_block(wq, &blk, &va);

	useq = blk + B_USEQ;
	if (run->scene)
		asahi_scene_va(run->scene, &sv);
	wq->counter++;
	wq->event_seq++;
	wr32(useq, pos, OP_START_FRAGMENT);
	wr64(useq, pos + SF_JOB_PARAMS2, va + ABI_REC(a, RF_JOB_PARAMS2));
	wr64(useq, pos + SF_JOB_PARAMS1, va + ABI_REC(a, RF_JOB_PARAMS1));
	wr64(useq, pos + SF_SCENE, sv.scene);
	wr64(useq, pos + SF_WORK_QUEUE, wq->info->va);
	wr64(useq, pos + SF_WORK_ITEM, va);
	wr32(useq, pos + SF_VM_SLOT, run->vm_slot);
	wr32(useq, pos + SF_UNK_50, 1);
	wr32(useq, pos + SF_EVENT_GEN, run->event_gen);
	wr32(useq, pos + SF_BUFFER_SLOT, sv.slot);
	wr64(useq, pos + SF_EVENT_SEQ, wq->event_seq);
	wr32(useq, pos + SF_UUID - a->sf_shift, run->uuid);
	if (a->v13)
		wr64(useq, pos + SF_COUNTER, wq->counter);
	pos += a->op_start[PIPE_FRAGMENT];
	pos = asahi_put_wait(wq, run, blk, va, useq, pos);
	wr32(useq, pos, OP_FINALIZE_FRAGMENT);
	wr32(useq, pos + FF_UUID, run->uuid);
	wr64(useq, pos + FF_FW_STAMP, fw_stamp_va);
	wr32(useq, pos + FF_VALUE, value);
	wr64(useq, pos + FF_SCENE, sv.scene);
	wr64(useq, pos + FF_BUFFER, sv.info);
	wr64(useq, pos + FF_WORK_QUEUE, wq->info->va);
	wr64(useq, pos + FF_WORK_ITEM, va);
	wr32(useq, pos + FF_VM_SLOT, run->vm_slot);
	wr32(useq, pos + FF_RESTART - a->ff_shift, -(s32)pos);
	pos += a->op_finalize[PIPE_FRAGMENT];
	wr32(useq, pos, OP_RETIRE_STAMP);
	pos += 4;

	if (run->render)
		asahi_params_fragment(a, blk, run->render,
				      run->usc_exec_base);
	if (run->scene)
		asahi_params_scene_fragment(a, blk, &sv);
	asahi_wq_put_run(wq, run, blk, va, pos, value);
	return block;
}

/* Announces what was appended to wq: RunWorkQueue, then the doorbell */
int asahi_wq_kick(struct asahi_wq *wq)
{
	struct asahi_gpu *gpu = wq->gpu;
	unsigned int channel = PIPE_CHANNEL(wq->type, wq->prio);
	u8 msg[PIPE_MSG_SIZE] = { 0 };
	int ret;

	lockdep_assert_held(&gpu->tx_lock);
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
