// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: from the firmware to the driver.
 *
 * The RX doorbell (0x42 on EP 0x20) comes through RTKit's
 * recv_message_early callback, in the mailbox's interrupt, which queues
 * rx_work on that CPU's high-priority worker (the hooks this file
 * registers); rx_work drains the event ring and the six firmware log
 * rings.  A Flag event records, for each event
 * slot it names, the stamp it made visible: waiters see a command
 * complete only through a Flag; a DRM queue's work queue completes its
 * jobs (asahi_queue.c).  Log lines are printed as "fw[<level>]: <text>".
 *
 * Error events, as drm/asahi handles them, for work of DRM queues (the
 * self-tests handle their own, on event slots below
 * ASAHI_FIRST_QUEUE_SLOT).
 *
 * Fault: the error is EIO if FAULT_INFO is valid, else ENODATA; every
 * valid Globals.pending_stamps entry fails its slot's commands up to the
 * entry's value (ECANCELED instead for commands of another VM slot than
 * the faulting one) and is cleared.  Timeout: the same with ETIMEDOUT
 * (EIO if FAULT_INFO is valid), ECANCELED for slots other than the one
 * the event names.  Then recovery: wait up to 100 ms for FwStatus.halted,
 * write halted = 0, then resume = 1.  Marking completes nothing: commands
 * still complete when their stamps arrive, with the error on the fence.
 *
 * ChannelError: the slot's commands up to the event's value fail with
 * EIO, then DeviceControl RecoverChannel names the work queue; no halt.
 *
 * GrowTVB: the buffer manager grows the buffer and acknowledges
 * (asahi_buffer.c).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/unaligned.h>
#include <linux/workqueue.h>

#include "asahi_drv.h"
#include "asahi_fw.h"
#include "asahi_queue.h"
#include "asahi_workqueue.h"

#define HALT_ENTER_MS		100

static const char *const fwlog_levels[FWLOG_LEVELS] = {
	"debug", "info", "notice", "warn", "err", "crit",
};

/* Fails what pending_stamps lists; true if a DRM queue's work was there */
static bool asahi_mark_pending(struct asahi_gpu *gpu, int culprit,
			       int error, int fault_vm_slot)
{
	void *p = gpu->globals->cpu + gpu->abi->gl_pending_stamps;
	bool ours = false;
	unsigned int i;

	for (i = 0; i < NUM_PENDING_STAMPS; i++) {
		u32 info = rd32_once(p, 8 * i);
		u32 value = rd32_once(p, 8 * i + 4);
		unsigned int slot = asahi_pending_slot(gpu, info);
		struct asahi_wq *wq;

		if (!(info & PENDING_VALID))
			continue;
		wq = gpu->slot_owner[slot];
		if (!wq)
			continue;
		ours = true;
		asahi_wq_mark_error(wq, value,
				    culprit >= 0 && culprit != slot ?
				    -ECANCELED : error, fault_vm_slot);
		wr32_once(p, 8 * i, 0);
	}
	return ours;
}

/* GpuManager::recover: resume a halted firmware */
static void asahi_recover(struct asahi_gpu *gpu)
{
	void *fws = gpu->fw_status->cpu;
	unsigned long timeout = jiffies + msecs_to_jiffies(HALT_ENTER_MS);

	while (!rd32_once(fws, FWS_HALTED) && time_before(jiffies, timeout))
		usleep_range(1000, 2000);
	if (!rd32_once(fws, FWS_HALTED)) {
		dev_err(gpu->dev, "Cannot recover.\n");
		return;
	}
	dev_info(gpu->dev, "Attempting recovery (halt count %llu)...\n",
		 rd64_once(fws, FWS_HALT_COUNT));
	wr32_once(fws, FWS_HALTED, 0);
	/* halted is clear before the firmware may go on */
	wmb();
	wr32_once(fws, FWS_RESUME, 1);
}

static void asahi_channel_error(struct asahi_gpu *gpu, const u8 *ev)
{
	u32 slot = get_unaligned_le32(ev + EV_CHERR_SLOT);
	u32 value = get_unaligned_le32(ev + EV_CHERR_VALUE);
	u8 msg[DEVCTRL_MSG_SIZE] = { 0 };
	struct asahi_wq *wq;

	if (slot >= NUM_SLOTS || !gpu->slot_owner[slot]) {
		dev_err(gpu->dev, "channel error on slot %u: no queue\n", slot);
		return;
	}
	wq = gpu->slot_owner[slot];
	asahi_wq_mark_error(wq, value, -EIO, -1);
	wr32(msg, 0, gpu->abi->dc_recover_channel);
	wr32(msg, RCH_PIPE_TYPE, get_unaligned_le32(ev + EV_CHERR_PIPE));
	wr64(msg, RCH_WORK_QUEUE, wq->info->va);
	wr32(msg, RCH_EVENT_VALUE, value);
	mutex_lock(&gpu->tx_lock);
	if (!asahi_ring_tx(gpu, &gpu->devctrl, msg))
		asahi_doorbell(gpu, DOORBELL_DEVCTRL);
	mutex_unlock(&gpu->tx_lock);
	dev_info(gpu->dev, "channel error on slot %u value 0x%x: recovering\n",
		 slot, value);
}

/*
 * An error event; true if it concerned DRM queues and was handled here.
 * Called from the RX doorbell handler, under priv->gpu_lock.
 */
static bool asahi_gpu_error_event(struct asahi_gpu *gpu, u32 tag,
				  const u8 *ev)
{
	u64 info = readq(gpu->sgx + SGX_FAULT_INFO);
	bool valid = info & FAULT_INFO_VALID;
	int vm_slot = valid ? FIELD_GET(FAULT_INFO_SLOT, info) : -1;
	s32 slot;

	switch (tag) {
	case EV_FAULT:
		if (!asahi_mark_pending(gpu, -1, valid ? -EIO : -ENODATA,
					vm_slot))
			return false;
		dev_err(gpu->dev, "GPU fault: FAULT_INFO 0x%016llx\n", info);
		asahi_recover(gpu);
		return true;
	case EV_TIMEOUT:
		slot = get_unaligned_le32(ev + EV_TIMEOUT_SLOT);
		if (!asahi_mark_pending(gpu, slot, valid ? -EIO : -ETIMEDOUT,
					-1))
			return false;
		dev_err(gpu->dev, "GPU timeout on slot %d\n", slot);
		asahi_recover(gpu);
		return true;
	case EV_CHANNEL_ERROR:
		asahi_channel_error(gpu, ev);
		return true;
	case EV_GROW_TVB:
		asahi_buffer_grow_event(gpu, ev);
		return true;
	}
	return false;
}

/* RX doorbell: the event ring */
static void asahi_gpu_event(struct asahi_gpu *gpu, const u8 *ev)
{
	u32 tag = get_unaligned_le32(ev);
	DECLARE_BITMAP(fired, NUM_SLOTS);
	unsigned int slot;

	bitmap_zero(fired, NUM_SLOTS);
	spin_lock(&gpu->lock);
	if (tag != EV_FLAG) {
		memcpy(gpu->last_event, ev, EVENT_SIZE);
		if (tag == EV_FAULT)
			gpu->fault_events++;
		else
			gpu->other_events++;
		spin_unlock(&gpu->lock);
		dev_info(gpu->dev,
			 "event %u: %*ph\n", tag, 0x14, ev);
		/* DRM queues' work; else the self-tests' (or unexpected) */
		if (!asahi_gpu_error_event(gpu, tag, ev) && tag != EV_FAULT)
			asahi_gpu_error(gpu);
		return;
	}
	gpu->flag_events++;
	for (slot = 0; slot < NUM_SLOTS; slot++) {
		u32 stamp;

		if (!(get_unaligned_le32(ev + EV_FLAG_FIRING + 4 * (slot / 32)) &
		      BIT(slot % 32)))
			continue;
		stamp = asahi_stamp(gpu, slot);
		if (test_bit(slot, gpu->freed_slots)) {
			/* Late: its commands completed through the stamp */
			continue;
		} else if (!test_bit(slot, gpu->our_slots)) {
			dev_err(gpu->dev, "Flag for slot %u\n",
				slot);
			gpu->errors++;
		} else if (!stamp_ge(stamp, gpu->flag_stamp[slot])) {
			dev_err(gpu->dev,
				"slot %u stamp 0x%x after 0x%x\n",
				slot, stamp, gpu->flag_stamp[slot]);
			gpu->errors++;
		} else {
			gpu->flag_stamp[slot] = stamp;
		}
		gpu->flags[slot]++;
		__set_bit(slot, fired);
	}
	spin_unlock(&gpu->lock);
	/* Owners change only under priv->gpu_lock, which we hold */
	for_each_set_bit(slot, fired, NUM_SLOTS) {
		if (gpu->slot_owner[slot])
			asahi_wq_signal(gpu->slot_owner[slot]);
	}
}

/* RX doorbell: a firmware log line */
static void asahi_gpu_fwlog(struct asahi_gpu *gpu, unsigned int level,
			  const u8 *elem)
{
	u64 index = get_unaligned_le64(elem + FWLOG_ELEM_INDEX);
	char text[FWLOG_PAYLOAD_SIZE - FWLOG_TEXT + 1];
	const u8 *payload;

	if (get_unaligned_le32(elem) != FWLOG_ELEM_TYPE || index >= CH_COUNT) {
		dev_err(gpu->dev, "bad firmware log entry %*ph\n",
			0x10, elem);
		asahi_gpu_error(gpu);
		return;
	}
	payload = gpu->fwlog_buf->cpu +
		  (level * CH_COUNT + index) * FWLOG_PAYLOAD_SIZE;
	if (get_unaligned_le32(payload) != FWLOG_PAYLOAD_TYPE) {
		dev_err(gpu->dev, "bad firmware log payload\n");
		asahi_gpu_error(gpu);
		return;
	}
	memcpy(text, payload + FWLOG_TEXT, sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	spin_lock(&gpu->lock);
	gpu->fwlog_lines++;
	spin_unlock(&gpu->lock);
	dev_info(gpu->dev, "fw[%s]: %s\n", fwlog_levels[level],
		 text);
}

static void asahi_gpu_rx(struct asahi_gpu *gpu)
{
	u8 elem[EVENT_SIZE];
	unsigned int i;

	spin_lock(&gpu->lock);
	gpu->rx_doorbells++;
	spin_unlock(&gpu->lock);
	while (asahi_ring_rx(gpu, &gpu->event, elem))
		asahi_gpu_event(gpu, elem);
	for (i = 0; i < FWLOG_LEVELS; i++) {
		while (asahi_ring_rx(gpu, &gpu->fwlog[i], elem))
			asahi_gpu_fwlog(gpu, i, elem);
	}
	wake_up_all(&gpu->wait);
}

/* RTKit recv_message, process context: is this for the GPU part? */
static bool asahi_gpu_recv(struct asahi_device *priv, u8 ep, u64 msg)
{
	struct asahi_gpu *gpu;

	if (ep != EP_FIRMWARE && ep != EP_DOORBELL)
		return false;
	mutex_lock(&priv->gpu_lock);
	gpu = priv->gpu;
	if (gpu && ep == EP_FIRMWARE &&
	    FIELD_GET(MSG_TYPE, msg) == MSG_RX_DOORBELL) {
		asahi_gpu_rx(gpu);
	} else {
		dev_err(priv->dev,
			"unexpected message 0x%016llx on ep 0x%02x\n",
			msg, ep);
		if (gpu)
			asahi_gpu_error(gpu);
	}
	mutex_unlock(&priv->gpu_lock);
	return true;
}

/* RTKit crashed callback: nothing the firmware promised will come */
static void asahi_gpu_crashed(struct asahi_device *priv)
{
	unsigned int slot;

	mutex_lock(&priv->gpu_lock);
	if (priv->gpu) {
		spin_lock(&priv->gpu->lock);
		priv->gpu->dead = true;
		spin_unlock(&priv->gpu->lock);
		wake_up_all(&priv->gpu->wait);
		/* Every pending command completes with ENODEV */
		for (slot = 0; slot < NUM_SLOTS; slot++) {
			if (priv->gpu->slot_owner[slot])
				asahi_wq_fail_all(priv->gpu->slot_owner[slot],
						  -ENODEV);
		}
	}
	mutex_unlock(&priv->gpu_lock);
}

/* The RX doorbells that came since the work was queued, in process context */
static void asahi_gpu_rx_work(struct work_struct *work)
{
	struct asahi_device *priv = container_of(work, struct asahi_device,
						 rx_work);

	asahi_gpu_recv(priv, EP_FIRMWARE,
		       FIELD_PREP(MSG_TYPE, MSG_RX_DOORBELL));
}

/*
 * RTKit recv_message_early, in the mailbox's interrupt: an RX doorbell
 * queues the ring's draining on this CPU's high-priority worker, where
 * the doorbells coming meanwhile join it (the rings are drained whole),
 * rather than RTKit allocating a work item per message for its unbound
 * workqueue, which wakes a worker on another CPU.
 */
static bool asahi_gpu_recv_early(struct asahi_device *priv, u8 ep, u64 msg)
{
	if (ep != EP_FIRMWARE || FIELD_GET(MSG_TYPE, msg) != MSG_RX_DOORBELL)
		return false;
	queue_work(system_highpri_wq, &priv->rx_work);
	return true;
}

static const struct asahi_rtkit_hooks asahi_gpu_hooks = {
	.recv = asahi_gpu_recv,
	.recv_early = asahi_gpu_recv_early,
	.crashed = asahi_gpu_crashed,
};

/* After RTKit, whose interrupt queues it, is gone (devm order) */
static void asahi_gpu_rx_fini(void *data)
{
	struct asahi_device *priv = data;

	cancel_work_sync(&priv->rx_work);
}

/* The firmware's endpoints and RTKit's crash come here first */
int asahi_gpu_add_hooks(struct asahi_device *priv)
{
	INIT_WORK(&priv->rx_work, asahi_gpu_rx_work);
	asahi_rtkit_add_hooks(priv, &asahi_gpu_hooks);
	return devm_add_action_or_reset(priv->dev, asahi_gpu_rx_fini, priv);
}
