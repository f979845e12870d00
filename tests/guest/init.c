/*
 * /init of the AGX test guest
 *
 * Mounts the pseudo file systems, runs the test steps chosen with
 * agx.steps=a,b on the kernel command line (default: all of them), prints
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
#include <termios.h>
#include <time.h>
#include <unistd.h>

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
static int __attribute__((unused)) insmod(const char *path, const char *params)
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
 * Waits up to timeout_ms for a kernel log line containing needle, looking
 * at the whole log buffer from its start.  Returns 0 when found, -1 if not.
 */
static int kmsg_expect(const char *needle, int timeout_ms)
{
    int64_t deadline = now_ms() + timeout_ms;
    char rec[2048];
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    int ret = -1;

    if (fd < 0) {
        say(MARKER "cannot open /dev/kmsg: %s", strerror(errno));
        return -1;
    }
    for (;;) {
        /* Each read() returns one record: "prio,seq,usec,flags;text\n". */
        ssize_t n = read(fd, rec, sizeof(rec) - 1);

        if (n > 0) {
            char *text = memchr(rec, ';', n);

            rec[n] = '\0';
            if (text && strstr(text + 1, needle)) {
                ret = 0;
                break;
            }
        } else if (n < 0 && errno == EAGAIN) {
            struct pollfd pfd = { .fd = fd, .events = POLLIN };
            int64_t left = deadline - now_ms();

            if (left <= 0) {
                break;
            }
            poll(&pfd, 1, left);
        } else if (n < 0 && (errno == EPIPE || errno == EINTR)) {
            /* EPIPE: records were overwritten under us; keep reading. */
            continue;
        } else {
            say(MARKER "reading /dev/kmsg: %s",
                n < 0 ? strerror(errno) : "end of file");
            break;
        }
    }
    close(fd);
    if (ret) {
        say(MARKER "no kernel message with \"%s\" in %d ms", needle,
            timeout_ms);
    }
    return ret;
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

typedef struct TestStep {
    const char *name;
    int (*fn)(void);
} TestStep;

static const TestStep steps[] = {
    { "kernel-alive", step_kernel_alive },
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
            if (!run_step(&steps[i])) {
                failed = steps[i].name;
            }
        }
    }

    if (failed) {
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
