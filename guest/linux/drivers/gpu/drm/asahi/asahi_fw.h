/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * asahi: the driver's view of the running firmware (struct asahi_gpu):
 * its kernel objects, channels, stamps and event counters; the layouts
 * it speaks are in asahi_fw_abi.h.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#ifndef ASAHI_FW_H
#define ASAHI_FW_H

#include <linux/bitmap.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/unaligned.h>
#include <linux/wait.h>

#include "asahi_buffer.h"
#include "asahi_drv.h"
#include "asahi_fw_abi.h"

struct asahi_wq;

extern unsigned int asahi_job_ns;
extern unsigned int asahi_wait_ms;

/* Kernel heaps: bump-allocated, a guard page after each object */
#define HEAP_PRIVATE		0
#define HEAP_SHARED		1
#define NUM_HEAPS		2
#define HEAP_LIMIT		SZ_1G

/* A kernel object: contiguous pages, mapped at va in a heap */
struct asahi_obj {
	struct list_head node;
	struct page *pages;
	unsigned int order;
	unsigned int npages;
	u64 va;
	void *cpu;
	bool cached;		/* firmware-private: flushed when it goes */
};

/* One ring of a channel; ptr is our write (TX) or read (RX) index */
struct asahi_ring {
	void *state;
	void *ring;
	u32 count;
	u32 elem_size;
	u32 wptr_off;
	u32 first;		/* first element: firmware log sub-rings */
	u32 ptr;
};

struct asahi_gpu {
	const struct asahi_abi *abi;
	struct asahi_device *priv;
	struct device *dev;
	void __iomem *sgx;
	bool published;		/* the firmware may know our memory */
	struct list_head objs;
	u64 heap_next[NUM_HEAPS];

	struct asahi_obj *initdata;
	struct asahi_obj *rp;
	struct asahi_obj *globals;
	struct asahi_obj *fw_status;
	struct asahi_obj *stamps;		/* shared: what the driver reads */
	struct asahi_obj *fw_stamps;	/* private: Finalize and Barrier */
	struct asahi_ring pipes[NUM_PIPE_CHANNELS];
	struct asahi_ring devctrl;
	struct asahi_ring event;
	struct asahi_ring fwlog[FWLOG_LEVELS];
	struct asahi_obj *fwlog_buf;

	/* Written by the RX doorbell handler; under lock */
	spinlock_t lock;
	wait_queue_head_t wait;
	DECLARE_BITMAP(our_slots, NUM_SLOTS);
	/*
	 * Slots freed since they were last taken: the Flag of their last
	 * command may still come (the firmware writes the stamp before it
	 * posts the Flag, and the Flag of an earlier command may have shown
	 * the stamp already, letting the work queue go)
	 */
	DECLARE_BITMAP(freed_slots, NUM_SLOTS);
	u32 flag_stamp[NUM_SLOTS];	/* stamp seen at the newest Flag */
	unsigned int flags[NUM_SLOTS];
	unsigned int rx_doorbells;
	unsigned int flag_events;
	unsigned int fault_events;
	unsigned int other_events;
	unsigned int fwlog_lines;
	unsigned int errors;
	bool dead;
	u8 last_event[EVENT_SIZE];	/* the newest that was not a Flag */
	/* FwCtl ring and the handoff's flush requests (asahi_gpu_flush) */
	struct asahi_ring fwctl;
	void *handoff;
	/* Serialises RunWorkQueue messages and their doorbells */
	struct mutex tx_lock;
	/* Serialises mailbox sends (asahi_send) */
	struct mutex send_lock;
	/* Work queues of DRM queues, by event slot (asahi_workqueue.c) */
	struct asahi_wq *slot_owner[NUM_SLOTS];
	/*
	 * Buffer-manager slots (asahi_buffer.c): the buffer holding each,
	 * the id of the last one that did; under priv->gpu_lock
	 */
	struct asahi_buffer *buf_owner[ASAHI_BUF_SLOTS];
	u64 buf_last[ASAHI_BUF_SLOTS];
	u64 buf_ids;
};

static inline void wr32(void *base, u32 off, u32 val)
{
	put_unaligned_le32(val, base + off);
}

static inline void wr64(void *base, u32 off, u64 val)
{
	put_unaligned_le64(val, base + off);
}

/* Words the firmware writes or reads concurrently: aligned, single access */
static inline u32 rd32_once(const void *base, u32 off)
{
	return le32_to_cpu(READ_ONCE(*(const __le32 *)(base + off)));
}

static inline void wr32_once(void *base, u32 off, u32 val)
{
	WRITE_ONCE(*(__le32 *)(base + off), cpu_to_le32(val));
}

static inline u64 rd64_once(const void *base, u32 off)
{
	return le64_to_cpu(READ_ONCE(*(const __le64 *)(base + off)));
}

static inline void wr64_once(void *base, u32 off, u64 val)
{
	WRITE_ONCE(*(__le64 *)(base + off), cpu_to_le64(val));
}

/* Wrap-aware a >= b, as the driver compares stamps */
static inline bool stamp_ge(u32 a, u32 b)
{
	return (s32)(a - b) >= 0;
}

void asahi_gpu_error(struct asahi_gpu *gpu);
struct asahi_obj *asahi_obj_alloc(struct asahi_gpu *gpu, int heap,
				  size_t size, u64 prot);
struct asahi_obj *asahi_obj_alloc_align(struct asahi_gpu *gpu, int heap,
					size_t size, u64 prot, u64 align);
void asahi_obj_free(struct asahi_gpu *gpu, struct asahi_obj *obj);
int asahi_ring_tx(struct asahi_gpu *gpu, struct asahi_ring *r,
		  const void *elem);
bool asahi_ring_rx(struct asahi_gpu *gpu, struct asahi_ring *r, void *elem);
int asahi_doorbell(struct asahi_gpu *gpu, u16 channel);
u32 asahi_stamp(struct asahi_gpu *gpu, unsigned int slot);
u32 asahi_fw_stamp(struct asahi_gpu *gpu, unsigned int slot);

/* pending_stamps entry's event slot */
static inline unsigned int asahi_pending_slot(const struct asahi_gpu *gpu,
					      u32 info)
{
	return (info >> gpu->abi->pending_shift) & 0x7f;
}

#endif
