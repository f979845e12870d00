/*
 * uapi-fuzz: a coverage-guided fuzzer of the asahi DRM UAPI, run in the
 * test guest
 *
 * A program is a sequence of calls: asahi ioctls, core DRM syncobj and
 * PRIME ioctls, close, mmap and writes through the maps, and pseudo-calls
 * that build the next SUBMIT's command buffer, sync list or the next
 * VM_BIND's op list.  A call's result (a file, VM, GEM handle, map,
 * queue, syncobj, timestamp object, dma-buf or sync_file) is a resource
 * that later calls name by the index of the call that made it ("r3").
 * Programs are written as text, one call per line:
 *
 *     r0 = open
 *     r1 = vm_create r0 0x77fffd8000 0x7fffff8000 0x0
 *
 * Programs run in a child process (fork) with KCOV enabled for it; those
 * that reach kernel code not reached before are kept and mutated.
 */

#ifndef UAPI_FUZZ_H
#define UAPI_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_CALLS 64
#define MAX_ARGS 8

/* What a call returns, and what an argument of reference type expects */
typedef enum ResKind {
    RES_NONE,
    RES_FD,         /* a file on the asahi render node */
    RES_VM,
    RES_BO,         /* a GEM handle */
    RES_MAP,        /* a CPU mapping of a BO */
    RES_QUEUE,
    RES_SYNCOBJ,
    RES_TSOBJ,      /* a GEM_BIND_OBJECT handle */
    RES_DMABUF,
    RES_SYNCFILE,
    RES__COUNT,
} ResKind;

/* How the generator picks a plain value */
typedef enum ValKind {
    V_ANY,          /* any 64-bit value, biased to small and edge values */
    V_ZERO,         /* must-be-zero fields: mostly zero */
    V_FLAGS,        /* a few low bits */
    V_SIZE,         /* byte sizes, mostly page multiples */
    V_OFFSET,       /* offsets into a BO or map */
    V_VA,           /* GPU virtual addresses in the user range */
    V_KSTART,       /* kernel range start of VM_CREATE */
    V_KEND,         /* kernel range end */
    V_BARRIER,      /* command barrier index or NONE */
    V_CMDTYPE,
    V_SYNCTYPE,
    V_POINT,        /* timeline point */
    V_PRIO,
    V_MS,           /* a short time in milliseconds */
    V_SMALL,        /* 0..15 */
    V_WIDTH,        /* 1, 2, 4 or 8 (cmd_set) */
    V_PIXELS,       /* a framebuffer dimension */
} ValKind;

typedef struct ArgDesc {
    const char *name;
    ResKind ref;    /* RES_NONE: a plain value of kind val */
    ValKind val;
} ArgDesc;

typedef struct OpDesc {
    const char *name;
    ResKind ret;
    int nargs;
    ArgDesc args[MAX_ARGS];
} OpDesc;

extern const OpDesc ops[];
extern const int n_ops;

typedef struct Arg {
    bool is_ref;    /* val is the index of an earlier call */
    uint64_t val;
} Arg;

typedef struct Call {
    uint16_t op;
    Arg args[MAX_ARGS];
} Call;

typedef struct Prog {
    int n;
    Call calls[MAX_CALLS];
} Prog;

/* prog.c: the text form */
int op_by_name(const char *name);
/* Writes p as text into buf; sep joins calls ("\n" or " ; ") */
size_t prog_format(const Prog *p, char *buf, size_t size, const char *sep);
/* Parses text (calls separated by newlines or ';'); -1 with msg on error */
int prog_parse(Prog *p, const char *text, char *msg, size_t msg_size);
uint64_t prog_hash(const Prog *p);
/*
 * A number, decimal or 0x hexadecimal, up to end (or the string's end);
 * returns where it stopped (s itself when there are no digits)
 */
const char *parse_u64(const char *s, uint64_t *v);

/* exec.c: runs p in the calling process; returns how many calls ran */
extern uint64_t exec_vm_start, exec_vm_end, exec_vm_kernel_min;
int prog_exec(const Prog *p, bool verbose);
/* Probes the render node once; false when there is no asahi node */
bool exec_init(void);

/* gen.c: generation and mutation */
uint64_t rnd(void);
void rnd_seed(uint64_t seed);
void prog_generate(Prog *p, int ncalls);
void prog_mutate(Prog *p, const Prog *other);
/* Makes every reference point back to a call that exists */
void prog_fixup(Prog *p);

#endif
