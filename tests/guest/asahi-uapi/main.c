/*
 * asahi-uapi: test runner
 *
 * usage: asahi-uapi [-p PREFIX]... [-x PREFIX]... [-w WAIT_MS]
 *                   [-s STRESS_N] [-b BENCH_N] [-c CORE_MASK] [-l]
 *
 * Finds the render node whose driver is "asahi", reads its parameters,
 * then runs every test whose path starts with one of the PREFIXes (all
 * by default; /asahi/host/ only when named), each in its own child
 * process so that a crash, a hang (60 s) or leaked files cannot affect
 * the next one; tests under a -x PREFIX are reported as skipped.
 * Output is TAP, one
 * line per write and each line prefixed with "AGX-TEST: " like the rest
 * of the guest's /init.  -c gives the GPU's core mask when the machine
 * runs with a non-default apple-agx.core-mask (0xff).  A kernel splat
 * (BUG, WARNING, KASAN, lockdep, ...) logged while a test ran fails that
 * test; the last test asks kmemleak to scan and fails on any splat of
 * the whole run.  So does a GPU fault, timeout or channel error the kernel
 * logged while a test ran, unless the test is flagged TEST_GPU_FAULTS.
 *
 * Exit status: 0 all passed, 1 a test failed, 2 no asahi render node.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "asahi-uapi.h"

#define TEST_TIMEOUT_S 60
/* for /asahi/stress/ and /asahi/bench/, whose size is an option */
#define LONG_TEST_TIMEOUT_S 900
#define MAX_PREFIXES 40

unsigned int opt_stress_submits = 200;
unsigned int opt_bench_submits;

static const char *prefixes[MAX_PREFIXES];
static const char *excludes[MAX_PREFIXES];
static int n_prefixes, n_excludes;
static unsigned long long kmsg_start_seq, kmsg_seq;
static int gpu_error_total;

static void emit(const char *prefix, const char *fmt, va_list ap)
{
    char buf[512];
    int len = snprintf(buf, sizeof(buf), "%s", prefix);

    len += vsnprintf(buf + len, sizeof(buf) - len - 1, fmt, ap);
    if (len > (int)sizeof(buf) - 2) {
        len = sizeof(buf) - 2;
    }
    buf[len++] = '\n';
    /* One write() per line, so kernel messages do not split it. */
    if (write(STDOUT_FILENO, buf, len) < 0) {
        /* Nowhere left to complain to. */
    }
}

void say(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    emit(MARKER, fmt, ap);
    va_end(ap);
}

/* A TAP diagnostic line */
void diag(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    emit(MARKER "# ", fmt, ap);
    va_end(ap);
}

int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Walks the kernel log records after seq `after` up to `until`; with a
 * non-NULL needles list, reports each record containing one of them
 * (unless quiet) and returns their number.  *last gets the last sequence
 * number seen.
 */
static int kmsg_scan(unsigned long long after, unsigned long long until,
                     const char *const *needles, unsigned long long *last,
                     bool quiet)
{
    char rec[2048];
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    int hits = 0;

    if (fd < 0) {
        return -1;
    }
    for (;;) {
        ssize_t len = read(fd, rec, sizeof(rec) - 1);
        unsigned long long seq;
        char *text;
        int i;

        if (len < 0 && (errno == EPIPE || errno == EINTR)) {
            continue;
        }
        if (len <= 0) {
            break;
        }
        rec[len] = '\0';
        text = strchr(rec, ';');
        if (!text || sscanf(rec, "%*u,%llu", &seq) != 1) {
            continue;
        }
        if (last) {
            *last = seq;
        }
        if (seq <= after || seq > until || !needles) {
            continue;
        }
        for (i = 0; needles[i]; i++) {
            if (strstr(text + 1, needles[i])) {
                text[strcspn(text, "\n")] = '\0';
                if (!quiet) {
                    diag("kernel: %s", text + 1);
                }
                hits++;
                break;
            }
        }
    }
    close(fd);
    return hits;
}

/* What the debug kernel (KASAN, lockdep, kmemleak, ...) logs on trouble */
static const char *const splats[] = {
    "BUG:", "WARNING:", "Oops", "Unable to handle", "KASAN",
    "UBSAN", "possible circular locking", "possible recursive locking",
    "inconsistent lock state", "suspicious RCU usage",
    "unreferenced object", "INFO: task", "refcount_t:",
    "list_add corruption", "list_del corruption", "Call trace:",
    NULL,
};

/* What the driver logs when a job of the GPU failed (asahi_event.c) */
static const char *const gpu_errors[] = {
    "GPU fault:", "GPU timeout on slot", "channel error on slot", NULL,
};

/*
 * Nothing the kernel logged while the suite ran is a splat; kmemleak, if
 * the kernel has it, is asked to scan first (it reports objects older
 * than a few seconds, so leaks of the last tests may escape it).
 */
static int test_no_splat(void)
{
    const char *kml = "/sys/kernel/debug/kmemleak";
    int hits;

    if (access(kml, W_OK) == 0) {
        int fd = open(kml, O_WRONLY | O_CLOEXEC);

        if (fd >= 0) {
            if (write(fd, "scan", 4) < 0) {
                diag("kmemleak scan: %s", strerror(errno));
            }
            close(fd);
        }
    }
    hits = kmsg_scan(kmsg_start_seq, ULLONG_MAX, splats, NULL, false);
    CHECK(hits == 0);
    return TEST_PASS;
}

/*
 * After a test that made GPU faults on purpose: the firmware may still be
 * faulting on jobs whose fences the driver already failed.  Waits (up to
 * 10 s) until no GPU error was logged for a second, so that those count
 * against this test rather than the next one; kmsg_seq moves past them.
 */
static void settle_gpu_errors(unsigned long long seq)
{
    int last = -1, quiet_ms = 0, ms;

    for (ms = 0; ms < 10000 && quiet_ms < 1000; ms += 100) {
        int n;

        usleep(100 * 1000);
        n = kmsg_scan(seq, ULLONG_MAX, gpu_errors, &kmsg_seq, true);
        quiet_ms = n == last ? quiet_ms + 100 : 0;
        last = n;
    }
}

/* debugfs (kmemleak, sw_sync), where the kernel has it */
static void mount_debugfs(void)
{
    /* The directory exists when the kernel has debugfs. */
    if (access("/sys/kernel/debug", F_OK) == 0 &&
        mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) &&
        errno != EBUSY) {
        diag("cannot mount debugfs: %s", strerror(errno));
    }
}

static const UapiTest final_tests[] = {
    { "/asahi/kernel/no-splat", test_no_splat },
    { NULL, NULL },
};

static const UapiTest *const tables[] = {
    params_tests, gem_tests, vm_tests, queue_tests, submit_tests,
    blocked_tests,
    strict_tests, stress_tests, host_tests, final_tests,
};

#define N_TABLES (sizeof(tables) / sizeof(tables[0]))

/*
 * Tests under /asahi/host/ need the boot-test harness and break the GPU
 * on purpose: only a prefix that names them selects them.
 */
static bool selected(const char *path)
{
    bool host = !strncmp(path, "/asahi/host/", 12);
    int i;

    if (!n_prefixes) {
        return !host;
    }
    for (i = 0; i < n_prefixes; i++) {
        if (!strncmp(path, prefixes[i], strlen(prefixes[i])) &&
            (!host || !strncmp(prefixes[i], "/asahi/host", 11))) {
            return true;
        }
    }
    return false;
}

static bool excluded(const char *path)
{
    int i;

    for (i = 0; i < n_excludes; i++) {
        if (!strncmp(path, excludes[i], strlen(excludes[i]))) {
            return true;
        }
    }
    return false;
}

/* Runs fn in a child; returns TEST_PASS/FAIL/SKIP. */
static int run_isolated(const UapiTest *t)
{
    int status;
    pid_t pid = fork();

    if (pid < 0) {
        diag("fork: %s", strerror(errno));
        return TEST_FAIL;
    }
    if (pid == 0) {
        bool long_test = !strncmp(t->path, "/asahi/stress/", 14) ||
                         !strncmp(t->path, "/asahi/bench/", 13);
        int ret;

        alarm(long_test ? LONG_TEST_TIMEOUT_S : TEST_TIMEOUT_S);
        ret = t->fn();
        _exit(ret == TEST_PASS ? 0 : ret == TEST_SKIP ? 77 : 1);
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            diag("waitpid: %s", strerror(errno));
            return TEST_FAIL;
        }
    }
    if (WIFSIGNALED(status)) {
        diag("%s: killed by signal %d%s", t->path, WTERMSIG(status),
             WTERMSIG(status) == SIGALRM ? " (timed out)" : "");
        return TEST_FAIL;
    }
    if (WEXITSTATUS(status) == 77) {
        return TEST_SKIP;
    }
    return WEXITSTATUS(status) ? TEST_FAIL : TEST_PASS;
}

/* A number in C notation (decimal, 0x hex, 0 octal); exits if it is not */
static unsigned int number(const char *s)
{
    unsigned int v;
    char end;

    if (sscanf(s, "%i%c", (int *)&v, &end) != 1) {
        say("uapi: bad number \"%s\"", s);
        exit(2);
    }
    return v;
}

static void usage(void)
{
    say("usage: asahi-uapi [-p PREFIX]... [-x PREFIX]... [-w WAIT_MS] "
        "[-s STRESS_N] [-b BENCH_N] [-c CORE_MASK] [-l]");
    exit(2);
}

int main(int argc, char **argv)
{
    const UapiTest *t;
    int wait_ms = 10000, n = 0, failed = 0, opt, fd, ret;
    bool list = false;
    size_t i;

    while ((opt = getopt(argc, argv, "p:x:w:s:b:c:l")) != -1) {
        switch (opt) {
        case 'p':
            if (n_prefixes < MAX_PREFIXES) {
                prefixes[n_prefixes++] = optarg;
            }
            break;
        case 'x':
            if (n_excludes < MAX_PREFIXES) {
                excludes[n_excludes++] = optarg;
            }
            break;
        case 'w':
            wait_ms = number(optarg);
            break;
        case 's':
            opt_stress_submits = number(optarg);
            break;
        case 'b':
            opt_bench_submits = number(optarg);
            break;
        case 'c':
            opt_core_mask = number(optarg);
            break;
        case 'l':
            list = true;
            break;
        default:
            usage();
        }
    }

    if (list) {
        for (i = 0; i < N_TABLES; i++) {
            for (t = tables[i]; t->path; t++) {
                say("%s", t->path);
            }
        }
        return 0;
    }

    mount_debugfs();
    kmsg_scan(0, ULLONG_MAX, NULL, &kmsg_start_seq, false);
    kmsg_seq = kmsg_start_seq;
    if (!asahi_find_node(wait_ms)) {
        say("1..0 # SKIP no asahi render node");
        say("uapi: no asahi render node (after %d ms)", wait_ms);
        return 2;
    }
    fd = asahi_open();
    ret = fd < 0 ? fd : asahi_get_params(fd, 0, 0, &asahi_params,
                                         sizeof(asahi_params));
    if (fd >= 0) {
        close(fd);
    }
    if (ret) {
        say("Bail out! cannot read the global parameters: %s",
            strerror(-ret));
        return 1;
    }

    for (i = 0; i < N_TABLES; i++) {
        for (t = tables[i]; t->path; t++) {
            n += selected(t->path) || tables[i] == final_tests;
        }
    }
    say("1..%d", n);
    n = 0;
    for (i = 0; i < N_TABLES; i++) {
        for (t = tables[i]; t->path; t++) {
            bool may_fault = t->flags & TEST_GPU_FAULTS;
            unsigned long long seq = kmsg_seq;
            int64_t start;
            int errs;

            if (!selected(t->path) && tables[i] != final_tests) {
                continue;
            }
            if (excluded(t->path)) {
                say("ok %d %s # SKIP excluded", ++n, t->path);
                continue;
            }
            start = now_ns();
            ret = run_isolated(t);
            /* what the kernel said meanwhile */
            if (may_fault) {
                settle_gpu_errors(seq);
            }
            if (kmsg_scan(seq, ULLONG_MAX, splats, &kmsg_seq, false) > 0) {
                diag("%s: kernel splat while it ran", t->path);
                ret = TEST_FAIL;
            }
            errs = kmsg_scan(seq, kmsg_seq, gpu_errors, NULL, may_fault);
            gpu_error_total += errs > 0 ? errs : 0;
            if (errs > 0 && may_fault) {
                diag("%s: %d GPU error(s), as the test meant", t->path,
                     errs);
            } else if (errs > 0) {
                diag("%s: %d unexpected GPU error(s) while it ran "
                     "(its commands must only read what is mapped)",
                     t->path, errs);
                ret = TEST_FAIL;
            }
            n++;
            if (ret == TEST_FAIL) {
                failed++;
            }
            say("%s %d %s%s (%lld ms)", ret == TEST_FAIL ? "not ok" : "ok",
                n, t->path, ret == TEST_SKIP ? " # SKIP" : "",
                (long long)(now_ns() - start) / 1000000);
        }
    }
    say("uapi: %d tests, %d failed, %d GPU errors", n, failed,
        gpu_error_total);
    return failed ? 1 : 0;
}
