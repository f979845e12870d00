/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * asahi: the GPU firmware's ABI, G13: messages, shared memory layouts and
 * the command records, by offset.  Offsets are those of firmware 13.5;
 * what moves on 12.3 is in struct asahi_abi (one instance per ABI, in
 * asahi_fw.c) or computed from it by the helpers at the end.  The job
 * parameter blocks inside the Run records are asahi_params.c's, the TVB
 * buffer manager's structures asahi_buffer.c's.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#ifndef ASAHI_FW_ABI_H
#define ASAHI_FW_ABI_H

#include <linux/bits.h>
#include <linux/types.h>

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

/* InitData (12.3 has no ver_info: the rest is 8 bytes earlier, id_base) */
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

/* Globals.pending_stamps (at abi->gl_pending_stamps): {u32 info, value} */
#define NUM_PENDING_STAMPS	256
#define PENDING_VALID		BIT(0)

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
#define FWCTL_FLUSH_SLOT	0x0c
#define FWCTL_FLUSH_PAGES	0x10
#define FWCTL_FLUSH_UNK		0x12
#define PIPE_MSG_SIZE		0x30
#define DEVCTRL_MSG_SIZE	0x30
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

/* Events */
#define EV_FAULT		0
#define EV_FLAG			1
#define EV_TIMEOUT		4
#define EV_GROW_TVB		7
#define EV_CHANNEL_ERROR	8
#define EV_FLAG_FIRING		0x04	/* u32[4]: bit n = event slot n */
#define EV_TIMEOUT_SLOT		0x0c
#define EV_CHERR_PIPE		0x08
#define EV_CHERR_SLOT		0x0c
#define EV_CHERR_VALUE		0x10
#define NUM_SLOTS		128

/* DeviceControl RecoverChannel (its code is abi->dc_recover_channel) */
#define RCH_PIPE_TYPE		0x04
#define RCH_WORK_QUEUE		0x08
#define RCH_EVENT_VALUE		0x10

/* DeviceControl DestroyContext (13.3 dropped its padding) */
#define DC_DESTROY_CONTEXT(a)	((a)->v13 ? 0x18 : 0x17)
#define DCX_CTX_23		0x08
#define DCX_CTX_0(a)		((a)->v13 ? 0x11 : 0x14)
#define DCX_GPU_CONTEXT(a)	((a)->v13 ? 0x14 : 0x1c)

/* Work queues: QueueInfo, RingState, GpuContextData */
#define QI_STATE		0x00
#define QI_RING			0x08
#define QI_EVENT_ID		0x2c
#define QI_UUID			0x50
#define RS_SIZE			0x70
#define RS_GPU_DONEPTR		0x00
#define RS_CPU_WPTR		0x40
#define RS_RB_SIZE		0x50
#define WQ_SIZE			0x500
#define CTX_SIZE		0x40
/* GpuContextData bytes the driver sets and DestroyContext reads back */
#define CTX_UNK_0		0x00
#define CTX_UNK_4		0x04
#define CTX_UNK_23		0x23

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
#define BAR_UUID		0x18
#define BAR_TYPE		0x1c
#define BAR_UUID_EXPLICIT	0xffffbbbb

/* InitBuffer: a TVB buffer's buffer-manager slot binding */
#define CMD_INIT_BUFFER		6
#define IB_VM_SLOT		0x04
#define IB_BUFFER_SLOT		0x08
#define IB_BLOCK_COUNT		0x10
#define IB_BUFFER		0x14
#define IB_STAMP_VALUE		0x1c

/* JobMeta, in each Run* record */
#define META_STAMP		0x04
#define META_FW_STAMP		0x0c
#define META_VALUE		0x14
#define META_SLOT		0x18
#define META_FLUSH_STAMPS	0x20
#define META_UUID		0x24
#define META_EVENT_SEQ		0x28

/* Microsequence ops common to all pipes; Timestamp's size is the ABI's */
#define OP_TIMESTAMP		0x19
#define OP_TIMESTAMP_START	BIT(31)
#define TS_CUR			0x04
#define TS_PAIR			0x0c
#define TS_UPDATE		0x14
#define TS_WORK_QUEUE		0x1c
#define TS_USER			0x24
#define OP_RETIRE_STAMP		0x40000018

/* A Run record's time slots, after its command_time (the *_CUR_TS) */
#define REC_TS_PAIR		0x08	/* kernel {start, end} pointers */
#define REC_TS_USER		0x18	/* user {start, end} pointers */

enum { PIPE_VERTEX, PIPE_FRAGMENT, PIPE_COMPUTE, NUM_PIPES };

/* RunCompute and its ops: StartCompute, WaitForIdle, FinalizeCompute */
#define RC_TAG			3
#define RC_COUNTER		0x04
#define RC_VM_SLOT		0x10
#define RC_JOB_PARAMS1		0x70
#define RC_USEQ_PTR		0x1f0
#define RC_USEQ_SIZE		0x1f8
#define RC_JOB_PARAMS2		0x1fc
#define RC_META			0x284
#define RC_CUR_TS		0x2b0
#define RC_CLIENT_SEQ		0x2d8
#define OP_START_COMPUTE	0x29
#define SC_JOB_PARAMS1		0x0c
#define SC_WORK_QUEUE		0x1c
#define SC_VM_SLOT		0x24
#define SC_UNK_28		0x28
#define SC_EVENT_GEN		0x2c
#define SC_EVENT_SEQ		0x30
#define SC_JOB_PARAMS2		0x3c
#define SC_UUID			0x48
#define SC_COUNTER		0x15c
#define OP_WAIT_COMPUTE		0x00800001
#define OP_FINALIZE_COMPUTE	0x2a
#define FC_WORK_QUEUE		0x0c
#define FC_VM_SLOT		0x14
/* From here on abi->fc_shift earlier on 12.3 */
#define FC_JOB_PARAMS2		0x18
#define FC_UUID			0x24
#define FC_FW_STAMP		0x28
#define FC_VALUE		0x30
#define FC_RESTART		0x58

/* RunVertex and its ops */
#define RV_TAG			0
#define RV_COUNTER		0x04
#define RV_VM_SLOT		0x0c
#define RV_JOB_PARAMS1		0x40
#define RV_TILING_PARAMS	0x3c4
#define RV_USEQ_PTR		0x474
#define RV_USEQ_SIZE		0x47c
#define RV_FRAG_STAMP_SLOT	0x480
#define RV_FRAG_STAMP_VALUE	0x484
#define RV_META			0x56c
#define RV_CUR_TS		0x5b4
#define RV_CLIENT_SEQ		0x5dc
#define OP_START_VERTEX		0x22
#define SV_TILING_PARAMS	0x04
#define SV_JOB_PARAMS1		0x0c
#define SV_BUFFER		0x14
#define SV_SCENE		0x1c
#define SV_WORK_QUEUE		0x2c
#define SV_VM_SLOT		0x34
#define SV_UNK_38		0x38
#define SV_EVENT_GEN		0x3c
#define SV_BUFFER_SLOT		0x40
#define SV_EVENT_SEQ		0x48
#define SV_UUID			0x6c
#define SV_COUNTER		0x178
#define SV_UNK_178		0x188
#define OP_WAIT_VERTEX		0x00000101
#define OP_FINALIZE_VERTEX	0x23
#define FV_SCENE		0x04
#define FV_BUFFER		0x0c
#define FV_WORK_QUEUE		0x1c
#define FV_VM_SLOT		0x24
#define FV_UUID			0x38
#define FV_FW_STAMP		0x3c
#define FV_VALUE		0x44
#define FV_RESTART		0x6c

/* RunFragment and its ops */
#define RF_TAG			1
#define RF_COUNTER		0x04
#define RF_VM_SLOT		0x0c
#define RF_USEQ_PTR		0x14
#define RF_USEQ_SIZE		0x1c
#define RF_JOB_PARAMS1		0x80
#define RF_JOB_PARAMS2		0x3c8
#define RF_META			0x8d0
#define RF_CUR_TS		0x918
#define RF_CLIENT_SEQ		0x940
#define OP_START_FRAGMENT	0x24
#define SF_JOB_PARAMS2		0x04
#define SF_JOB_PARAMS1		0x0c
#define SF_SCENE		0x14
#define SF_WORK_QUEUE		0x3c
#define SF_WORK_ITEM		0x44
#define SF_VM_SLOT		0x4c
#define SF_UNK_50		0x50
#define SF_EVENT_GEN		0x54
#define SF_BUFFER_SLOT		0x58
#define SF_EVENT_SEQ		0x60
/* abi->sf_shift earlier on 12.3 */
#define SF_UUID			0x90
#define SF_COUNTER		0x19c
#define OP_WAIT_FRAGMENT	0x00010001
#define OP_FINALIZE_FRAGMENT	0x25
#define FF_UUID			0x04
#define FF_FW_STAMP		0x0c
#define FF_VALUE		0x14
#define FF_SCENE		0x1c
#define FF_BUFFER		0x24
#define FF_WORK_QUEUE		0x4c
#define FF_WORK_ITEM		0x54
#define FF_VM_SLOT		0x5c
/* abi->ff_shift earlier on 12.3 */
#define FF_RESTART		0x9c

/*
 * What differs between the firmware ABIs the driver speaks (12.3 and
 * 13.5, G13).  Run record offsets above are 13.5's; 12.3 lacks the
 * 13.0b4 counter at 0x04, so what lies between it and JobMeta sits
 * rec_shift bytes earlier, JobMeta and the time slots after it as the
 * table says (ABI_REC() and ABI_TIME() below).
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

/* A Run record field between the 13.0b4 counter and JobMeta */
#define ABI_REC(a, off13)	((off13) - (a)->rec_shift)

/* A Run record's JobMeta on 13.5, by pipe */
static inline u32 asahi_abi13_meta(unsigned int pipe)
{
	static const u32 meta[NUM_PIPES] = { RV_META, RF_META, RC_META };

	return meta[pipe];
}

/* A Run record field after JobMeta: at the same distance on both ABIs */
#define ABI_TIME(a, pipe, off13) \
	((a)->run_meta[pipe] + (off13) - asahi_abi13_meta(pipe))

#endif
