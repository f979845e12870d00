/*
 * AGX G13 GPU firmware: the state its layers share
 *
 * One AgxFw holds the whole firmware: configuration, what InitData gave,
 * the channels, the work queues and hardware units, and the fault state.
 * The layers work on it from the bottom up: services (agx-services.h:
 * guest memory, crash, log, trace), microsequences (agx-useq.h), faults
 * (agx-fault.h) and the tiled vertex buffer manager (agx-tvb.h), work
 * queues (agx-wq.h), and the dispatcher on top
 * (agx-fw.h), which alone sees every layer.  This header declares types
 * only, so that every layer can include it.
 *
 * QEMU-independent.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_FW_STATE_H
#define HW_AGX_AGX_FW_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-abi.h"
#include "hw/apple/apple-bits.h"
#include "hw/agx/agx-channel.h"
#include "hw/agx/agx-job-abi.h"
#include "hw/agx/agx-trace.h"
#include "hw/agx/agx-handoff.h"
#include "hw/apple/rtkit.h"
#include "hw/agx/agx-uat.h"
#include "hw/agx/agx-usc.h"
#include "hw/agx/agx-scene.h"

#define AGX_EP_FIRMWARE         0x20
#define AGX_EP_DOORBELL         0x21

/* EP 0x20 / 0x21 messages: the type in bits 63:48 */
APPLE_FIELD(AGX_MSG, TYPE, 48, 16);
APPLE_FIELD(AGX_MSG_INIT, VA, 0, 44);
APPLE_FIELD(AGX_MSG_DOORBELL, CHANNEL, 0, 16);

enum {
    AGX_MSG_RX_DOORBELL = 0x42,
    AGX_MSG_INIT = 0x81,
    AGX_MSG_TX_DOORBELL = 0x83,
    AGX_MSG_FWCTL = 0x84,
    AGX_MSG_HALT = 0x85,
};

/* Channel indices: pipes first, numbered like their doorbells */
enum {
    AGX_NUM_PIPE_TYPES = 3,             /* vertex, fragment, compute */
    AGX_NUM_PRIORITIES = 4,
    AGX_CH_PIPE0 = 0,                   /* doorbell n = type | prio << 2 */
    AGX_CH_DEVCTRL = 16,
    AGX_CH_EVENT,
    AGX_CH_FWLOG0,                      /* 6 sub-rings: debug .. crit */
    AGX_CH_KTRACE = AGX_CH_FWLOG0 + 6,
    AGX_CH_STATS,
    AGX_CH_FWCTL,
    AGX_NUM_CHANNELS,
};

#define AGX_FWLOG_LEVELS        6
/* Virtual time a job's GPU work takes unless configured */
#define AGX_FW_DEFAULT_JOB_NS   20000
#define AGX_FWLOG_MSG_LEN       0xc8

typedef enum AgxFwState {
    AGX_FW_OFF,                 /* coprocessor not running */
    AGX_FW_WAIT_INIT,           /* booted, no InitData yet */
    AGX_FW_RUNNING,
    AGX_FW_DEAD,                /* crashed */
} AgxFwState;

typedef enum AgxFwLogLevel {
    AGX_FWLOG_DEBUG,
    AGX_FWLOG_INFO,
    AGX_FWLOG_NOTICE,
    AGX_FWLOG_WARN,
    AGX_FWLOG_ERR,
    AGX_FWLOG_CRIT,
} AgxFwLogLevel;

typedef struct AgxFwOps {
    AgxPhysRW phys_rw;
    /* Virtual time; GPU time stamps count it (agx_fw_gpu_time()) */
    int64_t (*now_ns)(void *opaque);
    /* The driver broke the protocol */
    void (*guest_error)(void *opaque, const char *msg);
    /* The guest asked for what the model does not do (NULL: guest_error) */
    void (*unimp)(void *opaque, const char *msg);
    /* Whether guest_error() shows anything (NULL: always); saves formatting */
    bool (*guest_error_on)(void *opaque);
    /* Firmware log lines, for the host */
    void (*log)(void *opaque, int level, const char *msg);
    /* Arm the firmware timer for @deadline_ns virtual time; -1 cancels */
    void (*timer_mod)(void *opaque, int64_t deadline_ns);
} AgxFwOps;

/* What happens to the next job that starts */
typedef enum AgxFaultInject {
    AGX_INJECT_NONE,
    AGX_INJECT_GPU_FAULT,       /* it takes a GPU MMU fault */
    AGX_INJECT_TIMEOUT,         /* it never finishes: the watchdog fires */
    AGX_INJECT_CHANNEL_ERROR,   /* its channel reports an error */
    /*
     * The next vertex job whose buffer-manager slot is bound asks the
     * driver to grow its tiled vertex buffer (agx-tvb.h)
     */
    AGX_INJECT_GROW_TVB,
} AgxFaultInject;

#define AGX_MAX_QUEUES          128
/* GPU contexts the firmware keeps count of, until DestroyContext */
#define AGX_MAX_CONTEXTS        256
#define AGX_NUM_PIPES           3

/* Only AGX_QUEUE_READY queues are picked for scheduling */
typedef enum AgxQueueWait {
    AGX_QUEUE_READY,
    /*
     * Waiting for another queue's stamp: looked at again only when the
     * firmware writes that word, or on a pipe doorbell
     */
    AGX_QUEUE_BARRIER,
    AGX_QUEUE_RUNNING,          /* its job is on a pipe */
    AGX_QUEUE_FAULTED,          /* its job was running at a halt */
    AGX_QUEUE_CHANNEL_ERROR,    /* waiting for the driver's RecoverChannel */
} AgxQueueWait;

/* A work queue the firmware is serving; info_va == 0: free entry */
typedef struct AgxQueue {
    uint64_t info_va;           /* QueueInfo */
    uint64_t state_va;          /* RingState */
    uint64_t ring_va;
    uint64_t gpu_context;
    uint64_t seq;               /* order of the last RunWorkQueue */
    uint32_t pipe;
    uint32_t prio;
    uint32_t rptr;              /* next entry to process */
    uint32_t wptr;              /* end of the announced work */
    uint32_t event_slot;
    uint32_t wait;              /* AgxQueueWait */
    uint64_t barrier_va;        /* the u32 a blocked Barrier waits on */
} AgxQueue;

/* One hardware unit (pipe type) and the job it runs */
typedef struct AgxPipe {
    bool busy;
    uint32_t queue;             /* index into the queue table */
    uint64_t cmd_va;            /* the Run* record */
    uint64_t useq_va;           /* its microsequence */
    uint32_t useq_size;
    uint32_t useq_pos;          /* next op */
    uint32_t vm_slot;
    bool started;               /* its Start op ran */
    bool waited;                /* its GPU work is over */
    bool hung;                  /* injected hang: done_at is the watchdog */
    int64_t done_at;            /* virtual ns the GPU work ends */
} AgxPipe;

/* Where a field lies: the Run record or a block a Start op points at */
typedef enum AgxParamsBlock {
    AGX_PARAMS_RECORD,
    AGX_PARAMS_OP_A,            /* the Start op's first block pointer */
    AGX_PARAMS_OP_B,            /* its second */
    AGX_PARAMS_NUM_BLOCKS,
} AgxParamsBlock;

/* The largest Run record (RunFragment 13.5) and parameter block */
#define AGX_PARAMS_RECORD_MAX   0x970
#define AGX_PARAMS_BLOCK_MAX    0x390

/* What the firmware read when the pipe's last job started */
typedef struct AgxParams {
    bool valid;
    uint64_t cmd_va;
    uint8_t record[AGX_PARAMS_RECORD_MAX];
    uint8_t op_a[AGX_PARAMS_BLOCK_MAX];
    uint8_t op_b[AGX_PARAMS_BLOCK_MAX];
} AgxParams;

/* Buffer-manager slots of the tiled vertex buffers (NUM_BUFFERS) */
#define AGX_TVB_NUM_SLOTS       127

/* What InitBuffer bound to a buffer-manager slot; info_va 0: unbound */
typedef struct AgxTvbSlot {
    uint64_t info_va;           /* buffer::Info */
    uint64_t gpu_context;       /* of the queue that bound it */
    uint32_t vm_slot;
} AgxTvbSlot;

/*
 * Buffers whose pages the buffer manager hands out to scenes: one per
 * slot (a buffer renders while bound to one, and drm/asahi keeps it bound
 * while any of its scenes is in flight)
 */
#define AGX_TVB_RINGS           AGX_TVB_NUM_SLOTS
/*
 * Scenes of a buffer whose fragment jobs have not returned their pages;
 * one more waits for pages as when they are all taken (agx-tvb.h)
 */
#define AGX_TVB_LIVE_SCENES     16

/* A scene's pages: @pages from page @first of its buffer's ring */
typedef struct AgxTvbLive {
    uint64_t scene_va;          /* its Scene record */
    uint32_t first, pages;
} AgxTvbLive;

/*
 * A buffer's pages as a ring (agx-tvb.h): the live scenes hold their
 * pages, oldest first; the next scene starts at @next_page
 */
typedef struct AgxTvbRing {
    uint64_t info_va;           /* buffer::Info; 0: unused */
    uint32_t next_page;
    uint32_t nlive;
    AgxTvbLive live[AGX_TVB_LIVE_SCENES];
} AgxTvbRing;

/* The tiled vertex buffer manager (agx-tvb.h) */
typedef struct AgxTvb {
    AgxTvbSlot slots[AGX_TVB_NUM_SLOTS];
    AgxTvbRing rings[AGX_TVB_RINGS];
    uint32_t ring_victim;
    uint64_t page_waits;        /* vertex slices that waited for pages */
    uint64_t evictions;         /* scenes whose pages were taken back */
    /* A GrowTVB the driver has not acknowledged: its vertex job waits */
    bool pending;
    uint32_t pending_slot;
    uint32_t pending_vm_slot;
    uint32_t pending_counter;
    uint64_t pending_cmd;       /* the vertex job's Run record */
    uint32_t requests;          /* GrowTVB events sent: their counter */
    uint64_t grows;             /* GrowTVBAcks that resumed a request */
    uint32_t blocks;            /* block count last read */
} AgxTvb;

/* Return addresses of Stream Links with return (agxdecode keeps 16) */
#define AGX_CDM_STACK_DEPTH     16

/*
 * The compute data master's progress through the dispatch of the job on
 * the compute pipe (agx-cdm.h): where its control stream is, and the
 * launch whose threadgroups are being run, and the threadgroup a slice
 * suspended in its middle, if any: this and guest memory are all there
 * is to an in-flight dispatch.
 */
typedef struct AgxCdm {
    bool active;                /* a dispatch is in flight */
    bool in_launch;             /* @launch has threadgroups left */
    uint32_t vm_slot;           /* the job's UAT context */
    uint64_t usc_base;          /* usc_exec_base_cp */
    uint64_t sampler_heap;
    bool soft_faults;           /* shader loads of unmapped memory read 0 */
    uint64_t pos;               /* next block of the control stream */
    uint64_t stack[AGX_CDM_STACK_DEPTH];
    uint32_t depth;
    uint32_t blocks;            /* walked since threads last ran */
    uint32_t groups[3];         /* the launch's grid, in threadgroups */
    uint64_t next_group;        /* linear index of the next threadgroup */
    uint64_t budget;            /* instructions the job may still run */
    AgxUscLaunch launch;
    /*
     * threadgroup next_group, when a slice ended in its middle, or the
     * launch's preamble while @in_preamble
     */
    AgxUscThreadgroup tg;
    bool in_preamble;
    /* Counters, for tests and the host (QOM) */
    uint64_t launches;
    uint64_t threadgroups;
    uint64_t slices;
    uint64_t faults;
    uint64_t unimplemented;     /* launches cut short (agx-cdm.h) */
    /* slices that ended inside a threadgroup or preamble */
    uint64_t suspensions;
} AgxCdm;

/*
 * What the depth and stencil tests of one primitive need, from its state
 * record (agx-frag.c: FragZs), as integers (migrated)
 */
typedef struct AgxFragZs {
    uint32_t func, func2;       /* the face words' depth functions */
    uint32_t flags;             /* agx-frag.c's FRAG_ZS_* */
    uint32_t sw;                /* the stencil word */
    uint32_t ref;               /* the face's stencil reference */
    uint32_t zmin, zmax;        /* the depth range: float bits */
    uint64_t bias;              /* depth bias: double bits */
} AgxFragZs;

/* CF binding words a fragment shader may have */
#define AGX_FRAG_MAX_CF_BINDINGS        64

/* Where a tile in flight is (AgxFragTile.phase) */
typedef enum AgxFragPhase {
    AGX_FRAG_PHASE_NONE,        /* no tile in flight */
    AGX_FRAG_PHASE_BACKGROUND,
    AGX_FRAG_PHASE_PRIMITIVES,
    AGX_FRAG_PHASE_END_OF_TILE,
} AgxFragPhase;

/* Where the program or shader a tile binds is (AgxFragTile.prog) */
typedef enum AgxFragProg {
    AGX_FRAG_PROG_NONE,         /* not bound */
    AGX_FRAG_PROG_PREAMBLE,     /* bound, its preamble to run */
    AGX_FRAG_PROG_READY,        /* its SIMD-groups run */
} AgxFragProg;

/*
 * A tile in flight (agx-frag.c): a slice may end at any instruction of
 * its programs and shaders, and the next goes on from here.  Its buffers
 * (sizes in the n* fields) and everything else are migrated.
 */
typedef struct AgxFragTile {
    uint32_t phase;             /* AgxFragPhase */
    uint8_t *mem;               /* the tilebuffer: nmem bytes */
    uint32_t nmem;
    uint32_t *z;                /* each sample's depth (float bits) */
    uint32_t nz;
    uint8_t *s;                 /* ... and stencil: ns bytes */
    uint32_t ns;
    /*
     * The program (background, end of tile) or fragment shader being
     * bound or run (@prog, AgxFragProg); the next SIMD-group: its first
     * pixel (programs) or quad lane (@quads)
     */
    uint32_t prog;
    AgxUscLaunch launch;
    uint32_t next;
    /* Primitives: the scene walk, before the next primitive */
    AgxSceneCursor cur;
    /* ... the state record bound (UINT32_MAX: none), what it needs */
    uint32_t state;
    uint32_t mode;
    AgxPppState st;
    uint32_t cfb[AGX_FRAG_MAX_CF_BINDINGS];     /* its CF bindings */
    uint32_t ncfb;
    bool reads_z;
    /*
     * ... the primitive being shaded, when @in_prim (read again at @cur,
     * the walk then after it): its tests, its lanes (x | y << 8 |
     * samples << 16 | helper << 24 each, whole quads), the samples its
     * late tests passed
     */
    bool in_prim;
    AgxFragZs zs;
    uint32_t *quads;            /* room for nquad_room */
    uint32_t nquad_room;
    uint32_t nquads;
    uint64_t passed;
    /*
     * The SIMD-group a slice suspended, if any (nsimd 1): the preamble's
     * when @prog is AGX_FRAG_PROG_PREAMBLE
     */
    AgxUscThreadgroup group;
} AgxFragTile;

/*
 * The fragment pipe's progress through the tiles of the job on the
 * fragment pipe (agx-frag.h): its programs, its framebuffer and tile
 * layout, the next tile and the tile in flight.  This and guest memory
 * are all there is to in-flight fragment work.
 */
typedef struct AgxFrag {
    bool active;                /* tiles are left to render */
    uint32_t vm_slot;           /* the job's UAT context */
    uint64_t usc_base;          /* usc_exec_base_isp */
    uint64_t sampler_heap;
    bool soft_faults;
    uint32_t bg_pc, bg_spec;    /* background program: USC offset, Counts */
    uint32_t eot_pc, eot_spec;  /* end-of-tile program */
    uint32_t width, height;     /* the framebuffer, pixels */
    uint64_t tilemap;           /* the scene (agx-scene.h), 0: none */
    uint64_t scissor_base;      /* isp_scissor_base */
    uint64_t zls_ctrl;          /* depth loads and stores (cmdbuf.xml) */
    uint64_t z_load, z_store;   /* the depth buffer */
    uint32_t bg_depth;          /* isp_bgobjdepth: the depth clear value */
    uint64_t oclqry_base;       /* isp_oclqry_base: occlusion results */
    uint64_t s_load, s_store;   /* the stencil buffer */
    uint32_t bg_vals;           /* isp_bgobjvals: bits 7:0 the stencil */
    uint32_t sample_positions;  /* ppp_multisamplectl (agx-usc.h) */
    uint32_t tile_width, tile_height, tile_samples, tile_sample_bytes;
    uint32_t tiles_x, tiles_y;
    uint32_t next_tile;         /* raster order */
    uint64_t budget;            /* instructions the job may still run */
    /* Depth bias (apple-agx/depth-stencil) */
    uint64_t dbias_base;        /* isp_dbias_base: the depth bias array */
    uint32_t isp_ctl;           /* AuxFBInfo isp_ctl: bit 18 integer bias */
    /* Layers (apple-agx/depth-stencil): next_tile counts over them all */
    uint32_t layers;            /* the scene's, 1..AGX_FRAG_MAX_LAYERS */
    uint64_t z_load_stride, z_store_stride;     /* ZLS layer strides */
    uint64_t s_load_stride, s_store_stride;
    /* Counters, for tests and the host (QOM) */
    uint64_t tiles;
    uint64_t fragments;         /* pixels shaded for primitives */
    uint64_t slices;
    uint64_t faults;
    uint64_t unimplemented;     /* programs cut short (agx-frag.h) */
    /* The tile in flight (apple-agx/tile-in-flight), kept by frag_setup */
    AgxFragTile tile;
    uint64_t suspensions;       /* slices that ended inside a tile */
} AgxFrag;

/* Return addresses of VDM Stream Links with return */
#define AGX_VDM_STACK_DEPTH     16
/* Primitives shaded together: at most 4 vertices each, 32 lanes */
#define AGX_VDM_BATCH           8
/* A vertex keeps its position and this many more output words */
#define AGX_VDM_OUTPUTS         (4 + AGX_SCENE_MAX_VARYINGS)

/* One vertex as the vertex shader left it */
typedef struct AgxVdmVertex {
    uint32_t out[AGX_VDM_OUTPUTS];
} AgxVdmVertex;

/* A primitive of a batch, before its vertices are shaded */
typedef struct AgxVdmItem {
    uint32_t n;                 /* vertices */
    uint32_t lane[4];
    uint32_t k;                 /* in its segment */
    uint32_t prim_id;
    bool closing;               /* a line loop's last line */
} AgxVdmItem;

/*
 * A batch of a draw (agx-vdm.c), from when it is gathered until its
 * primitives are binned: its primitives, its lanes' vertex and instance
 * ids, what the vertex shader stored, the SIMD-group a slice suspended;
 * or, before the draw's batches, its vertex shader's preamble suspended
 */
typedef struct AgxVdmBatch {
    bool active;                /* gathered, not binned yet */
    bool preamble;              /* @group is the draw's preamble */
    AgxVdmItem item[AGX_VDM_BATCH];
    uint32_t items, lanes;
    uint32_t vid[AGX_USC_LANES];
    uint32_t iid[AGX_USC_LANES];
    AgxVdmVertex v[AGX_USC_LANES];
    uint32_t bad_index;         /* outputs stored beyond what we keep */
    AgxUscThreadgroup group;
} AgxVdmBatch;

/*
 * The vertex data master's progress through the job on the vertex pipe
 * (agx-vdm.h): its control stream, the render state it accumulated, the
 * draw whose primitives are being shaded and binned (its vertex shader
 * bound in @launch), the batch in flight and the scene being written.
 * This and guest memory are all there is to a vertex job in flight.
 */
typedef struct AgxVdm {
    bool active;
    uint32_t vm_slot;
    uint64_t usc_base;          /* usc_exec_base_ta */
    uint64_t sampler_heap;
    bool soft_faults;
    uint64_t pos;
    uint64_t stack[AGX_VDM_STACK_DEPTH];
    uint32_t depth;
    uint32_t blocks;            /* walked since primitives last ran */
    uint64_t budget;
    /* VDM State */
    uint32_t restart_index;
    uint32_t vs_word0, vs_word1;
    uint32_t vs_outputs;
    uint32_t vs_unknown;
    /* PPP State, and whether the scene has it yet */
    AgxPppState ppp;
    bool ppp_stored;
    /* The draw in progress */
    bool in_draw;
    uint32_t topology;
    uint64_t index_va;          /* 0: not indexed */
    uint32_t index_size;        /* bytes */
    uint32_t index_limit;       /* indices in the buffer */
    bool restart;
    uint32_t count, instances, start;
    uint32_t instance;          /* current instance */
    uint32_t seg;               /* first position of the restart segment */
    uint32_t k;                 /* next primitive of the segment */
    uint32_t prim_id;           /* primitives of the instance so far */
    AgxUscLaunch launch;
    /* The scene */
    AgxSceneWriter scene;
    uint64_t scene_va;          /* the render's Scene record */
    uint64_t info_va;
    bool scene_ok;              /* a scene is being written */
    bool page_wait;             /* its pages are still another scene's */
    uint32_t waited;            /* slices it waited */
    /*
     * A partial render of the scene (agx-vdm.h): the render's fragment
     * command, found when the first pass filled, and the fragment state of
     * the pass being rendered
     */
    bool partial;               /* a pass is being rendered */
    bool partial_wait;          /* ... once the fragment pipe is free */
    bool no_partial;            /* the render cannot pause: overflow drops */
    uint64_t frag_cmd;          /* RunFragment */
    AgxFrag pfrag;
    /* What the last finished vertex job used, for FinalizeVertex */
    uint64_t done_scene_va;
    uint32_t done_pages;        /* its last pass */
    bool done_overflow;         /* primitives were dropped */
    uint32_t done_total;        /* every pass */
    /* Counters, for tests and the host (QOM) */
    uint64_t draws;
    uint64_t prims;             /* stored in scenes */
    uint64_t culled;
    uint64_t vertices;          /* shaded */
    uint64_t slices;
    uint64_t faults;
    uint64_t partial_renders;
    /* The batch in flight (apple-agx/vertex-batch) */
    AgxVdmBatch batch;
    uint64_t suspensions;       /* slices that ended inside a batch */
} AgxVdm;

typedef struct AgxFw AgxFw;

struct AgxFw {
    /* Configuration; not migrated */
    const AgxFwOps *ops;
    void *opaque;
    RTKitState *rtk;
    const AgxAbi *abi;
    const AgxJobAbi *job_abi;
    uint64_t job_ns;            /* virtual duration of a job's GPU work */
    uint64_t chaos_seed;        /* agx-chaos.h; 0 = off */
    uint32_t chaos_fault_permille;      /* jobs given an injected fault */
    uint64_t handoff_pa;
    uint64_t ttbat_pa;
    /* The compute data master (agx-cdm.h); 0: its defaults */
    bool shaders_off;           /* compute jobs run no shaders */
    uint64_t cdm_slice;         /* instructions per slice */
    uint64_t cdm_budget;        /* instructions per job */
    AgxUat uat;
    AgxHandoff handoff;
    AgxTrace trace;             /* typed trace events (agx-trace.h) */
    /*
     * Every firmware write, shown to the work queues, whose Barriers wait
     * for words the firmware writes.  The services know no layer above
     * them: the dispatcher wires this in, as RTKit calls its endpoints.
     */
    void (*note_write)(AgxFw *fw, uint64_t va, uint64_t len);

    /* State, migrated by the owner */
    uint32_t state;             /* AgxFwState */
    uint64_t initdata_va;
    uint64_t rp_va;             /* RuntimePointers */
    uint64_t globals_va;
    uint64_t fw_status_va;
    uint64_t hwdata_a_va;
    uint64_t hwdata_b_va;
    uint64_t fwlog_buf_va;
    AgxChannel ch[AGX_NUM_CHANNELS];
    bool initialized;           /* DeviceControl Initialize seen */
    uint32_t fwlog_seq;
    uint64_t fault_info;        /* the SGX FAULT_INFO register */
    uint32_t devctrl_count;     /* messages processed, for tests */
    uint32_t fwctl_count;

    /* Work queues and the hardware units */
    AgxQueue queues[AGX_MAX_QUEUES];
    AgxPipe pipes[AGX_NUM_PIPES];
    uint64_t queue_seq;
    /* GPU contexts of the queues seen since their last DestroyContext */
    uint64_t contexts[AGX_MAX_CONTEXTS];
    uint32_t num_contexts;
    uint32_t firing[AGX_NUM_EVENT_SLOTS / 32];  /* slots to signal */
    uint64_t jobs_done;
    /* What each pipe's last job started with (agx-params.h) */
    AgxParams params[AGX_NUM_PIPES];
    int64_t flags_due;          /* not before: the next Flag event */
    uint32_t deferred_doorbells;        /* pipe channels not served yet */
    int64_t doorbells_due;
    uint64_t chaos_state;
    uint32_t wq_budget;         /* entries left in this pass; not migrated */
    bool barrier_waits;         /* a queue may wait on a Barrier (hint) */
    int queues_end;             /* queues in use lie below; not migrated */

    /* Faults (agx-fault.h) */
    uint32_t inject;            /* AgxFaultInject for the next job */
    bool halted;                /* waiting for the driver's resume */
    uint64_t halt_count;
    uint32_t timeout_count;

    /* Tiled vertex buffers (agx-tvb.h) */
    AgxTvb tvb;

    /* The compute data master (agx-cdm.h) */
    AgxCdm cdm;
    /* The fragment pipe (agx-frag.h) */
    AgxFrag frag;
    /* The vertex data master (agx-vdm.h) */
    AgxVdm vdm;
};

#endif
