// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: what the driver does with the firmware's error events, as
 * drm/asahi does it, for work of DRM queues (the self-tests handle their
 * own, on event slots below ASAHI_FIRST_QUEUE_SLOT).
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
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/jiffies.h>

#include "asahi_drv.h"
#include "asahi_fw.h"

#define FAULT_INFO_VALID	BIT_ULL(0)
#define FAULT_INFO_VM_SLOT	GENMASK_ULL(22, 17)
#define EV_TIMEOUT_SLOT		0x0c
#define EV_CHERR_PIPE		0x08
#define EV_CHERR_SLOT		0x0c
#define EV_CHERR_VALUE		0x10
#define RC_PIPE_TYPE		0x04
#define RC_WORK_QUEUE		0x08
#define RC_EVENT_VALUE		0x10
#define HALT_ENTER_MS		100

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
	wr32(msg, RC_PIPE_TYPE, get_unaligned_le32(ev + EV_CHERR_PIPE));
	wr64(msg, RC_WORK_QUEUE, asahi_wq_info_va(wq));
	wr32(msg, RC_EVENT_VALUE, value);
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
bool asahi_gpu_error_event(struct asahi_gpu *gpu, u32 tag, const u8 *ev)
{
	u64 info = readq(gpu->sgx + SGX_FAULT_INFO);
	bool valid = info & FAULT_INFO_VALID;
	int vm_slot = valid ? FIELD_GET(FAULT_INFO_VM_SLOT, info) : -1;
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
