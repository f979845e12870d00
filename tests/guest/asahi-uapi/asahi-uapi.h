/*
 * asahi-uapi: tests of the upstream asahi DRM UAPI, run in the test guest
 *
 * Shared declarations: the test registry and its check macros, the
 * device helpers (drm.c) and the Mesa-like command builders (cmd.c).
 * The expectations come from include/uapi/drm/asahi_drm.h (normative
 * kernel-doc) and from what drm/asahi (the Asahi Rust driver,
 * drivers/gpu/drm/asahi) does on t8103; the tests name the driver file
 * that each behaviour comes from (file.rs: the ioctls; queue/: SUBMIT)
 * and Mesa's (src/asahi/lib/agx_device.c, src/asahi/vulkan/hk_queue.c)
 * where Mesa relies on it.
 */

#ifndef ASAHI_UAPI_H
#define ASAHI_UAPI_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "asahi_drm.h"

#define MARKER "AGX-TEST: "

/* 16 KiB: the UAT page size and the alignment of every bind */
#define GPU_PAGE 0x4000ULL

/* t8103 values drm/asahi reports (file.rs get_params, hw/t8103.rs) */
#define T8103_VM_START 0x4000ULL
#define T8103_VM_END 0x7fffff8000ULL
#define T8103_VM_KERNEL_MIN 0x20000000ULL

/*
 * Mesa's VA layout (src/asahi/lib/agx_device.c): the kernel range is the top
 * max(vm_kernel_min_size, 32 GiB) of the VM, the printf buffer sits at
 * 2^36 and the 4 GiB USC (shader) heap right above it, user data after.
 */
#define MESA_KERNEL_SIZE (32ULL << 30)
#define MESA_PRINTF_VA (1ULL << 36)
#define MESA_USC_BASE 0x1100000000ULL
/*
 * The client's no-op tile programs (cmd.c): a USC word list every 64
 * bytes from USC_PROGRAMS, 64 of them, for commands that name programs
 */
#define USC_PROGRAMS 0x1000
#define USC_PROGRAM(n) (USC_PROGRAMS + 0x40 * ((n) & 63))
#define MESA_USER_VA 0x1200000000ULL

/* ------------------------------------------------------------------ */
/* Test registry and checks (main.c)                                   */

enum {
    TEST_PASS = 0,
    TEST_FAIL = -1,
    TEST_SKIP = 1,
};

/*
 * A test that makes the GPU fault (or time out) on purpose says so with
 * TEST_GPU_FAULTS and checks what its jobs report; any other test fails
 * when the kernel logs a GPU fault, timeout or channel error meanwhile
 * (main.c): its commands must point at memory mapped in the queue's VM
 * with valid contents, as on the real GPU.
 */
#define TEST_GPU_FAULTS 1

typedef struct UapiTest {
    const char *path;
    int (*fn)(void);
    unsigned int flags;
} UapiTest;

/* Every test file exports one table, terminated by { NULL, NULL }. */
extern const UapiTest params_tests[];
extern const UapiTest gem_tests[];
extern const UapiTest vm_tests[];
extern const UapiTest queue_tests[];
extern const UapiTest submit_tests[];
extern const UapiTest blocked_tests[];
extern const UapiTest stress_tests[];
extern const UapiTest strict_tests[];
extern const UapiTest host_tests[];

/* Options from the command line (main.c) */
extern unsigned int opt_stress_submits;
extern unsigned int opt_bench_submits;
extern unsigned int opt_core_mask;

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int64_t now_ns(void);

/* Fails the test (returns TEST_FAIL) when cond is false. */
#define CHECK(cond)                                                      \
    do {                                                                 \
        if (!(cond)) {                                                   \
            diag("%s:%d: %s", __FILE__, __LINE__, #cond);                \
            return TEST_FAIL;                                            \
        }                                                                \
    } while (0)

/* The call (returning 0 or -errno) must succeed. */
#define CHECK_OK(call)                                                   \
    do {                                                                 \
        int ret_ = (call);                                               \
        if (ret_) {                                                      \
            diag("%s:%d: %s: %s", __FILE__, __LINE__, #call,             \
                 strerror(-ret_));                                       \
            return TEST_FAIL;                                            \
        }                                                                \
    } while (0)

/* The call (returning 0 or -errno) must fail with errno err. */
#define CHECK_ERR(call, err)                                             \
    do {                                                                 \
        int ret_ = (call);                                               \
        if (ret_ != -(err)) {                                            \
            diag("%s:%d: %s: %s, expected %s", __FILE__, __LINE__,       \
                 #call, ret_ ? strerror(-ret_) : "success",              \
                 strerror(err));                                         \
            return TEST_FAIL;                                            \
        }                                                                \
    } while (0)

/* Two unsigned values must be equal; prints both when not. */
#define CHECK_EQ(a, b)                                                   \
    do {                                                                 \
        unsigned long long a_ = (a), b_ = (b);                           \
        if (a_ != b_) {                                                  \
            diag("%s:%d: %s == 0x%llx, expected %s == 0x%llx",           \
                 __FILE__, __LINE__, #a, a_, #b, b_);                    \
            return TEST_FAIL;                                            \
        }                                                                \
    } while (0)

/* ------------------------------------------------------------------ */
/* Device access (drm.c); every wrapper returns 0 or -errno            */

/* Path of the asahi render node, or NULL; waits up to wait_ms for it */
const char *asahi_find_node(int wait_ms);
/* A new file on the asahi render node; -errno on failure */
int asahi_open(void);
/* The global parameters, read once at start-up */
extern struct drm_asahi_params_global asahi_params;

int drm_ioctl(int fd, unsigned long req, void *arg);

int asahi_get_params(int fd, uint32_t group, uint32_t pad, void *buf,
                     uint64_t size);
int asahi_get_time(int fd, uint64_t flags, uint64_t *ns);
int asahi_vm_create(int fd, uint64_t kstart, uint64_t kend,
                    uint32_t *vm_id);
/* A VM with Mesa's kernel range (as src/asahi/lib/agx_device.c) */
int asahi_vm_create_mesa(int fd, uint32_t *vm_id);
int asahi_vm_destroy(int fd, uint32_t vm_id);
int asahi_vm_bind_ops(int fd, uint32_t vm_id,
                      const struct drm_asahi_gem_bind_op *ops,
                      uint32_t n, uint32_t stride);
int asahi_bind(int fd, uint32_t vm_id, uint32_t handle, uint64_t offset,
               uint64_t range, uint64_t addr, uint32_t flags);
int asahi_unbind(int fd, uint32_t vm_id, uint64_t addr, uint64_t range);
int asahi_gem_create(int fd, uint64_t size, uint32_t flags, uint32_t vm_id,
                     uint32_t *handle);
int asahi_gem_close(int fd, uint32_t handle);
int asahi_gem_mmap_offset(int fd, uint32_t handle, uint32_t flags,
                          uint64_t *offset);
/* mmap()s a whole BO read/write; NULL on failure */
void *asahi_gem_map(int fd, uint32_t handle, uint64_t size);
int asahi_bind_object(int fd, uint32_t handle, uint64_t offset,
                      uint64_t range, uint32_t *object);
int asahi_unbind_object(int fd, uint32_t object);
int asahi_queue_create(int fd, uint32_t vm_id, uint32_t priority,
                       uint64_t usc_exec_base, uint32_t *queue_id);
int asahi_queue_destroy(int fd, uint32_t queue_id);
int asahi_submit(int fd, uint32_t queue_id, const void *cmdbuf,
                 uint32_t size, const struct drm_asahi_sync *in,
                 uint32_t n_in, const struct drm_asahi_sync *out,
                 uint32_t n_out);

/* Core DRM syncobjs */
int syncobj_create(int fd, bool signaled, uint32_t *handle);
int syncobj_destroy(int fd, uint32_t handle);
/* Waits up to timeout_ms for a binary syncobj; -ETIME on timeout */
int syncobj_wait(int fd, uint32_t handle, int timeout_ms);
/* Waits up to timeout_ms for point of a timeline syncobj */
int syncobj_timeline_wait(int fd, uint32_t handle, uint64_t point,
                          int timeout_ms);
int syncobj_query(int fd, uint32_t handle, uint64_t *point);
/* Signals point of a timeline syncobj from the CPU */
int syncobj_timeline_signal(int fd, uint32_t handle, uint64_t point);
/* Status of the fence in a binary syncobj: 1 signalled, 0 not, -errno */
int syncobj_fence_status(int fd, uint32_t handle);

/* ------------------------------------------------------------------ */
/* A Mesa-like client: one VM, one queue, buffers bound (cmd.c)        */

typedef struct GpuBuf {
    uint32_t handle;
    uint64_t size;
    uint64_t va;
    void *map;
} GpuBuf;

typedef struct Client {
    int fd;
    uint32_t vm_id;
    uint32_t queue_id;
    GpuBuf printf_buf;   /* WRITEBACK at MESA_PRINTF_VA, as Mesa binds */
    GpuBuf usc;          /* the shader heap's first pages */
    GpuBuf data;         /* control streams, attachments, scratch */
    GpuBuf ts;           /* timestamp buffer (SHARED | WRITEBACK) */
    uint32_t ts_object;  /* its GEM_BIND_OBJECT handle, once bound */
    bool shares_fd;      /* on another client's file (client_open_vm) */
} Client;

/* Opens a file and sets up the client the way Mesa does at start-up */
int client_open(Client *c, uint32_t priority);
/*
 * The same on parent's file: a second VM with its own buffers (same
 * addresses, contents and programs) and a queue on it
 */
int client_open_vm(Client *c, const Client *parent, uint32_t priority);
void client_close(Client *c);
/* Binds c->ts as a timestamp object (GEM_BIND_OBJECT) into ts_object */
int client_bind_timestamps(Client *c);
/* A BO of size bytes bound RW at va in the client's VM, mapped */
int client_buf(Client *c, GpuBuf *b, uint64_t size, uint64_t va,
               uint32_t gem_flags);

/*
 * Command stream builder: appends drm_asahi_cmd_header + payload to a
 * byte buffer, counting hardware commands as Mesa does for barriers.
 */
typedef struct CmdBuf {
    uint8_t bytes[16384];
    uint32_t len;
    uint16_t nr_vdm;  /* render commands so far in this submit */
    uint16_t nr_cdm;  /* compute commands so far */
} CmdBuf;

void cmdbuf_init(CmdBuf *cb);
/* Appends a header and size bytes of payload (may be NULL: zeros) */
void cmdbuf_push(CmdBuf *cb, uint16_t type, uint16_t size,
                 uint16_t vdm_barrier, uint16_t cdm_barrier,
                 const void *payload);
/* Appends a hardware command with Mesa's barriers: wait for all before */
void cmdbuf_push_compute(CmdBuf *cb, const struct drm_asahi_cmd_compute *c);
void cmdbuf_push_render(CmdBuf *cb, const struct drm_asahi_cmd_render *r);
void cmdbuf_push_attachments(CmdBuf *cb, uint16_t type,
                             const struct drm_asahi_attachment *a,
                             unsigned int n);

/* A compute command with valid GPU VAs in c->data / c->usc */
void client_compute(Client *c, struct drm_asahi_cmd_compute *cmd);
/* A w x h render pass, one RGBA8 target, as Mesa lays it out */
void client_render(Client *c, struct drm_asahi_cmd_render *cmd,
                   uint16_t w, uint16_t h);
/* One attachment: the client's colour target */
void client_attachment(Client *c, struct drm_asahi_attachment *a);

/*
 * Submits cb to the client's queue, out-signalling a new binary syncobj
 * and waiting for it up to timeout_ms.
 */
int client_submit_wait(Client *c, const CmdBuf *cb, int timeout_ms);

#endif
