/*
 * AGX firmware: the tiled vertex buffer (TVB) manager
 *
 * A render's vertex job writes its tiled geometry into a heap of 128 KiB
 * blocks the driver owns (the TVB); the firmware's buffer manager hands
 * the blocks out.  The driver binds a buffer to one of 127 buffer-manager
 * slots with an InitBuffer work command (tag 6: vm_slot, buffer_slot,
 * block_count, the buffer::Info VA), and names the slot in each vertex
 * job's StartVertex op.  When a buffer runs out during a job, the
 * firmware raises a GrowTVB event {vm_slot, buffer_slot, counter} and the
 * job waits until the driver has added blocks and answered with a
 * DeviceControl GrowTVBAck.
 *
 * The model executes no geometry, so the only overflow is the injected
 * one (AGX_INJECT_GROW_TVB): the next vertex job whose slot is bound
 * raises GrowTVB and is held until the ack, after which the firmware reads
 * the buffer's block count: max(Info.block_count, BlockControl.total),
 * since the driver does not update Info while a scene is active.  Without
 * an ack within AGX_TVB_WATCHDOG_MS of virtual time the job goes on
 * (a guest error).  Pages and their overflow are not modelled.
 *
 * A vertex pass the vertex data master ran (agx-vdm.h) used the pages
 * its binned scene (agx-scene.h) took in the buffer, in one pass or, with
 * partial renders, several: the Scene's pass page count is its last
 * pass's, its total every pass's (one more when primitives were dropped),
 * and Stats.max_pages the largest total since the driver last set
 * Stats.reset (the firmware clears it), with Stats.overflow_count
 * counting overflowed scenes; the fragment job's tvb_overflow_count is
 * the scene's partial renders (which drm/asahi hands to userspace).
 * drm/asahi's auto_grow wants twice the pages used, so a buffer grows
 * with what its renders bin.  A vertex pass
 * without binning (shaders off, no stream) is reported as using half the
 * pages of the blocks the buffer has, which makes auto_grow leave it.
 *
 * This layer sits beside the faults, below the work queues, which tell it
 * about InitBuffer commands, vertex jobs starting and finishing, and
 * destroyed contexts; the dispatcher hands it GrowTVBAck.
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_TVB_H
#define HW_AGX_AGX_TVB_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-fw-state.h"

/* How long a vertex job waits for GrowTVBAck, in virtual time */
#define AGX_TVB_WATCHDOG_MS     1000

/*
 * An InitBuffer command at @cmd_va on a queue of @gpu_context: bind its
 * slot.  False if the firmware crashed reading it.
 */
bool agx_tvb_init_buffer(AgxFw *fw, uint64_t cmd_va, uint64_t gpu_context);

/*
 * The vertex job on @p started its GPU work: with AGX_INJECT_GROW_TVB
 * armed and the job's buffer slot bound, raise GrowTVB and hold the job.
 * False if the firmware crashed.
 */
bool agx_tvb_job_started(AgxFw *fw, AgxPipe *p);

/*
 * The GPU work of the vertex job on @p is due to end: if it still waits
 * for GrowTVBAck, the watchdog went off (a guest error) and the job goes
 * on without the grow
 */
void agx_tvb_job_due(AgxFw *fw, AgxPipe *p);

/*
 * A vertex job's FinalizeVertex @op (the whole op): write the pass's use
 * into its Scene and the buffer's Stats.  False if the firmware crashed.
 */
bool agx_tvb_vertex_finalized(AgxFw *fw, const uint8_t *op);

/*
 * A fragment job's StartFragment @op: write its TVB overflow count (1 if
 * the scene its vertex pass binned overflowed, else 0).
 * False if the firmware crashed.
 */
bool agx_tvb_fragment_started(AgxFw *fw, const uint8_t *op);

/*
 * The pages buffer::Info at @info_va has now (its blocks, as the
 * firmware reads them after a grow) and its page list.  False if the
 * firmware crashed reading them.
 */
bool agx_tvb_read_pages(AgxFw *fw, uint64_t info_va, uint64_t *page_list,
                        uint32_t *pages);

/*
 * DeviceControl GrowTVBAck @msg: resume the held job, read the grown
 * block count.  The caller reschedules (the job's end moved).
 */
void agx_tvb_grow_ack(AgxFw *fw, const uint8_t *msg);

/*
 * Live scenes.  A buffer's pages go to scenes as its vertex jobs bin
 * them and come back when the scene's fragment job ends (drm/asahi
 * buffer.rs: the buffer is shared by the renders in flight, each
 * allocating pages during vertex processing and returning them during
 * fragment processing).  The model hands out a buffer's pages as a ring:
 * a scene starts after the last one binned and may take every page up to
 * the oldest scene still live.  When none is free, the vertex job waits
 * for a fragment job to return some (agx-vdm.c), rather than overwrite a
 * scene not yet rendered.  A ring per buffer-manager slot: more buffers
 * with live scenes take rings from each other, with a guest error.
 */

/*
 * Vertex work of scene @scene_va begins on buffer @info_va of @ring
 * pages: the pages it may take, from *@first; 0: none is free (every
 * page is a live scene's, or too many scenes are live)
 */
uint32_t agx_tvb_scene_begin(AgxFw *fw, uint64_t info_va, uint32_t ring,
                             uint64_t scene_va, uint32_t *first);

/* ... ended, holding @pages (the most any of its passes used) */
void agx_tvb_scene_binned(AgxFw *fw, uint64_t info_va, uint64_t scene_va,
                          uint32_t ring, uint32_t pages);

/* ... failed: nothing will render the scene, its pages are free */
void agx_tvb_scene_free(AgxFw *fw, uint64_t info_va, uint64_t scene_va);

/*
 * A vertex job waited too long for pages: the oldest live scene of
 * @info_va gives them back (a fragment job that never finalized)
 */
void agx_tvb_scene_evict(AgxFw *fw, uint64_t info_va);

/* FinalizeFragment @op (the whole op): its scene's pages return */
void agx_tvb_fragment_finalized(AgxFw *fw, const uint8_t *op);

/* DestroyContext: the context's buffers are gone, so are their slots */
void agx_tvb_forget_context(AgxFw *fw, uint64_t gpu_context);

/* The firmware stopped: no slot is bound, no grow is pending */
void agx_tvb_reset(AgxFw *fw);

/* After an incoming migration: NULL, or why the state is out of range */
const char *agx_tvb_check_loaded(const AgxFw *fw);

#endif
