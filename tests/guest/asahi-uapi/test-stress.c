/*
 * asahi-uapi: many submissions (-s N, default 200) and throughput (-b N)
 *
 * The stress test spreads N submissions over four queues on two VMs and
 * chains them with one timeline syncobj (submission i waits for point i
 * and signals point i + 1), each queue also signalling its own timeline:
 * at the end every point must be there, in order, none lost (the second
 * VM has the same buffers as the first, so every job reads valid
 * streams).  Then four processes submit N / 4 each at the same time, each
 * on its own file, and close it once their work is done (closing it with
 * work queued unmaps what the jobs read, as drm/asahi does: that is
 * /asahi/teardown/close-in-flight's, which expects the faults).  The
 * throughput tests time N no-op compute submissions end to end (first
 * ioctl to last fence) on one queue and on four, keeping at most 256
 * in flight, and print submits/s.
 */

#define _GNU_SOURCE
#include <sys/wait.h>
#include <unistd.h>

#include "asahi-uapi.h"

#define NQ 4
#define WAIT_MS 30000
#define IN_FLIGHT 256

typedef struct Queues {
    Client c;
    Client c2;           /* the second VM, on c's file */
    uint32_t vm[2];
    uint32_t q[NQ];
    uint32_t tl[NQ];     /* one timeline per queue */
    uint64_t points[NQ]; /* points submitted on it */
} Queues;

static int queues_open(Queues *s, int nq)
{
    int i, ret;

    memset(s, 0, sizeof(*s));
    ret = client_open(&s->c, DRM_ASAHI_PRIORITY_MEDIUM);
    if (ret) {
        return ret;
    }
    s->vm[0] = s->c.vm_id;
    s->q[0] = s->c.queue_id;
    ret = client_open_vm(&s->c2, &s->c, DRM_ASAHI_PRIORITY_LOW);
    s->vm[1] = s->c2.vm_id;
    for (i = 0; !ret && i < nq; i++) {
        if (i) {
            ret = asahi_queue_create(s->c.fd, s->vm[i & 1], i & 1,
                                     MESA_USC_BASE, &s->q[i]);
        }
        if (!ret) {
            ret = syncobj_create(s->c.fd, false, &s->tl[i]);
        }
    }
    return ret;
}

static int test_stress_chain(void)
{
    struct drm_asahi_sync in = {
        .sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ,
    };
    struct drm_asahi_sync out[2] = {
        { .sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ },
        { .sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ },
    };
    struct drm_asahi_cmd_compute k;
    struct drm_asahi_cmd_render r;
    unsigned int i, n = opt_stress_submits;
    uint64_t point, seen = 0;
    uint32_t chain;
    Queues s;
    CmdBuf ck, cr;
    int64_t start = now_ns();

    CHECK_OK(queues_open(&s, NQ));
    CHECK_OK(syncobj_create(s.c.fd, false, &chain));
    client_compute(&s.c, &k);
    client_render(&s.c, &r, 64, 64);
    cmdbuf_init(&ck);
    cmdbuf_push_compute(&ck, &k);
    cmdbuf_init(&cr);
    cmdbuf_push_render(&cr, &r);
    cmdbuf_push_compute(&cr, &k);
    in.handle = chain;
    out[0].handle = chain;
    for (i = 0; i < n; i++) {
        unsigned int qi = i % NQ;
        const CmdBuf *cb = (i / NQ) & 1 ? &cr : &ck;

        in.timeline_value = i;
        out[0].timeline_value = i + 1;
        out[1].handle = s.tl[qi];
        out[1].timeline_value = ++s.points[qi];
        CHECK_OK(asahi_submit(s.c.fd, s.q[qi], cb->bytes, cb->len, &in,
                              i > 0, out, 2));
        /* The chain's signalled point only moves forward. */
        if (i % 64 == 63) {
            CHECK_OK(syncobj_query(s.c.fd, chain, &point));
            CHECK(point >= seen && point <= i + 1);
            seen = point;
        }
        /* Bound the number of queued jobs */
        if (i >= IN_FLIGHT) {
            CHECK_OK(syncobj_timeline_wait(s.c.fd, chain, i + 1 - IN_FLIGHT,
                                           WAIT_MS));
        }
    }
    CHECK_OK(syncobj_timeline_wait(s.c.fd, chain, n, WAIT_MS));
    CHECK_OK(syncobj_query(s.c.fd, chain, &point));
    CHECK_EQ(point, n);
    for (i = 0; i < NQ; i++) {
        CHECK_OK(syncobj_timeline_wait(s.c.fd, s.tl[i], s.points[i],
                                       WAIT_MS));
        CHECK_OK(syncobj_query(s.c.fd, s.tl[i], &point));
        CHECK_EQ(point, s.points[i]);
    }
    diag("%u chained submissions on %d queues in %lld ms", n, NQ,
         (long long)(now_ns() - start) / 1000000);
    client_close(&s.c2);
    client_close(&s.c);
    return TEST_PASS;
}

/* One process's share: n submissions, render and compute, then close */
static int process_share(unsigned int n)
{
    struct drm_asahi_sync out = {
        .sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ,
    };
    struct drm_asahi_cmd_compute k;
    struct drm_asahi_cmd_render r;
    struct drm_asahi_attachment att;
    unsigned int i;
    Client c;
    CmdBuf cb;

    CHECK_OK(client_open(&c, DRM_ASAHI_PRIORITY_LOW));
    CHECK_OK(syncobj_create(c.fd, false, &out.handle));
    client_compute(&c, &k);
    client_render(&c, &r, 64, 64);
    client_attachment(&c, &att);
    for (i = 1; i <= n; i++) {
        cmdbuf_init(&cb);
        if (i % 2) {
            cmdbuf_push_compute(&cb, &k);
        } else {
            cmdbuf_push_attachments(&cb, DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS,
                                    &att, 1);
            cmdbuf_push_render(&cb, &r);
        }
        out.timeline_value = i;
        CHECK_OK(asahi_submit(c.fd, c.queue_id, cb.bytes, cb.len, NULL, 0,
                              &out, 1));
        if (i > IN_FLIGHT) {
            CHECK_OK(syncobj_timeline_wait(c.fd, out.handle, i - IN_FLIGHT,
                                           WAIT_MS));
        }
    }
    CHECK_OK(syncobj_timeline_wait(c.fd, out.handle, n, WAIT_MS));
    client_close(&c);
    return TEST_PASS;
}

static int test_stress_processes(void)
{
    enum { NPROC = 4 };
    unsigned int n = opt_stress_submits / NPROC;
    pid_t pid[NPROC];
    int i, status, failed = 0;

    for (i = 0; i < NPROC; i++) {
        pid[i] = fork();
        CHECK(pid[i] >= 0);
        if (pid[i] == 0) {
            _exit(process_share(n) == TEST_PASS ? 0 : 1);
        }
    }
    for (i = 0; i < NPROC; i++) {
        while (waitpid(pid[i], &status, 0) < 0) {
            CHECK(errno == EINTR);
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status)) {
            diag("process %d failed (status 0x%x)", i, status);
            failed++;
        }
    }
    CHECK(failed == 0);
    return TEST_PASS;
}

/* n no-op compute submissions over nq queues; prints submits/s */
static int bench(int nq)
{
    struct drm_asahi_sync out = {
        .sync_type = DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ,
    };
    struct drm_asahi_cmd_compute k;
    unsigned int i, n = opt_bench_submits;
    int64_t start, ns;
    Queues s;
    CmdBuf cb;

    if (!n) {
        return TEST_SKIP;
    }
    CHECK_OK(queues_open(&s, nq));
    client_compute(&s.c, &k);
    cmdbuf_init(&cb);
    cmdbuf_push_compute(&cb, &k);
    start = now_ns();
    for (i = 0; i < n; i++) {
        unsigned int qi = i % nq;

        out.handle = s.tl[qi];
        out.timeline_value = ++s.points[qi];
        CHECK_OK(asahi_submit(s.c.fd, s.q[qi], cb.bytes, cb.len, NULL, 0,
                              &out, 1));
        if (s.points[qi] > IN_FLIGHT / nq) {
            CHECK_OK(syncobj_timeline_wait(s.c.fd, s.tl[qi],
                                           s.points[qi] - IN_FLIGHT / nq,
                                           WAIT_MS));
        }
    }
    for (i = 0; i < (unsigned int)nq; i++) {
        CHECK_OK(syncobj_timeline_wait(s.c.fd, s.tl[i], s.points[i],
                                       WAIT_MS));
    }
    ns = now_ns() - start;
    say("uapi: bench: %u compute submissions on %d queue(s) in %lld ms: "
        "%.0f submits/s", n, nq, (long long)ns / 1000000,
        n * 1e9 / (double)ns);
    client_close(&s.c2);
    client_close(&s.c);
    return TEST_PASS;
}

static int test_bench_one_queue(void)
{
    return bench(1);
}

static int test_bench_four_queues(void)
{
    return bench(NQ);
}

const UapiTest stress_tests[] = {
    { "/asahi/stress/chain", test_stress_chain },
    { "/asahi/stress/processes", test_stress_processes },
    { "/asahi/bench/submit-1q", test_bench_one_queue },
    { "/asahi/bench/submit-4q", test_bench_four_queues },
    { NULL, NULL },
};
