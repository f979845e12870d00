// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: SUBMIT, from the UAPI's commands to the firmware's records.
 *
 * SUBMIT parses the command stream (drm_asahi_cmd_header + payload),
 * checks barriers and attachments, resolves in-syncs into scheduler
 * dependencies, binds the VM to a context slot for the job's life and
 * pushes one job (asahi_queue.c); out-syncs get the scheduler's finished
 * fence.  A render takes a scene of the queue's tiled vertex buffer
 * (asahi_buffer.c: the buffer grows first, the scene binds a buffer-
 * manager slot).
 *
 * When the scheduler runs the job, asahi_submit_run() writes its records
 * on the queue's work queues (asahi_workqueue.c): a compute command
 * becomes a RunCompute on the compute work queue; a render command a
 * RunVertex on the vertex work queue and, on the fragment work queue, a
 * Barrier on the vertex command's firmware stamp then a RunFragment.
 * Explicit barriers become Barrier records at the head of the command's
 * own first work queue.  The UAPI fields go into the job parameter blocks
 * where drm/asahi puts them (asahi_params.c); a stage with a timestamp
 * object gets Timestamp ops that also write the user's {start, end}
 * (VAs in the GEM_BIND_OBJECT range).  The work queues are kicked
 * fragment, vertex, compute.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/dma-fence.h>
#include <linux/dma-fence-chain.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/asahi_drm.h>
#include <drm/drm_file.h>
#include <drm/drm_syncobj.h>
#include <drm/gpu_scheduler.h>

#include "asahi_buffer.h"
#include "asahi_drv.h"
#include "asahi_fw.h"
#include "asahi_queue.h"
#include "asahi_workqueue.h"

#define ASAHI_MAX_COMMANDS	64
#define ASAHI_MAX_ATTACHMENTS	16
#define ASAHI_CMDBUF_MAX	SZ_1M
#define ASAHI_MAX_SYNCS		1024

/* The subqueue's state now: none if its work queue never ran anything */
static struct asahi_event asahi_event_now(struct asahi_wq *wq)
{
	if (!wq || !wq->used)
		return (struct asahi_event){ NULL, 0 };
	return (struct asahi_event){ wq, wq->value };
}

/* The Run record of command i's stage (0: vertex or compute, 1: fragment) */
static void asahi_cmd_run(const struct asahi_queue *q,
			  const struct asahi_cmd *cmd, unsigned int i,
			  unsigned int stage, struct asahi_run *run)
{
	struct asahi_ts_obj *const *ts = &cmd->ts[2 * stage];

	*run = (struct asahi_run){
		.uuid = q->id << 16 | (i & 0xffff),
		.vm_slot = q->vm->mmu.slot,
		.event_gen = q->id,
		.usc_exec_base = q->usc_exec_base,
		.flush = cmd->flush,
		.ts = ts[0] || ts[1],
		.user_ts = { cmd->ts_va[2 * stage], cmd->ts_va[2 * stage + 1] },
		.scene = cmd->scene,
	};
	if (cmd->type == DRM_ASAHI_CMD_RENDER)
		run->render = &cmd->render;
	else
		run->compute = &cmd->compute;
}

/*
 * Command i of the job: its explicit barriers, then its records; n
 * counts the commands of each subqueue so far (the barrier targets)
 */
static void asahi_submit_cmd(struct asahi_queue *q, struct asahi_job *job,
			     unsigned int i, unsigned int n[2])
{
	struct asahi_wq *vtx = q->wq[PIPE_VERTEX], *frag = q->wq[PIPE_FRAGMENT];
	struct asahi_wq *comp = q->wq[PIPE_COMPUTE];
	struct asahi_cmd *cmd = &job->cmds[i];
	bool render = cmd->type == DRM_ASAHI_CMD_RENDER;
	struct asahi_wq *first = render ? vtx : comp;
	u16 barrier[2] = { cmd->vdm_barrier, cmd->cdm_barrier };
	struct asahi_run run;
	unsigned int t;

	for (t = 0; t < 2; t++) {
		struct asahi_event e;

		if (barrier[t] == DRM_ASAHI_BARRIER_NONE)
			continue;
		e = job->ev[t][barrier[t]];
		if (e.wq)
			asahi_wq_barrier(first, e.wq, e.value,
					 BAR_UUID_EXPLICIT, 1);
	}
	asahi_cmd_run(q, cmd, i, 0, &run);
	if (render) {
		u32 vtx_value = vtx->value + STAMP_STEP;

		asahi_wq_vertex(vtx, &run, frag, frag->value + STAMP_STEP);
		asahi_wq_barrier(frag, vtx, vtx_value, run.uuid, 0);
		asahi_cmd_run(q, cmd, i, 1, &run);
		asahi_wq_fragment(frag, &run);
		asahi_buffer_increment(cmd->scene->buf);
		job->ev[0][++n[0]] = asahi_event_now(frag);
	} else {
		asahi_wq_compute(comp, &run);
		job->ev[1][++n[1]] = asahi_event_now(comp);
	}
}

/*
 * Turns the job's commands into firmware records on the work queues,
 * explicit barriers first, and kicks fragment, vertex, compute.
 */
int asahi_submit_run(struct asahi_queue *q, struct asahi_job *job)
{
	static const unsigned int kick_order[NUM_WQS] = {
		PIPE_FRAGMENT, PIPE_VERTEX, PIPE_COMPUTE,
	};
	struct asahi_gpu *gpu = q->adev->gpu;
	unsigned int n[2] = { 0, 0 }, i, t;
	u32 first[NUM_WQS];
	int ret = 0;

	mutex_lock(&gpu->tx_lock);
	for (t = 0; t < NUM_WQS; t++)
		first[t] = q->wq[t] ? q->wq[t]->value : 0;
	job->ev[0][0] = asahi_event_now(q->wq[PIPE_FRAGMENT]);
	job->ev[1][0] = asahi_event_now(q->wq[PIPE_COMPUTE]);
	for (i = 0; i < job->ncmds; i++)
		asahi_submit_cmd(q, job, i, n);

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
	for (i = 0; i < NUM_WQS && !ret; i++) {
		t = kick_order[i];
		if (job->parts[t].queued)
			ret = asahi_wq_kick(q->wq[t]);
	}
	mutex_unlock(&gpu->tx_lock);
	return ret;
}

/* Out-syncs: what to attach the finished fence to */
struct asahi_out_sync {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	u64 point;
};

/* One SUBMIT: what it copied and what it holds until it returns */
struct asahi_submit {
	struct drm_asahi_submit *args;
	struct drm_file *file;
	struct asahi_file *afile;
	struct asahi_queue *q;
	struct drm_asahi_sync *syncs;
	u8 *cmdbuf;
	struct asahi_out_sync *out;
	/* The commands: how many, the last render and compute one */
	u32 ncmds;
	u32 last[2];
	struct asahi_job *job;		/* until the scheduler has it */
	u32 credits;
	bool render;
	bool compute;
};

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

/* A render command's payload (shorter ones are zero-extended) */
static int asahi_parse_render(struct asahi_file *afile, struct asahi_cmd *cmd,
			      const u8 *payload, u32 size)
{
	struct drm_asahi_cmd_render *r = &cmd->render;
	int ret;

	memcpy(r, payload, min_t(u32, size, sizeof(*r)));
	ret = asahi_check_render(r);
	if (!ret)
		ret = asahi_get_ts(afile, cmd, TS_VTX_START, &r->ts_vtx.start);
	if (!ret)
		ret = asahi_get_ts(afile, cmd, TS_VTX_END, &r->ts_vtx.end);
	if (!ret)
		ret = asahi_get_ts(afile, cmd, TS_FRAG_START,
				   &r->ts_frag.start);
	if (!ret)
		ret = asahi_get_ts(afile, cmd, TS_FRAG_END, &r->ts_frag.end);
	return ret;
}

/* A compute command's payload; it uses the vertex timestamp pair */
static int asahi_parse_compute(struct asahi_file *afile, struct asahi_cmd *cmd,
			       const u8 *payload, u32 size)
{
	struct drm_asahi_cmd_compute *c = &cmd->compute;
	int ret;

	memcpy(c, payload, min_t(u32, size, sizeof(*c)));
	if (c->flags)
		return -EINVAL;
	ret = asahi_get_ts(afile, cmd, TS_VTX_START, &c->ts.start);
	if (!ret)
		ret = asahi_get_ts(afile, cmd, TS_VTX_END, &c->ts.end);
	return ret;
}

/* Pass one over the stream: sizes, types, the count of each kind */
static int asahi_parse_count(struct asahi_submit *s)
{
	const u8 *buf = s->cmdbuf;
	u32 size = s->args->cmdbuf_size, pos = 0, n[2] = { 0, 0 };
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
		case DRM_ASAHI_CMD_COMPUTE:
			s->last[hdr.cmd_type] = n[hdr.cmd_type]++;
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
	s->ncmds = n[0] + n[1];
	return 0;
}

/* An attachment list: drm/asahi checks and ignores it */
static int asahi_parse_attachments(const u8 *payload, u32 size)
{
	u32 i, na = size / sizeof(struct drm_asahi_attachment);

	if (na > ASAHI_MAX_ATTACHMENTS)
		return -EINVAL;
	for (i = 0; i < na; i++) {
		struct drm_asahi_attachment a;

		memcpy(&a, payload + i * sizeof(a), sizeof(a));
		if (a.flags || a.pad)
			return -EINVAL;
	}
	return 0;
}

/*
 * Pass two: checks barriers and attachments, copies each command into
 * the job.  A barrier names events[s][n]: 0 = before this submit, n =
 * after command n of subqueue s.
 */
static int asahi_parse_cmds(struct asahi_submit *s)
{
	const u8 *buf = s->cmdbuf;
	u32 size = s->args->cmdbuf_size, pos, c = 0, done[2] = { 0, 0 };
	struct drm_asahi_cmd_header hdr;
	int ret;

	for (pos = 0; pos < size; pos += hdr.size) {
		struct asahi_cmd *cmd = &s->job->cmds[c];
		bool attach;

		memcpy(&hdr, buf + pos, sizeof(hdr));
		pos += sizeof(hdr);
		attach = hdr.cmd_type >= DRM_ASAHI_SET_VERTEX_ATTACHMENTS;
		if (hdr.vdm_barrier != DRM_ASAHI_BARRIER_NONE &&
		    (hdr.vdm_barrier > done[0] || attach))
			return -EINVAL;
		if (hdr.cdm_barrier != DRM_ASAHI_BARRIER_NONE &&
		    (hdr.cdm_barrier > done[1] || attach))
			return -EINVAL;
		if (attach) {
			ret = asahi_parse_attachments(buf + pos, hdr.size);
			if (ret)
				return ret;
			continue;
		}
		cmd->type = hdr.cmd_type;
		cmd->vdm_barrier = hdr.vdm_barrier;
		cmd->cdm_barrier = hdr.cdm_barrier;
		cmd->flush = done[hdr.cmd_type] == s->last[hdr.cmd_type];
		if (hdr.cmd_type == DRM_ASAHI_CMD_RENDER)
			ret = asahi_parse_render(s->afile, cmd, buf + pos,
						 hdr.size);
		else
			ret = asahi_parse_compute(s->afile, cmd, buf + pos,
						  hdr.size);
		if (ret)
			return ret;
		done[hdr.cmd_type]++;
		c++;
	}
	return 0;
}

/* Copies the syncs and the command stream in, and checks the syncs */
static int asahi_submit_copy(struct asahi_submit *s)
{
	const struct drm_asahi_submit *args = s->args;
	u32 nsyncs = args->in_sync_count + args->out_sync_count, i;

	if (nsyncs < args->in_sync_count || nsyncs > ASAHI_MAX_SYNCS ||
	    args->cmdbuf_size > ASAHI_CMDBUF_MAX)
		return -EINVAL;
	s->syncs = kvmalloc_array(nsyncs, sizeof(*s->syncs), GFP_KERNEL);
	s->cmdbuf = kvmalloc(args->cmdbuf_size ?: 1, GFP_KERNEL);
	s->out = kzalloc_objs(*s->out, args->out_sync_count ?: 1);
	if (!s->syncs || !s->cmdbuf || !s->out)
		return -ENOMEM;
	if (copy_from_user(s->syncs, u64_to_user_ptr(args->syncs),
			   nsyncs * sizeof(*s->syncs)) ||
	    copy_from_user(s->cmdbuf, u64_to_user_ptr(args->cmdbuf),
			   args->cmdbuf_size))
		return -EFAULT;
	if (asahi_crashed(s->q->adev))
		return -ENODEV;
	if (READ_ONCE(s->q->lost))
		return -ECANCELED;
	for (i = 0; i < nsyncs; i++) {
		if (s->syncs[i].sync_type > DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ ||
		    (s->syncs[i].sync_type == DRM_ASAHI_SYNC_SYNCOBJ &&
		     s->syncs[i].timeline_value))
			return -EINVAL;
	}
	return 0;
}

/* The job: its commands, the work queues it needs, its credits */
static int asahi_submit_job(struct asahi_submit *s)
{
	struct asahi_job *job;
	u32 i;
	int ret;

	ret = asahi_parse_count(s);
	if (ret)
		return ret;
	job = asahi_job_alloc(s->q, s->ncmds);
	if (!job)
		return -ENOMEM;
	s->job = job;
	ret = asahi_parse_cmds(s);
	if (ret)
		return ret;
	for (i = 0; i < s->ncmds; i++) {
		if (job->cmds[i].type == DRM_ASAHI_CMD_RENDER) {
			s->render = true;
			job->parts[PIPE_VERTEX].queued = true;
			job->parts[PIPE_FRAGMENT].queued = true;
			/*
			 * Vertex, fragment and its barrier, explicit ones,
			 * an InitBuffer
			 */
			s->credits += 6;
		} else {
			s->compute = true;
			job->parts[PIPE_COMPUTE].queued = true;
			s->credits += 3;
		}
	}
	for (i = 0; i < NUM_WQS; i++)
		atomic_add(job->parts[i].queued, &job->parts_left);
	return 0;
}

/* The renders' scenes, in submission order: InitBuffer goes with the first */
static int asahi_submit_scenes(struct asahi_submit *s)
{
	struct asahi_device *adev = s->q->adev;
	u32 i;

	for (i = 0; i < s->ncmds; i++) {
		struct asahi_cmd *cmd = &s->job->cmds[i];
		struct asahi_scene *scene;

		if (cmd->type != DRM_ASAHI_CMD_RENDER)
			continue;
		mutex_lock(&adev->gpu_lock);
		scene = asahi_scene_get(s->q->buf, &cmd->render);
		mutex_unlock(&adev->gpu_lock);
		if (IS_ERR(scene))
			return PTR_ERR(scene);
		cmd->scene = scene;
	}
	return 0;
}

/* In-syncs become dependencies; the out-syncs' objects are looked up */
static int asahi_submit_syncs(struct asahi_submit *s)
{
	const struct drm_asahi_submit *args = s->args;
	u32 i;
	int ret;

	for (i = 0; i < args->in_sync_count; i++) {
		ret = drm_sched_job_add_syncobj_dependency(&s->job->base,
							   s->file,
							   s->syncs[i].handle,
							   s->syncs[i].timeline_value);
		if (ret)
			return ret;
	}
	for (i = 0; i < args->out_sync_count; i++) {
		struct drm_asahi_sync *sync = &s->syncs[args->in_sync_count + i];
		struct asahi_out_sync *out = &s->out[i];

		out->syncobj = drm_syncobj_find(s->file, sync->handle);
		if (!out->syncobj)
			return -ENOENT;
		if (sync->sync_type == DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ) {
			out->chain = dma_fence_chain_alloc();
			if (!out->chain)
				return -ENOMEM;
			out->point = sync->timeline_value;
		}
	}
	return 0;
}

/* The out-syncs get the job's finished fence */
static void asahi_submit_signal(struct asahi_submit *s,
				struct dma_fence *finished)
{
	u32 i;

	for (i = 0; i < s->args->out_sync_count; i++) {
		struct asahi_out_sync *out = &s->out[i];

		if (out->chain) {
			drm_syncobj_add_point(out->syncobj, out->chain,
					      finished, out->point);
			out->chain = NULL;
		} else {
			drm_syncobj_replace_fence(out->syncobj, finished);
		}
	}
}

/*
 * Under the queue's submit_lock: the scenes, the scheduler job, its
 * syncs and a VM context slot, then the job is pushed
 */
static int asahi_submit_push(struct asahi_submit *s)
{
	struct asahi_queue *q = s->q;
	struct asahi_job *job = s->job;
	struct dma_fence *finished;
	int ret;

	mutex_lock(&q->submit_lock);
	/* Destroyed since we looked it up? */
	ret = q->dead ? -ENOENT : asahi_submit_scenes(s);
	if (!ret)
		ret = drm_sched_job_init(&job->base, &q->entity, s->credits, q,
					 s->file->client_id);
	if (ret) {
		mutex_unlock(&q->submit_lock);
		return ret;
	}
	ret = asahi_submit_syncs(s);
	/* The VM keeps a context slot while the job lives */
	if (!ret)
		ret = asahi_mmu_bind_slot(&q->vm->mmu);
	if (ret < 0) {
		mutex_unlock(&q->submit_lock);
		drm_sched_job_cleanup(&job->base);
		return ret;
	}
	job->vm_bound = true;

	drm_sched_job_arm(&job->base);
	finished = dma_fence_get(&job->base.s_fence->finished);
	drm_sched_entity_push_job(&job->base);
	/* The scheduler's now: free_job frees it */
	s->job = NULL;
	mutex_unlock(&q->submit_lock);
	asahi_submit_signal(s, finished);
	dma_fence_put(finished);
	return 0;
}

static void asahi_submit_free(struct asahi_submit *s)
{
	u32 i;

	if (s->job)
		asahi_job_free(s->job);
	for (i = 0; s->out && i < s->args->out_sync_count; i++) {
		if (s->out[i].syncobj)
			drm_syncobj_put(s->out[i].syncobj);
		dma_fence_chain_free(s->out[i].chain);
	}
	kfree(s->out);
	kvfree(s->syncs);
	kvfree(s->cmdbuf);
	asahi_queue_put(s->q);
}

int asahi_ioctl_submit(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct asahi_submit s = {
		.args = data,
		.file = file,
		.afile = file->driver_priv,
	};
	int ret;

	if (s.args->flags || s.args->pad)
		return -EINVAL;
	s.q = asahi_queue_get(s.afile, s.args->queue_id);
	if (!s.q)
		return -ENOENT;
	ret = asahi_submit_copy(&s);
	if (!ret)
		ret = asahi_submit_job(&s);
	if (!ret)
		ret = asahi_queue_get_wqs(s.q, s.render, s.compute);
	if (!ret)
		ret = asahi_submit_push(&s);
	asahi_submit_free(&s);
	return ret;
}
