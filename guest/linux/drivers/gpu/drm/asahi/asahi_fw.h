/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * asahi: the GPU firmware's shared memory layouts (13.5 ABI, G13) and the
 * driver's view of the running firmware (struct asahi_gpu).
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

struct asahi_wq;

extern unsigned int asahi_job_ns;
extern unsigned int asahi_wait_ms;

/* Endpoints and their messages */
#define EP_FIRMWARE		0x20
#define EP_DOORBELL		0x21
#define MSG_TYPE		GENMASK_ULL(63, 48)
#define MSG_INIT_VA		GENMASK_ULL(43, 0)
#define MSG_RX_DOORBELL		0x42
#define MSG_INIT		0x81
#define MSG_TX_DOORBELL		0x83
#define MSG_FWCTL		0x84
#define DOORBELL_KICKFW		0x10
#define DOORBELL_DEVCTRL	0x11
#define PIPE_CHANNEL(type, prio) ((type) | (prio) << 2)
#define NUM_PIPE_CHANNELS	16

/* Handoff: the AP's magic, then the firmware's */
#define HANDOFF_MAGIC_AP	0x00
#define HANDOFF_MAGIC_FW	0x08
#define HANDOFF_MAGIC		0x4b1d000000000002ULL
#define HANDOFF_MAP_SIZE	0x10
#define HANDOFF_FLUSH(slot)	(0x20 + (slot) * 0x18)	/* state, addr, size */
#define HANDOFF_FULL_SIZE	0x648
#define FLUSH_SLOT_KERNEL	64

/* SGX registers */
#define SGX_FAULT_INFO		0x17030
#define SGX_CORE_MASK_0		0xd01500
#define SGX_ID_VERSION		0xd04000
#define SGX_ID_COUNTS_1		0xd04010
#define SGX_ID_CLUSTERS		0xd0401c
#define SGX_MAP_SIZE		0xd05000
#define FAULT_INFO_VALID	BIT_ULL(0)
#define FAULT_INFO_REASON	GENMASK_ULL(3, 1)
#define FAULT_INFO_UNIT		GENMASK_ULL(16, 9)
#define FAULT_UNIT_VDM0		0x08	/* regs.rs FaultUnit: vertex data master */
#define FAULT_INFO_SLOT		GENMASK_ULL(22, 17)
#define FAULT_INFO_ADDR		GENMASK_ULL(63, 30)	/* VA bits 39:6 */

/* Kernel heaps: bump-allocated, a guard page after each object */
#define HEAP_PRIVATE		0
#define HEAP_SHARED		1
#define NUM_HEAPS		2
#define HEAP_LIMIT		SZ_1G

/* InitData, 13.5 (12.3 has no ver_info and everything 8 bytes earlier) */
#define ID_SIZE			0xbc
#define ID_VER_INFO		0x00
#define ID_VER_INFO_13_5	0x00b006011f286ba0ULL
#define ID_UNK_BUF		0x08
#define ID_RUNTIME_POINTERS	0x18
#define ID_GLOBALS		0x20
#define ID_FW_STATUS		0x28
#define ID_UAT_PAGE		0x30	/* u16 size, u8 bits, u8 levels */
#define ID_UAT_LEVEL(l)		(0x34 + (l) * 0x20)
#define ID_HOST_MAPPED		0xa8

/* RuntimePointers: {state, ring} pairs, then the data structures */
#define RP_SIZE			0x6bc0
#define RP_PIPE(type, prio)	((prio) * 0x30 + (type) * 0x10)
#define RP_DEVCTRL		0xc0
#define RP_EVENT		0xd0
#define RP_FWLOG		0xe0
#define RP_KTRACE		0xf0
#define RP_STATS		0x100
#define RP_HWDATA_A		0x188
#define RP_HWDATA_B		0x1a0
#define RP_HWDATA_B2		0x1a8
#define RP_FWLOG_BUF		0x1b0

/* Globals and HwDataA/B are the device tree's blobs */
#define GLOBALS_SIZE		0x12394
#define GL_PENDING_STAMPS	0x111a8	/* {u32 info, u32 value} */
#define NUM_PENDING_STAMPS	256
#define PENDING_VALID		BIT(0)
#define PENDING_SLOT		GENMASK(10, 4)
#define HWDATA_A_SIZE		0x421c
#define HWDATA_B_SIZE		0x1884

/* FwStatus: the FwCtl channel, then the halt handshake */
#define FWS_SIZE		0x80
#define FWS_FWCTL		0x00
#define FWS_HALT_COUNT		0x10
#define FWS_HALTED		0x20
#define FWS_RESUME		0x30

/* Channels: read pointer at 0, write pointer at 0x20 (FwCtl: 0x10) */
#define CH_RPTR			0x00
#define CH_WPTR			0x20
#define CH_STATE_SIZE		0x30
#define CH_COUNT		0x100
#define FWCTL_WPTR		0x10
#define FWCTL_STATE_SIZE	0x20
#define FWCTL_ELEM_SIZE		0x14
#define PIPE_MSG_SIZE		0x30
#define DEVCTRL_MSG_SIZE	0x30
#define DEVCTRL_INITIALIZE	0x1a
#define EVENT_SIZE		0x38
#define FWLOG_LEVELS		6
#define FWLOG_ELEM_SIZE		0x38
#define FWLOG_ELEM_TYPE		2
#define FWLOG_ELEM_INDEX	0x08
#define FWLOG_PAYLOAD_SIZE	0xd8
#define FWLOG_PAYLOAD_TYPE	3
#define FWLOG_TEXT		0x10
#define KTRACE_COUNT		0x200
#define KTRACE_ELEM_SIZE	0x38
#define STATS_ELEM_SIZE		0x40

/* Events */
#define EV_FAULT		0
#define EV_FLAG			1
#define EV_TIMEOUT		4
#define EV_GROW_TVB		7
#define EV_CHANNEL_ERROR	8
#define EV_FLAG_FIRING		0x04	/* u32[4]: bit n = event slot n */
#define NUM_SLOTS		128

/* Work queues: QueueInfo, RingState, GpuContextData */
#define QI_SIZE			0xb8
#define QI_STATE		0x00
#define QI_RING			0x08
#define QI_EVENT_ID		0x2c
#define QI_UUID			0x50
#define QI_GPU_CONTEXT		0xa4
#define RS_SIZE			0x70
#define RS_GPU_DONEPTR		0x00
#define RS_CPU_WPTR		0x40
#define RS_RB_SIZE		0x50
#define WQ_SIZE			0x500
#define CTX_SIZE		0x40

/* RunWorkQueue */
#define RWQ_PIPE_TYPE		0x00
#define RWQ_QUEUE		0x04
#define RWQ_WPTR		0x0c
#define RWQ_SLOT		0x10
#define RWQ_IS_NEW		0x14

/* Barrier: wait for another queue's firmware stamp */
#define CMD_BARRIER		4
#define BAR_WAIT_STAMP		0x04
#define BAR_WAIT_VALUE		0x0c
#define BAR_WAIT_SLOT		0x10
#define BAR_STAMP_SELF		0x14
#define BAR_UNK		0x18
#define BAR_SIZE		0x40

/* JobMeta, in each Run* record */
#define META_STAMP		0x04
#define META_FW_STAMP		0x0c
#define META_VALUE		0x14
#define META_SLOT		0x18
#define META_FLUSH_STAMPS	0x20

/* Microsequence ops common to all pipes */
#define OP_TIMESTAMP		0x19
#define OP_TIMESTAMP_START	BIT(31)
#define TS_SIZE			0x3c
#define TS_CUR			0x04
#define TS_PAIR			0x0c
#define TS_UPDATE		0x14
#define TS_UUID			0x34
#define OP_RETIRE_STAMP		0x40000018

/*
 * A command block: record, microsequence, the time stamp results.  The
 * record holds the Timestamp ops' time slot and {start, end} result
 * pointers where drm/asahi puts them (packed U64s: 4 mod 8 for vertex).
 */
#define CMD_BLOCK_SIZE		0x1000
#define B_USEQ			0xa00
#define B_TS_START		0xf00
#define B_TS_END		0xf08
#define QUEUE_BLOCKS		128

/* Stamps go up by 0x100 and start so that they wrap during gpu-jobs */
#define STAMP_STEP		0x100
#define STAMP_BASE		((u32)(-100 * STAMP_STEP))

enum { PIPE_VERTEX, PIPE_FRAGMENT, PIPE_COMPUTE, NUM_PIPES };

/* Run* records and their ops, by pipe: 13.5, G13 */
struct asahi_pipe_layout {
	const char *name;
	u32 prio;		/* of our queue on this pipe */
	u32 slot;		/* its event slot */
	u32 tag;
	u32 size;		/* of the record, before B_USEQ */
	u32 useq_ptr;
	u32 useq_size;
	u32 meta;
	u32 cur_ts;		/* command_time, then timestamp_pointers */
	u32 start_op;
	u32 start_size;
	u32 wait_op;		/* WaitForIdle with this pipe's bit */
	u32 fin_op;
	u32 fin_size;
	u32 fin_fw_stamp;
	u32 fin_value;
	/* Start op offsets of its two parameter block pointers, and the blocks */
	u32 start_params[2];
	u32 params[2];		/* in the record */
};



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

struct asahi_testq {
	const struct asahi_pipe_layout *pl;
	unsigned int type;
	struct asahi_obj *info;
	struct asahi_obj *state;
	struct asahi_obj *ring;
	struct asahi_obj *ctx;
	struct asahi_obj *blocks;
	u32 wptr;
	u32 value;		/* stamp value of the newest command */
	bool kicked;
	/* Blocks: in use until the command with stamp block_free is checked */
	u32 next_block;
	bool block_used[QUEUE_BLOCKS];
	u32 block_free[QUEUE_BLOCKS];
	/* Submitted commands not yet checked, oldest first */
	struct asahi_tjob jobs[QUEUE_BLOCKS];
	u32 job_head;
	u32 job_count;
	u32 checked_value;	/* stamp value of the newest checked command */
	u64 last_end;		/* end timestamp of the newest checked one */
	struct asahi_vertex_end ends[QUEUE_BLOCKS];
	unsigned int submitted;
	unsigned int checked;
};

/*
 * What differs between the firmware ABIs the driver speaks (12.3 and
 * 13.5, G13).  Run record offsets are given for 13.5 in the code; 12.3
 * lacks the 13.0b4 counter at 0x04, so what lies between it and JobMeta
 * sits rec_shift bytes earlier, JobMeta and the time slots after it as
 * the table says.
 */
struct asahi_abi {
	const char *name;
	u32 compat[2];
	bool v13;		/* 13.0b4 fields: counters, tails, ver_info */
	u32 id_size;
	u32 id_base;		/* InitData offset of unk_buf */
	u32 globals_size;
	u32 hwa_size;
	u32 hwa_min;
	u32 hwb_size;
	u32 gl_pending_stamps;
	u32 pending_shift;	/* slot = (info >> shift) & 0x7f */
	u32 stats_elem;
	u32 dc_initialize;
	u32 dc_recover_channel;
	u32 dc_grow_tvb_ack;
	u32 qi_size;
	u32 qi_gpu_context;
	u32 ts_size;
	u32 ts_uuid;
	/* Op sizes: Start/Finalize Vertex, Fragment, Compute */
	u32 op_start[NUM_PIPES];
	u32 op_finalize[NUM_PIPES];
	u32 run_vm_slot[NUM_PIPES];
	u32 run_useq[NUM_PIPES];
	u32 run_meta[NUM_PIPES];
	u32 rec_shift;
	u32 fc_shift;		/* FinalizeCompute fields after 0x18 */
	u32 sf_shift;		/* StartFragment fields after 0x7c */
	u32 ff_shift;		/* FinalizeFragment fields after 0x6c */
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

	bool queues_ready;
	struct asahi_testq queues[NUM_PIPES];
	/* Fault events accounted for: any other one interrupts waits */
	unsigned int faults_seen;
	/* Over all checked commands, for the report */
	u64 first_start;
	u64 last_end;

	/* Written by the RX doorbell handler; under lock */
	spinlock_t lock;
	wait_queue_head_t wait;
	DECLARE_BITMAP(our_slots, NUM_SLOTS);
	u32 flag_stamp[NUM_SLOTS];	/* stamp seen at the newest Flag */
	unsigned int flags[NUM_SLOTS];
	unsigned int rx_doorbells;
	unsigned int flag_events;
	unsigned int fault_events;
	unsigned int other_events;
	unsigned int fwlog_lines;
	unsigned int errors;
	unsigned int jobs_checked;
	bool dead;
	u8 last_event[EVENT_SIZE];	/* the newest that was not a Flag */
	/* FwCtl ring and the handoff's flush requests (asahi_gpu_flush) */
	struct asahi_ring fwctl;
	void *handoff;
	/* Serialises DRM queues' RunWorkQueue messages and doorbells */
	struct mutex tx_lock;
	/* Serialises mailbox sends (asahi_send) */
	struct mutex send_lock;
	/* Work queues of DRM queues, by event slot (asahi_queue.c) */
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
int asahi_doorbell(struct asahi_gpu *gpu, u16 channel);
u32 asahi_stamp(struct asahi_gpu *gpu, unsigned int slot);
u32 asahi_fw_stamp(struct asahi_gpu *gpu, unsigned int slot);

/* pending_stamps entry's event slot */
static inline unsigned int asahi_pending_slot(const struct asahi_gpu *gpu,
					      u32 info)
{
	return (info >> gpu->abi->pending_shift) & 0x7f;
}

/* Event slots below this one are the self-tests' (asahi_fwtest.c) */
#define ASAHI_FIRST_QUEUE_SLOT	8

/* asahi_queue.c: a Flag for a DRM queue's slot; the firmware died */
void asahi_wq_signal(struct asahi_wq *wq);
void asahi_wq_fail_all(struct asahi_wq *wq, int error);
void asahi_wq_mark_error(struct asahi_wq *wq, u32 value, int error,
			 int fault_vm_slot);
u64 asahi_wq_info_va(struct asahi_wq *wq);

/* asahi_event.c */
bool asahi_gpu_error_event(struct asahi_gpu *gpu, u32 tag, const u8 *ev);

#endif
