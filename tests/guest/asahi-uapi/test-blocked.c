/*
 * asahi-uapi: jobs held back by a fence the test controls
 *
 * With the kernel's sw_sync (CONFIG_SW_SYNC, in debugfs) a test makes a
 * fence that signals only when it says so, imports it into a syncobj and
 * submits jobs that wait on it.  Then it checks that nothing ran before
 * the fence signalled, and tears a queue or the whole file down while
 * its jobs are still waiting in the DRM scheduler (drm/asahi's hardest
 * bugs lived there).  Without sw_sync the tests are skipped.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "asahi-uapi.h"

#define SW_SYNC_PATH "/sys/kernel/debug/sync/sw_sync"
#define WAIT_MS 10000
#define NJOBS 16
/*
 * The gate opens by itself after GATE_MS, so that a teardown that waits
 * for the blocked jobs cannot hang the test.  Waiting is allowed: the DRM
 * scheduler's entity flush waits (killably) until a live process's
 * queued jobs have been handed to the hardware, and only bounds the wait
 * (then drops the jobs) for an exiting process.  It must end once the
 * gate is open, though.
 */
#define GATE_MS 5000
#define TEARDOWN_MAX_MS (GATE_MS + 3000)

/* sw_sync's ioctls (drivers/dma-buf/sw_sync.c; not in a UAPI header) */
struct sw_sync_create_fence_data {
    uint32_t value;
    char name[32];
    int32_t fence;
};

#define SW_SYNC_IOC_CREATE_FENCE \
    _IOWR('W', 0, struct sw_sync_create_fence_data)
#define SW_SYNC_IOC_INC _IOW('W', 1, uint32_t)

/*
 * A test's blocker: a sw_sync timeline at 0, a fence at point 1 of it in
 * the binary syncobj `gate` of the client's file.
 */
typedef struct Blocker {
    int timeline;
    uint32_t gate;
} Blocker;

static int blocker_make(Client *c, Blocker *b)
{
    struct sw_sync_create_fence_data fd = { .value = 1, .name = "gate" };
    struct drm_syncobj_handle h = {
        .flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
    };
    int ret;

    b->timeline = open(SW_SYNC_PATH, O_RDWR | O_CLOEXEC);
    if (b->timeline < 0) {
        return -errno;
    }
    ret = drm_ioctl(b->timeline, SW_SYNC_IOC_CREATE_FENCE, &fd);
    if (ret) {
        return ret;
    }
    ret = syncobj_create(c->fd, false, &b->gate);
    if (ret) {
        return ret;
    }
    h.handle = b->gate;
    h.fd = fd.fence;
    ret = drm_ioctl(c->fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &h);
    close(fd.fence);
    return ret;
}

/* Opens the gate: the sw_sync timeline reaches point 1. */
static int blocker_open(Blocker *b)
{
    uint32_t one = 1;

    return drm_ioctl(b->timeline, SW_SYNC_IOC_INC, &one);
}

/*
 * A child process that opens the gate after ms milliseconds; it keeps no
 * other file open (a DRM file it shared would outlive our close()).
 */
static pid_t blocker_open_later(Blocker *b, int ms)
{
    int sync[2], fd;
    char c = 0;
    pid_t pid;

    if (pipe(sync)) {
        return -1;
    }
    pid = fork();
    if (pid == 0) {
        for (fd = 3; fd < 1024; fd++) {
            if (fd != b->timeline && fd != sync[1]) {
                close(fd);
            }
        }
        /* our copies are closed: the parent may go on */
        if (write(sync[1], &c, 1) != 1) {
            _exit(1);
        }
        close(sync[1]);
        usleep(ms * 1000);
        _exit(blocker_open(b) ? 1 : 0);
    }
    close(sync[1]);
    if (pid > 0 && read(sync[0], &c, 1) != 1) {
        pid = -1;
    }
    close(sync[0]);
    return pid;
}

static void reap(pid_t pid)
{
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
}

static int skip_without_sw_sync(void)
{
    if (access(SW_SYNC_PATH, R_OK | W_OK)) {
        diag("no %s (CONFIG_SW_SYNC, debugfs): skipped", SW_SYNC_PATH);
        return TEST_SKIP;
    }
    return TEST_PASS;
}

/*
 * NJOBS jobs, render and compute, the first waiting on the gate; the
 * last one's fence goes to out.
 */
static int submit_gated(Client *c, Blocker *b, uint32_t out)
{
    struct drm_asahi_sync in = {
        .sync_type = DRM_ASAHI_SYNC_SYNCOBJ,
        .handle = b->gate,
    };
    struct drm_asahi_sync o = {
        .sync_type = DRM_ASAHI_SYNC_SYNCOBJ,
        .handle = out,
    };
    struct drm_asahi_cmd_compute k;
    struct drm_asahi_cmd_render r;
    CmdBuf cb;
    int i, ret;

    client_compute(c, &k);
    client_render(c, &r, 64, 64);
    for (i = 0; i < NJOBS; i++) {
        cmdbuf_init(&cb);
        if (i & 1) {
            cmdbuf_push_render(&cb, &r);
        } else {
            cmdbuf_push_compute(&cb, &k);
        }
        ret = asahi_submit(c->fd, c->queue_id, cb.bytes, cb.len, &in,
                           i == 0, &o, i == NJOBS - 1);
        if (ret) {
            return ret;
        }
    }
    return 0;
}

/* In-syncs hold jobs back; opening the gate lets all of them run. */
static int test_blocked_in_sync(void)
{
    Blocker b;
    uint32_t out;
    Client c;

    if (skip_without_sw_sync()) {
        return TEST_SKIP;
    }
    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(blocker_make(&c, &b));
    CHECK_OK(syncobj_create(c.fd, false, &out));
    CHECK_OK(submit_gated(&c, &b, out));
    /* the queue runs in order: nothing may finish behind a closed gate */
    CHECK_ERR(syncobj_wait(c.fd, out, 300), ETIME);
    CHECK_OK(blocker_open(&b));
    CHECK_OK(syncobj_wait(c.fd, out, WAIT_MS));
    CHECK_EQ(syncobj_fence_status(c.fd, out), 1);
    close(b.timeline);
    client_close(&c);
    return TEST_PASS;
}

/*
 * QUEUE_DESTROY while the queue's jobs wait on the gate: the call
 * returns, at the latest soon after the gate opens, the last fence
 * signals (done or with an error), and the file can go on working.
 */
static int test_blocked_queue_destroy(void)
{
    Blocker b;
    uint32_t out;
    Client c;
    CmdBuf cb;
    struct drm_asahi_cmd_compute k;
    long long ms;
    int64_t start;
    pid_t opener;
    int status;

    if (skip_without_sw_sync()) {
        return TEST_SKIP;
    }
    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(blocker_make(&c, &b));
    CHECK_OK(syncobj_create(c.fd, false, &out));
    CHECK_OK(submit_gated(&c, &b, out));
    opener = blocker_open_later(&b, GATE_MS);
    CHECK(opener > 0);
    start = now_ns();
    CHECK_OK(asahi_queue_destroy(c.fd, c.queue_id));
    ms = (now_ns() - start) / 1000000;
    diag("QUEUE_DESTROY returned after %lld ms", ms);
    CHECK(ms < TEARDOWN_MAX_MS);
    CHECK_OK(syncobj_wait(c.fd, out, WAIT_MS));
    reap(opener);
    status = syncobj_fence_status(c.fd, out);
    diag("fence of a job queued behind the gate: %d", status);
    CHECK(status == 1 || status < 0);
    CHECK_OK(asahi_queue_create(c.fd, c.vm_id, DRM_ASAHI_PRIORITY_MEDIUM,
                                MESA_USC_BASE, &c.queue_id));
    client_compute(&c, &k);
    cmdbuf_init(&cb);
    cmdbuf_push_compute(&cb, &k);
    CHECK_OK(client_submit_wait(&c, &cb, WAIT_MS));
    close(b.timeline);
    client_close(&c);
    return TEST_PASS;
}

/*
 * The file closes while its jobs wait on the gate: close() returns, at
 * the latest soon after the gate opens, and the last job's fence (kept
 * as a sync_file) signals.  The close unmapped the VM (as drm/asahi), so
 * jobs that run after it fault (flagged TEST_GPU_FAULTS).
 */
static int test_blocked_close(void)
{
    struct drm_syncobj_handle h = {
        .flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
    };
    struct pollfd pfd = { .events = POLLIN };
    Blocker b;
    uint32_t out;
    Client c;
    long long ms;
    int64_t start;
    pid_t opener;
    int ret;

    if (skip_without_sw_sync()) {
        return TEST_SKIP;
    }
    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(blocker_make(&c, &b));
    CHECK_OK(syncobj_create(c.fd, false, &out));
    CHECK_OK(submit_gated(&c, &b, out));
    h.handle = out;
    CHECK_OK(drm_ioctl(c.fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h));
    opener = blocker_open_later(&b, GATE_MS);
    CHECK(opener > 0);
    start = now_ns();
    client_close(&c);
    ms = (now_ns() - start) / 1000000;
    diag("close() returned after %lld ms", ms);
    CHECK(ms < TEARDOWN_MAX_MS);
    pfd.fd = h.fd;
    do {
        ret = poll(&pfd, 1, WAIT_MS);
    } while (ret < 0 && errno == EINTR);
    CHECK(ret == 1);
    reap(opener);
    close(h.fd);
    close(b.timeline);
    return TEST_PASS;
}

/*
 * VM_DESTROY and GEM close of everything the blocked jobs use, then the
 * gate opens: the jobs keep the VM's page tables alive, but as in
 * drm/asahi its user mappings went with VM_DESTROY, so the first job to
 * read its control stream takes a GPU fault (flagged TEST_GPU_FAULTS):
 * the last fence carries EIO.
 */
static int test_blocked_vm_destroy(void)
{
    Blocker b;
    uint32_t out;
    Client c;

    if (skip_without_sw_sync()) {
        return TEST_SKIP;
    }
    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(blocker_make(&c, &b));
    CHECK_OK(syncobj_create(c.fd, false, &out));
    CHECK_OK(submit_gated(&c, &b, out));
    CHECK_OK(asahi_vm_destroy(c.fd, c.vm_id));
    CHECK_OK(asahi_gem_close(c.fd, c.data.handle));
    CHECK_OK(asahi_gem_close(c.fd, c.usc.handle));
    CHECK_OK(asahi_gem_close(c.fd, c.printf_buf.handle));
    CHECK_OK(blocker_open(&b));
    CHECK_OK(syncobj_wait(c.fd, out, WAIT_MS));
    CHECK_EQ(syncobj_fence_status(c.fd, out), -EIO);
    close(b.timeline);
    client_close(&c);
    return TEST_PASS;
}

/*
 * The gate's timeline goes away unsignalled (its fence signals with an
 * error): the jobs behind it must not hang, whatever they report.
 */
static int test_blocked_gate_error(void)
{
    Blocker b;
    uint32_t out;
    Client c;

    if (skip_without_sw_sync()) {
        return TEST_SKIP;
    }
    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_MEDIUM));
    CHECK_OK(blocker_make(&c, &b));
    CHECK_OK(syncobj_create(c.fd, false, &out));
    CHECK_OK(submit_gated(&c, &b, out));
    close(b.timeline);
    CHECK_OK(syncobj_wait(c.fd, out, WAIT_MS));
    diag("fence behind a failed gate: %d",
         syncobj_fence_status(c.fd, out));
    client_close(&c);
    return TEST_PASS;
}

const UapiTest blocked_tests[] = {
    { "/asahi/blocked/in-sync", test_blocked_in_sync },
    { "/asahi/blocked/queue-destroy", test_blocked_queue_destroy },
    { "/asahi/blocked/close", test_blocked_close, TEST_GPU_FAULTS },
    { "/asahi/blocked/vm-destroy", test_blocked_vm_destroy,
      TEST_GPU_FAULTS },
    { "/asahi/blocked/gate-error", test_blocked_gate_error },
    { NULL, NULL },
};
