/*
 * AGX USC: an interpreter of the G13 shader cores' instruction set
 *
 * QEMU-independent.  Runs what Mesa's compiler emits: a preamble (the
 * "preshader", once per launch, writing uniforms) and the main program
 * of every threadgroup of a launch, in SIMD-groups of 32 lanes with an
 * execution mask.  Every access to GPU memory goes through the caller's
 * AgxUscMemOps (the job's UAT context); the interpreter never sees
 * physical memory.  A threadgroup runs in one call, or suspended and
 * resumed across calls (AgxUscThreadgroup: every SIMD-group's registers,
 * pc, execution mask and stack, its threadgroup memory), so between two
 * calls the state of a launch is in AgxUscLaunch, the threadgroup in
 * flight and guest memory: that is what makes a dispatch sliceable and
 * migratable.  A vertex or fragment pipe's SIMD-group suspends and
 * resumes the same way (agx_usc_group_start: a threadgroup of one).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_USC_H
#define HW_AGX_AGX_USC_H

#include <stdbool.h>
#include <stdint.h>

/* Uniform file: 256 32-bit registers (512 16-bit halves) per launch */
#define AGX_USC_UNIFORMS        256
/* GPR file: r0..r127, 32 bits each, per lane */
#define AGX_USC_GPRS            128
#define AGX_USC_LANES           32
/* Texture and sampler state registers a launch can bind */
#define AGX_USC_TEX_STATES      256
#define AGX_USC_SAMPLER_STATES  256
#define AGX_USC_MAX_SHARED      65536

/* GPU virtual memory of the job, through its UAT context */
typedef struct AgxUscMemOps {
    /*
     * Read or write @len bytes at GPU VA @va.  Return false when the
     * access faults (unmapped, or not permitted), filling *@fault_va
     * with the faulting address; a failed read leaves @buf undefined.
     */
    bool (*read)(void *opaque, uint64_t va, void *buf, uint32_t len,
                 uint64_t *fault_va);
    bool (*write)(void *opaque, uint64_t va, const void *buf, uint32_t len,
                  uint64_t *fault_va);
} AgxUscMemOps;

typedef enum AgxUscStatus {
    AGX_USC_OK,                 /* ran to `stop` */
    AGX_USC_FAULT,              /* see AgxUscFault */
    AGX_USC_BUDGET,             /* ran out of instructions: a runaway */
    AGX_USC_SUSPENDED,          /* agx_usc_tg_run(): the slice is used up */
} AgxUscStatus;

typedef enum AgxUscFaultKind {
    AGX_USC_FAULT_NONE,
    AGX_USC_FAULT_DECODE,       /* invalid or unimplemented encoding */
    AGX_USC_FAULT_TRAP,         /* executed `trap` */
    AGX_USC_FAULT_FETCH,        /* code not readable */
    AGX_USC_FAULT_LOAD,         /* data read faulted (hard faults only) */
    AGX_USC_FAULT_STORE,        /* data write faulted (hard faults only) */
    AGX_USC_FAULT_REGISTER,     /* register beyond the declared count */
    AGX_USC_FAULT_STACK,        /* stack access outside the stack */
    AGX_USC_FAULT_LAUNCH,       /* threadgroup size or shared size invalid */
} AgxUscFaultKind;

typedef struct AgxUscFault {
    AgxUscFaultKind kind;
    uint64_t pc;                /* GPU VA of the instruction */
    uint64_t va;                /* faulting data address, if any */
    uint64_t insn;              /* its first 8 bytes, for the log */
} AgxUscFault;

/*
 * One launch's state, as the USC control words and the CDM Launch word
 * set it up (the data master fills it; see agx-cdm.h).
 */
typedef struct AgxUscLaunch {
    uint64_t usc_base;          /* usc_exec_base: code addresses are offsets */
    uint32_t main_pc;           /* USC offset of the main program */
    uint32_t preamble_pc;       /* USC offset of the preamble, if any */
    bool has_preamble;
    uint32_t gpr_halves;        /* Registers word: 16-bit GPR halves */
    uint32_t preamble_gpr_halves;   /* CDM Word0 preshader count */
    uint32_t shared_bytes;      /* Shared word: per threadgroup */
    uint32_t stack_bytes;       /* per thread, 0 if the shader never spills */
    uint32_t global[3];         /* grid size in threads */
    uint32_t local[3];          /* threadgroup size in threads */
    uint64_t tex_state_va[AGX_USC_TEX_STATES];      /* 0: unbound */
    uint64_t sampler_state_va[AGX_USC_SAMPLER_STATES];
    uint64_t sampler_heap_va;   /* drm_asahi_cmd_compute.sampler_heap */
    /* Soft faults: unmapped loads read 0, unmapped stores are dropped */
    bool soft_faults;
    uint32_t uniforms[AGX_USC_UNIFORMS];
    /*
     * A compute launch's imageblock (the Shared word's tile layout), the
     * tile its threadgroups' ld_tile, st_tile and block_image_store
     * reach: 0 wide when the launch has none
     */
    uint32_t tile_width, tile_height, tile_samples, tile_sample_bytes;
} AgxUscLaunch;

/*
 * Run the launch's preamble (if any): one SIMD-group, lane 0 active;
 * its uniform_store writes go to @l->uniforms, its tex_state_store and
 * sampler_state_store to @l->tex_state_va and @l->sampler_state_va.
 * @budget counts instructions executed (per SIMD-group, not per lane;
 * one that reaches memory, a texture or the tilebuffer counts two more
 * per active lane, its host cost being about that many ALU
 * instructions'), plus the work of checking and decoding the code (about
 * one per instruction), and is decremented; AGX_USC_BUDGET when it
 * reaches 0.
 */
AgxUscStatus agx_usc_run_preamble(AgxUscLaunch *l, const AgxUscMemOps *ops,
                                  void *opaque, uint64_t *budget,
                                  AgxUscFault *fault);

/*
 * Run threadgroup @tg (x, y, z index in the grid of threadgroups) of
 * launch @l to its end.  Threads outside the grid (a partial last
 * threadgroup) are not launched.
 */
AgxUscStatus agx_usc_run_threadgroup(const AgxUscLaunch *l,
                                     const uint32_t tg[3],
                                     const AgxUscMemOps *ops, void *opaque,
                                     uint64_t *budget, AgxUscFault *fault);

/*
 * One SIMD-group of a threadgroup: its registers (register-major,
 * r[reg * 32 + lane]), where it is and what runs.  Public so that a pipe
 * keeps and migrates a suspended threadgroup; the interpreter's own.
 */
typedef struct AgxUscSimd {
    uint32_t *r;                /* GPRs: nr words */
    uint32_t nr;
    uint32_t exec, launched;    /* active lanes, lanes that run at all */
    uint32_t index;             /* SIMD-group index in the threadgroup */
    int32_t pc;                 /* instruction index in the program */
    uint32_t state;             /* running, at a barrier, done */
    uint8_t *stack;             /* per lane: stack_cap bytes each */
    uint32_t nstack;            /* stack_cap * 32 */
    uint32_t stack_cap, sp;
    uint32_t base_cap;          /* the launch's stack size (capped) */
    /* derived from exec, not migrated (agx_usc_tg_run() sets them) */
    uint32_t nexec;             /* active lanes */
    uint32_t lm[AGX_USC_LANES]; /* ~0 for active lanes: the blend mask */
    /*
     * a pipe's group (agx_usc_group_start): each lane's live samples, and
     * as the group was launched (AgxUscGroup.coverage); all samples (0xff)
     * for a compute threadgroup's
     */
    uint8_t cov[AGX_USC_LANES];
    uint8_t cov_in[AGX_USC_LANES];
} AgxUscSimd;

/*
 * A threadgroup in flight: started by agx_usc_tg_start(), run in as many
 * calls of agx_usc_tg_run() as its slices take.  Everything but @prog is
 * state to migrate; the buffers' sizes are in the n* fields.
 */
typedef struct AgxUscThreadgroup {
    int32_t nsimd;              /* SIMD-groups; 0: no threadgroup */
    uint32_t tg[3];             /* its index in the grid */
    uint32_t cur;               /* the SIMD-group to run (or resume) */
    uint64_t used;              /* instructions it ran, with decoding */
    uint64_t limit;             /* the most it may: then a runaway */
    bool charged;               /* @used counts getting the program */
    AgxUscSimd *simd;
    uint8_t *shared;            /* threadgroup memory: nshared bytes */
    uint32_t nshared;
    uint8_t *tile;              /* its imageblock, if any: ntile bytes */
    uint32_t ntile;
    /* state registers its own tex/sampler_state_store set, if any */
    uint64_t *tex_state, *sampler_state;
    uint32_t ntex_state, nsampler_state;    /* 0 or AGX_USC_TEX_STATES */
    /* the decoded program, held between slices; NULL: fetched again */
    struct AgxUscProgram *prog;
} AgxUscThreadgroup;

/*
 * Set up threadgroup @tg of launch @l in @t (empty before: nsimd 0),
 * allowed @limit instructions in all.  AGX_USC_FAULT for an invalid
 * threadgroup size or shared size (nothing is set up then).
 */
AgxUscStatus agx_usc_tg_start(const AgxUscLaunch *l, const uint32_t tg[3],
                              uint64_t limit, AgxUscThreadgroup *t,
                              AgxUscFault *fault);

/*
 * Run threadgroup @t for at most *@slice instructions (decremented as in
 * agx_usc_run_preamble): AGX_USC_OK when it ended, AGX_USC_SUSPENDED
 * when the slice ran out (call again to resume where it stopped: the
 * same result as one call), AGX_USC_BUDGET when it ran out of its limit,
 * AGX_USC_FAULT.  The caller frees @t (agx_usc_tg_free()) unless it is
 * suspended.  Slices end on instruction counts only: the same input
 * gives the same slices.
 */
AgxUscStatus agx_usc_tg_run(const AgxUscLaunch *l, AgxUscThreadgroup *t,
                            const AgxUscMemOps *ops, void *opaque,
                            uint64_t *slice, AgxUscFault *fault);

/* Drop a threadgroup's state (nsimd back to 0); fine on an empty one */
void agx_usc_tg_free(AgxUscThreadgroup *t);

/*
 * After an incoming migration: agx_usc_tg_loaded() sets the pointers of
 * empty buffers (the stream allocates only the others) to NULL and drops
 * the program; agx_usc_tg_check_loaded() returns NULL if @t (not empty)
 * fits launch @l, else why not
 */
void agx_usc_tg_loaded(AgxUscThreadgroup *t);
const char *agx_usc_tg_check_loaded(const AgxUscLaunch *l,
                                    const AgxUscThreadgroup *t);

/*
 * A launch's preamble in slices (agx_usc_run_preamble in one), as
 * agx_usc_tg_run() runs a threadgroup:
 * agx_usc_preamble_start() sets up @l's preamble (it has one) in @t
 * (empty before), a threadgroup of one SIMD-group allowed @limit
 * instructions; agx_usc_preamble_run() runs it for at most *@slice
 * instructions, AGX_USC_SUSPENDED when they ran out (call again to
 * resume: its uniform stores are in @l already, its state register
 * stores reach @l when it ends), and the caller frees @t unless it is
 * suspended.  agx_usc_preamble_check_loaded(): after an incoming
 * migration (agx_usc_tg_loaded() first), NULL if @t fits @l's preamble,
 * else why not.
 */
void agx_usc_preamble_start(const AgxUscLaunch *l, uint64_t limit,
                            AgxUscThreadgroup *t);
AgxUscStatus agx_usc_preamble_run(AgxUscLaunch *l, AgxUscThreadgroup *t,
                                  const AgxUscMemOps *ops, void *opaque,
                                  uint64_t *slice, AgxUscFault *fault);
const char *agx_usc_preamble_check_loaded(const AgxUscLaunch *l,
                                          const AgxUscThreadgroup *t);

/*
 * A tile of pixel data that ld_tile, st_tile and block_image_store reach:
 * the tilebuffer of fragment work, or a compute threadgroup's imageblock.
 * @width x @height pixels, each @samples samples of @sample_bytes bytes,
 * pixel-major, row-major.  (@origin_x, @origin_y) is the tile's first
 * pixel in the render target or image.  @sample_positions: where each
 * sample lies in its pixel, as the render's ppp_multisamplectl word says
 * (agx_usc_sample_position).
 */
typedef struct AgxUscTile {
    uint8_t *mem;
    uint32_t width, height;
    uint32_t samples, sample_bytes;
    uint32_t origin_x, origin_y;
    uint32_t sample_positions;
} AgxUscTile;

/*
 * Sample @s's position in its pixel, in pixels from its top left corner,
 * for a render of @samples samples per pixel whose ppp_multisamplectl is
 * @word: byte s of the word, x in its bits 3:0 and y in bits 7:4, in
 * 1/16 pixel (Mesa's agx_default_sample_positions and
 * hk_pack_ppp_multisamplectrl; the values Mesa reports to GL and Vulkan
 * as the standard positions).  A word of 0 (not given: the model's own
 * tests) means the standard positions: the centre for 1 sample,
 * (0.75, 0.75) (0.25, 0.25) for 2, (0.375, 0.125) (0.875, 0.375)
 * (0.125, 0.625) (0.625, 0.875) for 4.
 */
void agx_usc_sample_position(uint32_t word, unsigned samples, unsigned s,
                             double *x, double *y);

/*
 * What a stage other than compute gives its shaders (vertex outputs,
 * fragment coefficients, ...): the vertex and fragment pipes define the
 * hooks they need here; the interpreter calls them with @stage_opaque.
 */
typedef struct AgxUscStageOps {
    /*
     * Vertex stage: lane @lane stored @value as its vertex's output word
     * @index (st_vary; the index is the shader's, unchecked)
     */
    void (*st_var)(void *opaque, uint32_t lane, uint32_t index,
                   uint32_t value);
    /*
     * Fragment stage: coefficient register @reg of the group's primitive,
     * the plane value = c[0] * x + c[1] * y + c[2] at (x, y) in pixels
     * from the tile's corner (iter, iterproj, ldcf); false if the
     * primitive has no such register (the instruction faults)
     */
    bool (*cf)(void *opaque, uint32_t reg, float c[3]);
    /*
     * Fragment stage: the depth/stencil test and update of samples
     * @samples of lane @lane's pixel, which the shader triggers
     * (sample_mask keeping them live, zs_emit): with the shader's depth
     * @z when @zs bit 0 is set and its stencil reference @sref when bit 1
     * is, else the primitive's.  Returns the samples that pass; the
     * others are killed.  Without the hook every test passes.
     */
    uint32_t (*zs)(void *opaque, uint32_t lane, uint32_t samples,
                   unsigned zs, float z, uint32_t sref);
} AgxUscStageOps;

/* Registers a stage may preset per lane (vertex id in r5, ...) */
#define AGX_USC_INIT_REGS       16

/*
 * One SIMD-group launched by a vertex or fragment pipe (or a test), not
 * by a compute grid: which lanes run, what their first registers hold,
 * and for fragment work which pixel and sample each lane shades.  Lanes
 * 4k..4k+3 are a quad, a 2x2 block of pixels, rows first: derivatives
 * (dfdx, dfdy) and the implicit LOD of texture_sample take differences
 * inside it, launched lanes or not (helper pixels).
 */
typedef struct AgxUscGroup {
    uint32_t launched;          /* lanes that run */
    uint32_t init_regs;         /* 32-bit registers init[] presets */
    uint32_t init[AGX_USC_INIT_REGS][AGX_USC_LANES];
    uint16_t px[AGX_USC_LANES]; /* fragment: pixel within the tile */
    uint16_t py[AGX_USC_LANES];
    uint8_t sample[AGX_USC_LANES];
    /*
     * fragment: the samples of each lane's pixel its primitive covers and
     * that passed the tests run before the shader (bit s: sample s); 0
     * for a lane means every sample of the tile (the background program,
     * groups that do not rasterize).  st_tile stores only to covered
     * samples; sample_mask takes samples away.
     */
    uint8_t coverage[AGX_USC_LANES];
    /*
     * fragment: lanes that run only for their quad's derivatives (helper
     * invocations): their st_tile stores nothing
     */
    uint32_t helper;
    bool back_facing;           /* fragment: its primitive faces back */
    uint32_t layer;             /* fragment: the render's layer (sr 2) */
    AgxUscTile *tile;           /* NULL: tile instructions fault */
    const AgxUscStageOps *stage;
    void *stage_opaque;
} AgxUscGroup;

/*
 * Run the main program of @l for the one SIMD-group @g, with @l's
 * uniforms and state registers and no threadgroup memory beyond
 * @l->shared_bytes (zeroed); as agx_usc_run_threadgroup otherwise.
 */
AgxUscStatus agx_usc_run_group(const AgxUscLaunch *l, const AgxUscGroup *g,
                               const AgxUscMemOps *ops, void *opaque,
                               uint64_t *budget, AgxUscFault *fault);

/*
 * The same in slices: agx_usc_group_start() sets up group @g of launch
 * @l in @t (empty before) as a threadgroup of one SIMD-group (its
 * registers preset, its coverage taken), allowed @limit instructions in
 * all; agx_usc_group_run() runs it for at most *@slice instructions, as
 * agx_usc_tg_run() runs a threadgroup: AGX_USC_SUSPENDED when the slice
 * ran out (call again with the same @l and an equal @g, which the caller
 * keeps or rebuilds: its pixels, tile and hooks are not in @t), and the
 * caller frees @t unless it is suspended.  A group suspended and resumed
 * ends as one run in one call (agx_usc_run_group) does.
 */
AgxUscStatus agx_usc_group_start(const AgxUscLaunch *l, const AgxUscGroup *g,
                                 uint64_t limit, AgxUscThreadgroup *t,
                                 AgxUscFault *fault);
AgxUscStatus agx_usc_group_run(const AgxUscLaunch *l, const AgxUscGroup *g,
                               AgxUscThreadgroup *t, const AgxUscMemOps *ops,
                               void *opaque, uint64_t *slice,
                               AgxUscFault *fault);

/*
 * After an incoming migration (agx_usc_tg_loaded() first): NULL if the
 * group in flight @t (not empty) fits launch @l, else why not
 */
const char *agx_usc_group_check_loaded(const AgxUscLaunch *l,
                                       const AgxUscThreadgroup *t);

/*
 * The tile layout a USC Shared control word (@word, its 32 bits) gives:
 * 32x32, 32x16 or 16x16 pixels of 1-4 samples of a stride in 8-byte
 * units, into @l's tile fields (0 wide for the vertex/compute layout,
 * which has no tile)
 */
void agx_usc_shared_tile(AgxUscLaunch *l, uint32_t word);

/* Lane-instructions executed since start-up, for benchmarks */
uint64_t agx_usc_lane_insns(void);

/*
 * Tests only: true makes the render paths take their general code where
 * they have a faster one for common cases (whole-tile depth and stencil
 * accesses, common tile formats, ...), so that tests can compare the two
 * byte for byte.  False (the fast paths) by default.
 */
extern bool agx_usc_general_paths;

#endif
