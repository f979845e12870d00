/*
 * /init of the AGX test guest
 *
 * Mounts the pseudo file systems, runs the test steps chosen with
 * agx.steps=a,b on the kernel command line (default: all of them but those
 * that need the boot-test harness to act on the host), prints
 * "AGX-TEST: PASS" or "AGX-TEST: FAIL <step>" on the console and powers
 * the machine off.  With agx.semihost=1 a failure also makes QEMU exit
 * with status 1 through Arm semihosting (QEMU must then run with
 * -semihosting-config enable=on,target=native,userspace=on).
 *
 * Built static by scripts/build-initramfs.sh; add a step by writing a
 * function that returns 0 on success and listing it in steps[].
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "drm-asahi.h"

#define MARKER "AGX-TEST: "

static int console_fd = 1;
static char cmdline[4096];

/* One write() per line, so that kernel messages do not split our lines. */
static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    int len;

    va_start(ap, fmt);
    len = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
    va_end(ap);
    if (len < 0) {
        return;
    }
    if (len > (int)sizeof(buf) - 2) {
        len = sizeof(buf) - 2;
    }
    buf[len++] = '\n';
    if (write(console_fd, buf, len) < 0) {
        /* Nowhere left to complain to. */
    }
}

/* Reads a whole (small) file into buf as a string; returns its length. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
    ssize_t len = 0, n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        say(MARKER "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    while (len < (ssize_t)size - 1) {
        n = read(fd, buf + len, size - 1 - len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        len += n;
    }
    close(fd);
    buf[len] = '\0';
    return len;
}

/*
 * Value of "key=value" on the kernel command line, copied into val;
 * returns false when the parameter is absent.
 */
static bool cmdline_get(const char *key, char *val, size_t size)
{
    size_t klen = strlen(key);
    const char *p = cmdline;

    while (*p) {
        size_t wlen = strcspn(p, " \t\n");

        if (wlen > klen && !strncmp(p, key, klen) && p[klen] == '=') {
            size_t vlen = wlen - klen - 1;

            if (vlen >= size) {
                vlen = size - 1;
            }
            memcpy(val, p + klen + 1, vlen);
            val[vlen] = '\0';
            return true;
        }
        p += wlen;
        p += strspn(p, " \t\n");
    }
    return false;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Loads a kernel module from a file with finit_module(2); params is the
 * module parameter string ("" for none).  Returns 0 or -errno.
 */
static int insmod(const char *path, const char *params)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int ret = 0;

    if (fd < 0) {
        ret = -errno;
        say(MARKER "insmod %s: %s", path, strerror(errno));
        return ret;
    }
    if (syscall(SYS_finit_module, fd, params ? params : "", 0) < 0) {
        ret = -errno;
        say(MARKER "insmod %s: %s", path, strerror(errno));
    }
    close(fd);
    return ret;
}

/*
 * Waits up to timeout_ms for the n-th kernel log line containing needle,
 * counting over the whole log buffer from its start.  Returns 0 when found,
 * -1 if not.
 */
static int kmsg_expect_n(const char *needle, int n, int timeout_ms)
{
    int64_t deadline = now_ms() + timeout_ms;
    char rec[2048];
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    int seen = 0;

    if (fd < 0) {
        say(MARKER "cannot open /dev/kmsg: %s", strerror(errno));
        return -1;
    }
    for (;;) {
        /* Each read() returns one record: "prio,seq,usec,flags;text\n". */
        ssize_t len = read(fd, rec, sizeof(rec) - 1);

        if (len > 0) {
            char *text = memchr(rec, ';', len);

            rec[len] = '\0';
            if (text && strstr(text + 1, needle) && ++seen == n) {
                break;
            }
        } else if (len < 0 && errno == EAGAIN) {
            struct pollfd pfd = { .fd = fd, .events = POLLIN };
            int64_t left = deadline - now_ms();

            if (left <= 0) {
                break;
            }
            poll(&pfd, 1, left);
        } else if (len < 0 && (errno == EPIPE || errno == EINTR)) {
            /* EPIPE: records were overwritten under us; keep reading. */
            continue;
        } else {
            say(MARKER "reading /dev/kmsg: %s",
                len < 0 ? strerror(errno) : "end of file");
            break;
        }
    }
    close(fd);
    if (seen < n) {
        say(MARKER "%d of %d kernel messages with \"%s\" in %d ms", seen, n,
            needle, timeout_ms);
        return -1;
    }
    return 0;
}

/*
 * Waits up to timeout_ms for a kernel log line containing needle, looking
 * at the whole log buffer from its start.  Returns 0 when found, -1 if not.
 */
static int kmsg_expect(const char *needle, int timeout_ms)
{
    return kmsg_expect_n(needle, 1, timeout_ms);
}

/* Number of kernel log lines so far that contain needle; -1 on error. */
static int kmsg_count(const char *needle)
{
    char rec[2048];
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    int count = 0;

    if (fd < 0) {
        say(MARKER "cannot open /dev/kmsg: %s", strerror(errno));
        return -1;
    }
    for (;;) {
        ssize_t len = read(fd, rec, sizeof(rec) - 1);

        if (len > 0) {
            char *text = memchr(rec, ';', len);

            rec[len] = '\0';
            if (text && strstr(text + 1, needle)) {
                count++;
            }
        } else if (len < 0 && (errno == EPIPE || errno == EINTR)) {
            continue;
        } else {
            break;
        }
    }
    close(fd);
    return count;
}

/* Number of CPUs in a list like "0-3,5,7-8"; -1 if it does not parse. */
static int count_cpu_list(const char *s)
{
    int count = 0;

    while (*s && *s != '\n') {
        char *end;
        long first = strtol(s, &end, 10), last = first;

        if (end == s) {
            return -1;
        }
        if (*end == '-') {
            s = end + 1;
            last = strtol(s, &end, 10);
            if (end == s || last < first) {
                return -1;
            }
        }
        count += last - first + 1;
        s = end;
        if (*s == ',') {
            s++;
        }
    }
    return count;
}

/*
 * The kernel came up on all its CPUs: /proc/cpuinfo lists as many
 * processors as /sys says are online, and /dev/kmsg is readable.
 */
static int step_kernel_alive(void)
{
    static char buf[65536];
    const char *p;
    int online, listed = 0;

    if (read_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) < 0) {
        return -1;
    }
    online = count_cpu_list(buf);
    if (online < 1) {
        say(MARKER "bad cpu online list \"%s\"", buf);
        return -1;
    }
    if (read_file("/proc/cpuinfo", buf, sizeof(buf)) < 0) {
        return -1;
    }
    for (p = buf; (p = strstr(p, "processor")); p++) {
        if ((p == buf || p[-1] == '\n') && p[9] && strchr(" \t:", p[9])) {
            listed++;
        }
    }
    say(MARKER "cpus: %d online, %d in /proc/cpuinfo", online, listed);
    if (listed != online) {
        return -1;
    }
    return kmsg_expect("Linux version", 1000);
}

/*
 * The asahi UAPI suite: /bin/asahi-uapi (tests/guest/asahi-uapi) against
 * the guest's DRM driver "asahi" (when the kernel has it as modules, they
 * are loaded first, the helpers its Kconfig selects before it; any of
 * them already loaded is fine).  Kernel command line: agx.uapi=P1+P2 runs
 * only the tests whose paths start with P1 or P2, agx.uapi-skip=P3+P4
 * skips those under P3 or P4, agx.uapi-stress=N and
 * agx.uapi-bench=N size the stress and throughput tests, agx.core-mask=M
 * is the GPU's core mask when the machine has a non-default one.  The
 * program prints its own TAP lines; without an asahi render node it
 * says so and the step fails.  Run only when named.
 */
#define ASAHI_UAPI "/bin/asahi-uapi"

static const char *const asahi_uapi_modules[] = {
    "drm_exec", "drm_gpuvm", "gpu-sched", "drm_shmem_helper", "asahi",
};

static int step_asahi_uapi(void)
{
    static char prefixes[512], skips[512];
    char stress[16], bench[16], mask[16];
    char *argv[96], *save = NULL, *p;
    int argc = 0, status;
    size_t i;
    pid_t pid;

    for (i = 0; i < sizeof(asahi_uapi_modules) / sizeof(char *); i++) {
        char path[128];
        int ret;

        snprintf(path, sizeof(path), "/lib/modules/%s.ko",
                 asahi_uapi_modules[i]);
        if (access(path, R_OK)) {
            continue;
        }
        ret = insmod(path, "");
        if (ret && ret != -EEXIST) {
            return -1;
        }
    }
    argv[argc++] = (char *)ASAHI_UAPI;
    if (cmdline_get("agx.uapi", prefixes, sizeof(prefixes))) {
        for (p = strtok_r(prefixes, "+", &save); p && argc < 88;
             p = strtok_r(NULL, "+", &save)) {
            argv[argc++] = (char *)"-p";
            argv[argc++] = p;
        }
    }
    if (cmdline_get("agx.uapi-skip", skips, sizeof(skips))) {
        save = NULL;
        for (p = strtok_r(skips, "+", &save); p && argc < 88;
             p = strtok_r(NULL, "+", &save)) {
            argv[argc++] = (char *)"-x";
            argv[argc++] = p;
        }
    }
    if (cmdline_get("agx.uapi-stress", stress, sizeof(stress))) {
        argv[argc++] = (char *)"-s";
        argv[argc++] = stress;
    }
    if (cmdline_get("agx.uapi-bench", bench, sizeof(bench))) {
        argv[argc++] = (char *)"-b";
        argv[argc++] = bench;
    }
    if (cmdline_get("agx.core-mask", mask, sizeof(mask))) {
        argv[argc++] = (char *)"-c";
        argv[argc++] = mask;
    }
    argv[argc] = NULL;

    pid = fork();
    if (pid < 0) {
        say(MARKER "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        dup2(console_fd, STDOUT_FILENO);
        dup2(console_fd, STDERR_FILENO);
        execv(ASAHI_UAPI, argv);
        say(MARKER "exec %s: %s", ASAHI_UAPI, strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            say(MARKER "waitpid: %s", strerror(errno));
            return -1;
        }
    }
    if (!WIFEXITED(status)) {
        say(MARKER "%s killed by signal %d", ASAHI_UAPI, WTERMSIG(status));
        return -1;
    }
    return WEXITSTATUS(status) ? -1 : 0;
}

/*
 * The UAPI fuzzer, /bin/uapi-fuzz (tests/guest/uapi-fuzz), against the
 * asahi driver (loaded first as for asahi-uapi).  agx.fuzz-seconds=N
 * fuzzes for N seconds (default 60) from the programs in /fuzz/corpus
 * (committed), /fuzz/repro and /fuzz/saved (scripts/fuzz-driver.sh),
 * seeded with agx.fuzz-seed=S; agx.fuzz-replay=1 replays those of
 * /fuzz/corpus and /fuzz/repro instead, each once, and
 * agx.fuzz-replay=PATH only PATH.  agx.fuzz-log=1 prints every program
 * before it runs; agx.fuzz-panic=1 sets panic_on_warn, so that a WARN
 * stops the kernel with the program that caused it (which agx.fuzz-log=1
 * has printed).  Run only when named.
 */
#define UAPI_FUZZ "/bin/uapi-fuzz"

static int step_fuzz(void)
{
    static char replay[256];
    char secs[16] = "60", seed[32] = "", val[16];
    char *argv[16];
    int argc = 0, status;
    size_t i;
    pid_t pid;

    for (i = 0; i < sizeof(asahi_uapi_modules) / sizeof(char *); i++) {
        char path[128];
        int ret;

        snprintf(path, sizeof(path), "/lib/modules/%s.ko",
                 asahi_uapi_modules[i]);
        if (access(path, R_OK)) {
            continue;
        }
        ret = insmod(path, "");
        if (ret && ret != -EEXIST) {
            return -1;
        }
    }
    if (cmdline_get("agx.fuzz-panic", val, sizeof(val)) &&
        !strcmp(val, "1")) {
        int fd = open("/proc/sys/kernel/panic_on_warn", O_WRONLY | O_CLOEXEC);

        if (fd < 0 || write(fd, "1", 1) != 1) {
            say(MARKER "fuzz: cannot set panic_on_warn: %s", strerror(errno));
        }
        if (fd >= 0) {
            close(fd);
        }
    }
    argv[argc++] = (char *)UAPI_FUZZ;
    if (cmdline_get("agx.fuzz-replay", replay, sizeof(replay))) {
        argv[argc++] = (char *)"-r";
        if (strcmp(replay, "1")) {
            argv[argc++] = replay;
        } else {
            argv[argc++] = (char *)"/fuzz/corpus";
            if (access("/fuzz/repro", F_OK) == 0) {
                argv[argc++] = (char *)"/fuzz/repro";
            }
        }
    } else {
        cmdline_get("agx.fuzz-seconds", secs, sizeof(secs));
        argv[argc++] = (char *)"-t";
        argv[argc++] = secs;
        if (cmdline_get("agx.fuzz-seed", seed, sizeof(seed))) {
            argv[argc++] = (char *)"-s";
            argv[argc++] = seed;
        }
        if (cmdline_get("agx.fuzz-log", val, sizeof(val)) &&
            !strcmp(val, "1")) {
            argv[argc++] = (char *)"-l";
        }
        argv[argc++] = (char *)"-c";
        argv[argc++] = (char *)"/fuzz/corpus";
        if (access("/fuzz/repro", F_OK) == 0) {
            argv[argc++] = (char *)"-c";
            argv[argc++] = (char *)"/fuzz/repro";
        }
        if (access("/fuzz/saved", F_OK) == 0) {
            argv[argc++] = (char *)"-c";
            argv[argc++] = (char *)"/fuzz/saved";
        }
    }
    argv[argc] = NULL;

    pid = fork();
    if (pid < 0) {
        say(MARKER "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        dup2(console_fd, STDOUT_FILENO);
        dup2(console_fd, STDERR_FILENO);
        execv(UAPI_FUZZ, argv);
        say(MARKER "exec %s: %s", UAPI_FUZZ, strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            say(MARKER "waitpid: %s", strerror(errno));
            return -1;
        }
    }
    if (!WIFEXITED(status)) {
        say(MARKER "%s killed by signal %d", UAPI_FUZZ, WTERMSIG(status));
        return -1;
    }
    return WEXITSTATUS(status) ? -1 : 0;
}

/*
 * The asahi DRM driver (guest/linux/drivers/gpu/drm/asahi, built in our
 * kernel tree) and the helpers it selects, loaded in dependency order;
 * params go to the driver.  Any of them already loaded is fine.
 */
#define ASAHI_DEV "/sys/bus/platform/drivers/asahi/206400000.gpu"

static const char *const asahi_modules[] = {
    "drm_exec", "drm_gpuvm", "gpu-sched", "drm_shmem_helper", "asahi",
};

#define N_ASAHI_MODULES (sizeof(asahi_modules) / sizeof(asahi_modules[0]))

static int load_asahi(const char *params)
{
    char path[128];
    size_t i;
    int ret;

    for (i = 0; i < N_ASAHI_MODULES; i++) {
        snprintf(path, sizeof(path), "/lib/modules/%s.ko", asahi_modules[i]);
        ret = insmod(path, i == N_ASAHI_MODULES - 1 ? params : "");
        if (ret && ret != -EEXIST) {
            return -1;
        }
    }
    return 0;
}

/*
 * RTKit steps: the driver, loaded with manual_boot=1, probes without
 * booting the firmware; its selftest attribute drives the GPU's ASC
 * coprocessor with the kernel's own RTKit library.  QEMU must run with
 * -global apple-asc.echo-endpoint=0x2f.
 */
#define RTKIT_DEV ASAHI_DEV
#define RTKIT_ECHO_EP 0x2f
#define RTKIT_HELLO "RTKit: Initializing (protocol version 12)"
#define RTKIT_SYSLOG_UP \
    "RTKit: syslog message: RTKit: firmware up, syslog ready"
#define RTKIT_CRASH_TEXT "crash injected by the host (QOM property 'crashed')"

static const uint64_t echo_values[] = {
    0, 1, 0x0123456789abcdefULL, 0x8000000000000000ULL,
    0xdeadbeefcafef00dULL, ~0ULL,
};

#define N_ECHO_VALUES (sizeof(echo_values) / sizeof(echo_values[0]))

/* Writes one selftest command; returns 0 or -errno of the write. */
static int __attribute__((format(printf, 1, 2))) rtkit_cmd(const char *fmt,
                                                           ...)
{
    char cmd[128];
    va_list ap;
    int fd, ret = 0;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    fd = open(RTKIT_DEV "/selftest", O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        ret = -errno;
        say(MARKER "rtkit: cannot open selftest: %s", strerror(errno));
        return ret;
    }
    if (write(fd, cmd, strlen(cmd)) < 0) {
        ret = -errno;
    }
    close(fd);
    /*
     * The error number here, not only in the driver's own line: a kernel
     * line still queued for the console is lost when a failed step powers
     * off
     */
    if (ret) {
        say(MARKER "rtkit: %s: error %d (%s)", cmd, ret, strerror(-ret));
    } else {
        say(MARKER "rtkit: %s: ok", cmd);
    }
    return ret;
}

/* The driver's rtkit_state must start with want. */
static int rtkit_state_is(const char *want)
{
    char buf[128];

    if (read_file(RTKIT_DEV "/rtkit_state", buf, sizeof(buf)) < 0) {
        return -1;
    }
    buf[strcspn(buf, "\n")] = '\0';
    if (strncmp(buf, want, strlen(want))) {
        say(MARKER "rtkit: state \"%s\", expected \"%s...\"", buf, want);
        return -1;
    }
    return 0;
}

/* Replies the driver has seen, from its rtkit_state; -1 on error. */
static int rtkit_replies(void)
{
    char buf[128];
    const char *p;

    if (read_file(RTKIT_DEV "/rtkit_state", buf, sizeof(buf)) < 0) {
        return -1;
    }
    p = strstr(buf, "replies=");
    return p ? atoi(p + 8) : -1;
}

/* Every echo value comes back complemented, and is counted as a reply. */
static int rtkit_echo_all(void)
{
    int before = rtkit_replies(), after;
    size_t i;

    for (i = 0; i < N_ECHO_VALUES; i++) {
        if (rtkit_cmd("echo 0x%x 0x%llx", RTKIT_ECHO_EP,
                      (unsigned long long)echo_values[i])) {
            return -1;
        }
    }
    after = rtkit_replies();
    if (before < 0 || after != before + (int)N_ECHO_VALUES) {
        say(MARKER "rtkit: %d replies before, %d after %d echoes", before,
            after, (int)N_ECHO_VALUES);
        return -1;
    }
    return 0;
}

/* An echo must fail with err (the library refuses to send). */
static int rtkit_echo_fails(int err)
{
    int ret = rtkit_cmd("echo 0x%x 0x1", RTKIT_ECHO_EP);

    if (ret != err) {
        say(MARKER "rtkit: echo gave %s, expected %s",
            ret ? strerror(-ret) : "success", strerror(-err));
        return -1;
    }
    return 0;
}

/* Sum over all CPUs of the mailbox's recv-not-empty interrupts; -1 if none */
static long long mbox_recv_irqs(void)
{
    static char buf[65536];
    char *line, *p, *end;
    long long sum = 0;

    if (read_file("/proc/interrupts", buf, sizeof(buf)) < 0) {
        return -1;
    }
    line = strstr(buf, "mbox-recv");
    if (!line) {
        say(MARKER "no mbox-recv line in /proc/interrupts");
        return -1;
    }
    while (line > buf && line[-1] != '\n') {
        line--;
    }
    p = strchr(line, ':');
    if (!p) {
        return -1;
    }
    for (p++;; p = end) {
        long long n = strtoll(p, &end, 10);

        if (end == p) {
            break;
        }
        sum += n;
    }
    return sum;
}

/*
 * Load the driver with manual_boot=1, boot the coprocessor: RUN, then
 * RTKit's handshake (HELLO, endpoint map, system endpoints, power states).
 */
static int step_rtkit_boot(void)
{
    if (load_asahi("manual_boot=1")) {
        return -1;
    }
    /* Probing runs within finit_module(); the log line is the proof. */
    if (kmsg_expect("firmware not booted (manual_boot)", 1000) ||
        access(RTKIT_DEV "/selftest", W_OK)) {
        say(MARKER "rtkit: the driver did not bind to the GPU node");
        return -1;
    }
    if (rtkit_cmd("boot") || kmsg_expect(RTKIT_HELLO, 1000)) {
        return -1;
    }
    return rtkit_state_is("running crashed=0");
}

/* The firmware's first syslog line went through the syslog buffer. */
static int step_rtkit_syslog(void)
{
    return kmsg_expect(RTKIT_SYSLOG_UP, 1000);
}

/* An application endpoint: start it, then round trips through it. */
static int step_rtkit_echo(void)
{
    if (rtkit_cmd("start-ep 0x%x", RTKIT_ECHO_EP)) {
        return -1;
    }
    return rtkit_echo_all();
}

/*
 * Power states: idle keeps the endpoints, shutdown forgets everything and
 * the next wake is a full boot (the firmware says HELLO again).
 */
static int step_rtkit_power(void)
{
    int hellos, syslogs;

    if (rtkit_cmd("idle") || rtkit_state_is("down") ||
        rtkit_echo_fails(-EINVAL)) {
        return -1;
    }
    if (rtkit_cmd("wake") || rtkit_state_is("running") || rtkit_echo_all()) {
        return -1;
    }
    hellos = kmsg_count(RTKIT_HELLO);
    syslogs = kmsg_count(RTKIT_SYSLOG_UP);
    if (hellos < 1 || syslogs < 1) {
        say(MARKER "rtkit: %d HELLOs, %d syslog lines before shutdown",
            hellos, syslogs);
        return -1;
    }
    if (rtkit_cmd("shutdown") || rtkit_state_is("down") ||
        rtkit_echo_fails(-EINVAL)) {
        return -1;
    }
    if (rtkit_cmd("wake") || kmsg_expect_n(RTKIT_HELLO, hellos + 1, 1000) ||
        kmsg_expect_n(RTKIT_SYSLOG_UP, syslogs + 1, 1000) ||
        rtkit_state_is("running")) {
        return -1;
    }
    if (rtkit_cmd("start-ep 0x%x", RTKIT_ECHO_EP)) {
        return -1;
    }
    return rtkit_echo_all();
}

/* Replies arrive through the mailbox's recv-not-empty interrupt. */
static int step_rtkit_irq(void)
{
    long long before = mbox_recv_irqs(), after;

    if (before < 0 || rtkit_cmd("echo 0x%x 0x42", RTKIT_ECHO_EP)) {
        return -1;
    }
    after = mbox_recv_irqs();
    say(MARKER "rtkit: mbox-recv interrupts: %lld before an echo, %lld after",
        before, after);
    return after > before ? 0 : -1;
}

/*
 * The host crashes the firmware (QOM property "crashed"): the library
 * dumps the crash log, tells the driver, and refuses to send any more.
 */
static int step_rtkit_crash(void)
{
    say(MARKER "host: qom-set /machine/gpu-asc crashed true");
    if (kmsg_expect("RTKit: co-processor has crashed", 5000) ||
        kmsg_expect("RTKit: Message (id=0): " RTKIT_CRASH_TEXT, 1000) ||
        kmsg_expect("RTKit: Version:", 1000) ||
        kmsg_expect("RTKit: Mailbox history", 1000) ||
        kmsg_expect("GPU firmware crashed, failing all jobs", 1000)) {
        return -1;
    }
    if (rtkit_state_is("crashed crashed=1")) {
        return -1;
    }
    return rtkit_echo_fails(-EINVAL);
}

/*
 * A RUN cycle restarts the firmware from scratch, even a crashed one: stop
 * its CPU, reset the library, boot again.
 */
static int step_rtkit_restart(void)
{
    int hellos = kmsg_count(RTKIT_HELLO);

    if (hellos < 1) {
        say(MARKER "rtkit: no HELLO before the restart");
        return -1;
    }
    if (rtkit_cmd("stop-cpu") || rtkit_cmd("reinit") || rtkit_cmd("boot") ||
        kmsg_expect_n(RTKIT_HELLO, hellos + 1, 1000) ||
        rtkit_state_is("running crashed=0")) {
        return -1;
    }
    if (rtkit_cmd("start-ep 0x%x", RTKIT_ECHO_EP)) {
        return -1;
    }
    return rtkit_echo_all();
}

/*
 * GPU steps: the driver's self-tests of the GPU firmware behind RTKit
 * (firmware 13.5, the machine's default).  gpu-init needs the firmware
 * booted by rtkit-boot (or a RUN cycle after rtkit-restart); gpu-jobs and
 * gpu-fault need it initialised, by gpu-init or by drm-probe.
 */
#define GPU_JOBS 1000
#define GPU_FW_LINE "fw[info]: "
#define GPU_FW_ERR_LINE "fw[err]: "
#define GPU_FW_NOTICE_LINE "fw[notice]: "

/* Prints the driver's gpu_state; it must start with want. */
static int gpu_state_is(const char *want)
{
    char buf[256];

    if (read_file(RTKIT_DEV "/gpu_state", buf, sizeof(buf)) < 0) {
        return -1;
    }
    buf[strcspn(buf, "\n")] = '\0';
    say(MARKER "gpu: state %s", buf);
    if (strncmp(buf, want, strlen(want))) {
        say(MARKER "gpu: expected \"%s...\"", want);
        return -1;
    }
    return strstr(buf, " errors=0 ") ? 0 : -1;
}

/*
 * drm/asahi's probe: kernel objects in the UAT, handoff, InitData and all
 * it points to, INIT, DeviceControl Initialize consumed; the firmware's
 * log lines arrive through the RX doorbell and its log rings.
 */
static int step_gpu_init(void)
{
    if (rtkit_cmd("gpu-init") ||
        kmsg_expect(GPU_FW_LINE "QEMU AGX firmware 13.5: InitData accepted",
                    1000) ||
        kmsg_expect(GPU_FW_LINE "device control: Initialize", 1000)) {
        return -1;
    }
    return gpu_state_is("init=1 ");
}

/*
 * Jobs on the vertex, fragment and compute pipes, fragment behind a
 * barrier on vertex; each checked through its Flag event, stamp and
 * timestamps (the driver says what it measured in the kernel log).
 */
static int step_gpu_jobs(void)
{
    char val[16];
    int jobs = GPU_JOBS;

    /* agx.jobs=N: as many (make bench profiles a long run) */
    if (cmdline_get("agx.jobs", val, sizeof(val))) {
        jobs = atoi(val);
    }
    if (rtkit_cmd("gpu-jobs %d", jobs)) {
        return -1;
    }
    return gpu_state_is("init=1 ");
}

/*
 * The host arms a GPU fault for the next job; the driver submits until
 * one takes it, checks FAULT_INFO, the pending stamps and the halt, and
 * recovers as drm/asahi does.
 */
static int step_gpu_fault(void)
{
    int halts = kmsg_count(GPU_FW_ERR_LINE "halted (GPU fault)");

    say(MARKER "host: qom-set /machine/gpu-asc inject-fault \"gpu-fault\"");
    if (halts < 0 || rtkit_cmd("gpu-fault") ||
        kmsg_expect_n(GPU_FW_ERR_LINE "halted (GPU fault)", halts + 1,
                      1000) ||
        kmsg_expect(GPU_FW_NOTICE_LINE "resumed after halt", 1000)) {
        return -1;
    }
    return gpu_state_is("init=1 ");
}

/*
 * DRM steps: the asahi DRM driver probes as it does on a Mac: it boots
 * RTKit and the GPU firmware, then registers the render node.  Not to be
 * mixed with rtkit-boot and gpu-init (manual_boot=1).
 */
#define ASAHI_FW_LINE "fw[info]: "

static int step_drm_probe(void)
{
    if (load_asahi("")) {
        return -1;
    }
    if (kmsg_expect("render node ready", 5000) ||
        kmsg_expect(ASAHI_FW_LINE "QEMU AGX firmware ", 1000) ||
        kmsg_expect(": InitData accepted", 1000) ||
        kmsg_expect("[drm] Initialized asahi 0.0.0", 1000)) {
        return -1;
    }
    return 0;
}

/* agx.submits=N chained submissions (default 2000) */
static int step_drm_submit(void)
{
    char val[16];
    int n = 2000;

    if (cmdline_get("agx.submits", val, sizeof(val))) {
        n = atoi(val);
    }
    return drm_asahi_test_submit(say, n);
}

static int step_drm_teardown(void)
{
    return drm_asahi_test_teardown(say);
}

/* No kernel warning, BUG or oops so far (a splat fails the run) */
static int step_no_splat(void)
{
    static const char *const splats[] = {
        "WARNING:", "BUG:", "Oops", "Call trace:",
    };
    size_t i;
    int n, bad = 0;

    for (i = 0; i < sizeof(splats) / sizeof(splats[0]); i++) {
        n = kmsg_count(splats[i]);
        if (n != 0) {
            say(MARKER "%d kernel log line(s) with \"%s\"", n, splats[i]);
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

/*
 * Do nothing for agx.idle seconds (default 30), for make bench to measure
 * what an idle guest costs the host; run only when named
 */
static int step_idle(void)
{
    char val[16];
    int seconds = 30;

    if (cmdline_get("agx.idle", val, sizeof(val))) {
        seconds = atoi(val);
    }
    sleep(seconds);
    return 0;
}

/*
 * host: run only when named (the step asks the boot-test harness to act,
 * or cannot share a boot with the default steps)
 */
typedef struct TestStep {
    const char *name;
    int (*fn)(void);
    bool host;
} TestStep;

static const TestStep steps[] = {
    { "kernel-alive", step_kernel_alive },
    { "asahi-uapi", step_asahi_uapi, true },
    { "fuzz", step_fuzz, true },
    { "rtkit-boot", step_rtkit_boot },
    { "rtkit-syslog", step_rtkit_syslog },
    { "rtkit-echo", step_rtkit_echo },
    { "rtkit-power", step_rtkit_power },
    { "rtkit-irq", step_rtkit_irq },
    { "rtkit-crash", step_rtkit_crash, true },
    { "rtkit-restart", step_rtkit_restart },
    { "gpu-init", step_gpu_init },
    { "gpu-jobs", step_gpu_jobs },
    { "gpu-fault", step_gpu_fault, true },
    { "idle", step_idle, true },
    { "drm-probe", step_drm_probe, true },
    { "drm-submit", step_drm_submit, true },
    { "drm-teardown", step_drm_teardown, true },
    { "no-splat", step_no_splat },
};

#define N_STEPS (sizeof(steps) / sizeof(steps[0]))

static const TestStep *find_step(const char *name)
{
    size_t i;

    for (i = 0; i < N_STEPS; i++) {
        if (!strcmp(steps[i].name, name)) {
            return &steps[i];
        }
    }
    return NULL;
}

/* Runs one step; returns true when it passed. */
static bool run_step(const TestStep *step)
{
    int64_t start = now_ms();
    int ret;

    say(MARKER "step %s: start", step->name);
    ret = step->fn();
    say(MARKER "step %s: %s (%lld ms)", step->name, ret ? "failed" : "ok",
        (long long)(now_ms() - start));
    return ret == 0;
}

/*
 * Semihosting SYS_EXIT with ADP_Stopped_ApplicationExit: QEMU exits with
 * status code.  Only returns if the call is not trapped by QEMU, which
 * is why it is used only when agx.semihost=1 says QEMU will trap it.
 */
static void semihost_exit(uint64_t code)
{
    uint64_t block[2] = { 0x20026, code };
    register uint64_t x0 __asm__("x0") = 0x18;
    register uint64_t x1 __asm__("x1") = (uint64_t)(uintptr_t)block;

    __asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
}

static void mount_fs(const char *type, const char *dir)
{
    mkdir(dir, 0755);
    if (mount(type, dir, type, 0, NULL) < 0 && errno != EBUSY) {
        say(MARKER "mount %s on %s: %s", type, dir, strerror(errno));
    }
}

int main(void)
{
    char list[1024], val[16];
    const char *failed = NULL;
    bool semihost;
    int fd;

    mount_fs("devtmpfs", "/dev");
    mount_fs("proc", "/proc");
    mount_fs("sysfs", "/sys");
    fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0) {
        console_fd = fd;
    }
    say(MARKER "init started");

    if (read_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0) {
        cmdline[0] = '\0';
    }
    semihost = cmdline_get("agx.semihost", val, sizeof(val)) &&
               !strcmp(val, "1");

    if (cmdline_get("agx.steps", list, sizeof(list))) {
        char *save = NULL, *name;

        for (name = strtok_r(list, ",", &save); name && !failed;
             name = strtok_r(NULL, ",", &save)) {
            const TestStep *step = find_step(name);

            if (!step) {
                say(MARKER "no step named %s", name);
                failed = name;
            } else if (!run_step(step)) {
                failed = step->name;
            }
        }
    } else {
        size_t i;

        for (i = 0; i < N_STEPS && !failed; i++) {
            if (!steps[i].host && !run_step(&steps[i])) {
                failed = steps[i].name;
            }
        }
    }

    if (failed) {
        /*
         * The kernel's lines about the failure may still be queued for
         * the console (printed by another CPU); give them time before
         * the verdict ends the run
         */
        usleep(200 * 1000);
        say(MARKER "FAIL %s", failed);
    } else {
        say(MARKER "PASS");
    }
    /* Let the UART drain before the machine goes away. */
    tcdrain(console_fd);
    sync();
    if (failed && semihost) {
        semihost_exit(1);
    }
    reboot(RB_POWER_OFF);
    say(MARKER "power off failed: %s", strerror(errno));
    for (;;) {
        pause();
    }
}
