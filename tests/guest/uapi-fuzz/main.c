/*
 * uapi-fuzz: a coverage-guided fuzzer of the asahi DRM UAPI
 *
 * usage: uapi-fuzz [-t SECONDS] [-s SEED] [-l] [-c DIR]...   fuzz
 *        uapi-fuzz -r FILE|DIR...                           replay
 *
 * Fuzzing starts from the programs in the -c directories (*.prog), runs
 * each program in a child process with KCOV (/sys/kernel/debug/kcov)
 * enabled for it, and keeps a mutated program when the kernel code it
 * reached holds a PC or an edge never reached before.  A kernel splat
 * (KASAN, lockdep, WARN, BUG, kmemleak...), a child the kernel does not
 * let go of, or one killed by the kernel stops it: the program that did
 * it is printed as a reproducer.  -l prints every program before it runs
 * (for panic_on_warn, where the kernel dies with the program).
 *
 * Console lines (after the "AGX-TEST: " marker, which the host's
 * scripts/fuzz-driver.py reads):
 *   fuzz-exec: PROG          -l: the program about to run
 *   fuzz-new N: PROG         a program kept for new coverage
 *   fuzz-repro REASON: PROG  the program that made the kernel unhappy
 *   fuzz-slow MS ms: PROG    a program still running after MS ms (killed)
 *   fuzz-cov SECTION OFF...  the PCs of the asahi module reached
 *   fuzz: ...                progress and figures
 * PROG is the text form with " ; " between calls.
 *
 * Replay runs each program once (verbose) and prints TAP; a splat or a
 * hang fails it.  The exit status is 0 only if nothing failed.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/kcov.h>

#include "uapi-fuzz.h"

#define MARKER "AGX-TEST: "
#define COVER_WORDS (256 << 10)
#define PC_TABLE (1 << 18)
#define EDGE_BITS (1 << 22)
#define MAX_CORPUS 4096
#define PROG_TEXT 16384
#define CHILD_MS 10000
#define KILL_MS 20000

static const char *const splats[] = {
    "BUG:", "WARNING:", "Oops", "Unable to handle", "KASAN",
    "UBSAN", "possible circular locking", "possible recursive locking",
    "inconsistent lock state", "suspicious RCU usage",
    "unreferenced object", "INFO: task", "refcount_t:",
    "list_add corruption", "list_del corruption", "Call trace:",
    "Kernel panic", NULL,
};

/*
 * KCOV of the child itself (its syscalls), and remote KCOV: what kernel
 * threads run for it under a kcov_remote_start_common() of its handle
 * (the asahi driver's scheduler worker running its jobs)
 */
typedef struct Kcov {
    int fd;
    unsigned long *cover;
} Kcov;

static Kcov kcov_local = { .fd = -1 }, kcov_remote = { .fd = -1 };
static int kmsg_fd = -1;

static uint64_t *pcs;           /* open addressing, 0 = empty */
static unsigned int n_pcs;
static uint8_t *edges;
static unsigned int n_edges;

static Prog corpus[MAX_CORPUS];
static int n_corpus;

static bool opt_log;

/* One write() per line, so that kernel messages do not split it. */
static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
    static char buf[PROG_TEXT + 256];
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
    fflush(stdout);
    if (write(STDOUT_FILENO, buf, len) < 0) {
        /* Nowhere left to complain to. */
    }
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *prog_line(const Prog *p)
{
    static char text[PROG_TEXT];

    prog_format(p, text, sizeof(text), " ; ");
    return text;
}

/* ------------------------------------------------------------------ */
/* Kernel log                                                          */

static void kmsg_open(void)
{
    kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (kmsg_fd >= 0) {
        lseek(kmsg_fd, 0, SEEK_END);
    }
}

/*
 * Whether the kernel logged a splat since the last call.  Running out of
 * memory is no bug (a program may ask for and bind gigabytes; the
 * OOM killer takes the child, see oom_adj()): its report is not one.
 */
static bool kmsg_splat(void)
{
    char rec[2048];
    bool hit = false, oom = false;

    if (kmsg_fd < 0) {
        return false;
    }
    for (;;) {
        ssize_t len = read(kmsg_fd, rec, sizeof(rec) - 1);
        char *text;
        int i;

        if (len < 0 && (errno == EPIPE || errno == EINTR)) {
            continue;
        }
        if (len <= 0) {
            break;
        }
        rec[len] = '\0';
        text = memchr(rec, ';', len);
        if (text && (strstr(text, "invoked oom-killer") ||
                     strstr(text, "Out of memory"))) {
            oom = true;
        }
        for (i = 0; text && splats[i]; i++) {
            if (strstr(text, splats[i])) {
                hit = true;
            }
        }
    }
    if (hit && oom) {
        say(MARKER "fuzz: the kernel ran out of memory (not a bug)");
        return false;
    }
    return hit;
}

/* Who the OOM killer takes first (-1000: never) */
static void oom_adj(const char *score)
{
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

    if (fd >= 0) {
        if (write(fd, score, strlen(score)) < 0) {
            /* Then the OOM killer picks as it likes */
        }
        close(fd);
    }
}

/* kmemleak, where the kernel has it, looks for leaks now */
static void kmemleak_scan(void)
{
    int fd = open("/sys/kernel/debug/kmemleak", O_WRONLY | O_CLOEXEC);

    if (fd >= 0) {
        if (write(fd, "scan", 4) < 0) {
            say(MARKER "fuzz: kmemleak scan: %s", strerror(errno));
        }
        close(fd);
    }
}

/* ------------------------------------------------------------------ */
/* Coverage                                                            */

static void kcov_open(Kcov *k, const char *what)
{
    k->fd = open("/sys/kernel/debug/kcov", O_RDWR | O_CLOEXEC);
    if (k->fd < 0) {
        say(MARKER "fuzz: no %s kcov (%s)", what, strerror(errno));
        return;
    }
    if (ioctl(k->fd, KCOV_INIT_TRACE, COVER_WORDS)) {
        say(MARKER "fuzz: %s KCOV_INIT_TRACE: %s", what, strerror(errno));
        close(k->fd);
        k->fd = -1;
        return;
    }
    k->cover = mmap(NULL, COVER_WORDS * sizeof(unsigned long),
                    PROT_READ | PROT_WRITE, MAP_SHARED, k->fd, 0);
    if (k->cover == MAP_FAILED) {
        say(MARKER "fuzz: %s kcov mmap: %s", what, strerror(errno));
        close(k->fd);
        k->fd = -1;
        k->cover = NULL;
    }
}

/* In the child: coverage of its own syscalls and of its remote handle */
static bool kcov_enable(void)
{
    struct kcov_remote_arg arg = {
        .trace_mode = KCOV_TRACE_PC,
        .area_size = COVER_WORDS,
        .common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON,
                                            getpid() & 0xffffffff),
    };

    if (kcov_local.fd >= 0 &&
        ioctl(kcov_local.fd, KCOV_ENABLE, KCOV_TRACE_PC)) {
        return false;
    }
    /* a kernel without remote KCOV still has the local kind */
    if (kcov_remote.fd >= 0) {
        ioctl(kcov_remote.fd, KCOV_REMOTE_ENABLE, &arg);
    }
    return true;
}

static bool pc_add(uint64_t pc)
{
    unsigned int h = (pc * 0x9e3779b97f4a7c15ULL) >> 46;

    while (pcs[h & (PC_TABLE - 1)]) {
        if (pcs[h & (PC_TABLE - 1)] == pc) {
            return false;
        }
        h++;
    }
    if (n_pcs >= PC_TABLE / 2) {
        return false;
    }
    pcs[h & (PC_TABLE - 1)] = pc;
    n_pcs++;
    return true;
}

/* Takes the child's trace in; returns how many PCs and edges were new */
static void kcov_reset(Kcov *k)
{
    if (k->cover) {
        __atomic_store_n(&k->cover[0], 0, __ATOMIC_RELAXED);
    }
}

static int cover_merge(const Kcov *k)
{
    unsigned long n, i, prev = 0, *cover = k->cover;
    int fresh = 0;

    if (!cover) {
        return 0;
    }
    n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
    if (n >= COVER_WORDS) {
        n = COVER_WORDS - 1;
    }
    for (i = 1; i <= n; i++) {
        unsigned long pc = cover[i];
        uint64_t e = ((prev * 0x9e3779b97f4a7c15ULL) ^ pc) *
                     0xff51afd7ed558ccdULL;
        unsigned int bit = e >> (64 - 22);

        fresh += pc_add(pc);
        if (!(edges[bit >> 3] & (1 << (bit & 7)))) {
            edges[bit >> 3] |= 1 << (bit & 7);
            n_edges++;
            fresh++;
        }
        prev = pc;
    }
    return fresh;
}

typedef struct Section {
    char name[256];
    uint64_t base;
} Section;

/*
 * The PCs reached in the asahi module's text sections, as offsets into
 * each (/sys/module/asahi/sections), for the host to turn into lines
 */
static void cover_report(void)
{
    static Section sec[16];
    static char line[1024];
    DIR *dir = opendir("/sys/module/asahi/sections");
    struct dirent *de;
    int n_sec = 0, s, other = 0;
    unsigned int i;

    while (dir && (de = readdir(dir)) && n_sec < 16) {
        char path[300], val[64] = "";
        FILE *f;

        if (strncmp(de->d_name, ".text", 5)) {
            continue;
        }
        snprintf(path, sizeof(path), "/sys/module/asahi/sections/%s",
                 de->d_name);
        f = fopen(path, "r");
        if (f && fgets(val, sizeof(val), f)) {
            snprintf(sec[n_sec].name, sizeof(sec[n_sec].name), "%s",
                     de->d_name);
            /* "0x..." (or bare hexadecimal in older kernels) */
            val[strcspn(val, "\n")] = '\0';
            if (strncmp(val, "0x", 2)) {
                memmove(val + 2, val, strlen(val) + 1);
                val[0] = '0';
                val[1] = 'x';
            }
            parse_u64(val, &sec[n_sec].base);
            n_sec++;
        }
        if (f) {
            fclose(f);
        }
    }
    if (dir) {
        closedir(dir);
    }
    for (s = 0; s < n_sec; s++) {
        size_t len = snprintf(line, sizeof(line), MARKER "fuzz-cov %s",
                              sec[s].name);

        for (i = 0; i < PC_TABLE; i++) {
            uint64_t pc = pcs[i], best = 0;
            int b, owner = -1;

            /* The section with the highest base below the PC */
            for (b = 0; pc && b < n_sec; b++) {
                if (sec[b].base <= pc && sec[b].base >= best) {
                    best = sec[b].base;
                    owner = b;
                }
            }
            if (owner != s || pc - best >= (4 << 20)) {
                continue;
            }
            len += snprintf(line + len, sizeof(line) - len, " %llx",
                            (unsigned long long)(pc - best));
            if (len > sizeof(line) - 24) {
                say("%s", line);
                len = snprintf(line, sizeof(line), MARKER "fuzz-cov %s",
                               sec[s].name);
            }
        }
        say("%s", line);
    }
    for (i = 0; i < PC_TABLE; i++) {
        bool mine = false;

        for (s = 0; pcs[i] && s < n_sec; s++) {
            mine |= pcs[i] >= sec[s].base && pcs[i] - sec[s].base < (4 << 20);
        }
        other += pcs[i] && !mine;
    }
    say(MARKER "fuzz: %u PCs reached, %d outside the asahi module", n_pcs,
        other);
}

/* ------------------------------------------------------------------ */
/* Running one program                                                 */

enum {
    RUN_OK,
    RUN_SPLAT,      /* the kernel logged trouble */
    RUN_HANG,       /* the child would not die */
    RUN_KILLED,     /* the child died of a signal it did not ask for */
};

static const char *const run_names[] = {
    "ok", "kernel splat", "hang", "child killed",
};

/* A write past what a map backs: the program's fault, not the kernel's */
static void child_fault(int sig)
{
    _exit(3);
}

static int run_prog(const Prog *p, bool verbose, int *fresh)
{
    sigset_t set, old;
    siginfo_t si;
    struct timespec ts;
    int64_t deadline;
    int status = 0, ret = RUN_OK;
    bool killed = false;
    pid_t pid;

    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, &old);
    kcov_reset(&kcov_local);
    kcov_reset(&kcov_remote);
    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        say(MARKER "fuzz: fork: %s", strerror(errno));
        sigprocmask(SIG_SETMASK, &old, NULL);
        return RUN_OK;
    }
    if (pid == 0) {
        struct sigaction sa = { .sa_handler = child_fault };

        sigaction(SIGBUS, &sa, NULL);
        sigaction(SIGSEGV, &sa, NULL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        oom_adj("1000");
        if (!kcov_enable()) {
            _exit(4);
        }
        prog_exec(p, verbose);
        if (kcov_local.fd >= 0) {
            ioctl(kcov_local.fd, KCOV_DISABLE, 0);
        }
        _exit(0);
    }
    /*
     * Wait for it with a timeout (SIGCHLD, taken synchronously); one that
     * outlives it is killed, one that outlives the kill is stuck in the
     * kernel
     */
    deadline = now_ms() + CHILD_MS;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        int64_t left = deadline - now_ms();

        if (left <= 0) {
            if (killed) {
                ret = RUN_HANG;
                break;
            }
            say(MARKER "fuzz-slow %d ms: %s", CHILD_MS, prog_line(p));
            kill(pid, SIGKILL);
            killed = true;
            deadline = now_ms() + KILL_MS;
            continue;
        }
        ts.tv_sec = left / 1000;
        ts.tv_nsec = (left % 1000) * 1000000;
        sigtimedwait(&set, &si, &ts);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (ret == RUN_OK && WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
        ret = RUN_KILLED;
    }
    if (ret == RUN_OK && WIFEXITED(status) && WEXITSTATUS(status) == 4) {
        say(MARKER "fuzz: KCOV_ENABLE failed in the child");
    }
    if (fresh) {
        *fresh = cover_merge(&kcov_local) + cover_merge(&kcov_remote);
    }
    if (kmsg_splat()) {
        ret = RUN_SPLAT;
    }
    return ret;
}

/* ------------------------------------------------------------------ */
/* Corpus files                                                        */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf;
    long len;

    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(len + 1);
    if (buf && fread(buf, 1, len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    if (buf) {
        buf[len] = '\0';
    }
    fclose(f);
    return buf;
}

static int load_prog(Prog *p, const char *path)
{
    char msg[256], *text = slurp(path);
    int ret;

    if (!text) {
        say(MARKER "fuzz: cannot read %s", path);
        return -1;
    }
    ret = prog_parse(p, text, msg, sizeof(msg));
    free(text);
    if (ret) {
        say(MARKER "fuzz: %s: %s", path, msg);
    }
    return ret;
}

/* Calls fn for each *.prog of a directory (sorted), or the file itself */
static int for_each_prog(const char *path, int (*fn)(const char *))
{
    struct dirent **names;
    struct stat st;
    int n, i, bad = 0;

    if (stat(path, &st)) {
        say(MARKER "fuzz: %s: %s", path, strerror(errno));
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        return fn(path);
    }
    n = scandir(path, &names, NULL, alphasort);
    for (i = 0; i < n; i++) {
        const char *dot = strrchr(names[i]->d_name, '.');

        if (dot && !strcmp(dot, ".prog")) {
            char full[512];

            snprintf(full, sizeof(full), "%s/%s", path, names[i]->d_name);
            bad += fn(full);
        }
        free(names[i]);
    }
    if (n >= 0) {
        free(names);
    }
    return bad;
}

/* ------------------------------------------------------------------ */
/* Replay                                                              */

static int replay_no;

static int replay_one(const char *path)
{
    Prog p;
    int ret;

    replay_no++;
    if (load_prog(&p, path)) {
        say("not ok %d %s (does not parse)", replay_no, path);
        return 1;
    }
    printf("# %s: %d calls\n", path, p.n);
    ret = run_prog(&p, true, NULL);
    say("%s %d %s%s%s", ret == RUN_OK ? "ok" : "not ok", replay_no, path,
        ret == RUN_OK ? "" : ": ", ret == RUN_OK ? "" : run_names[ret]);
    return ret != RUN_OK;
}

/* ------------------------------------------------------------------ */
/* Fuzzing                                                             */

static bool crashed;

static void report(const Prog *p, int why)
{
    say(MARKER "fuzz-repro %s: %s", run_names[why], prog_line(p));
    crashed = true;
}

static void corpus_add(const Prog *p, int fresh)
{
    if (n_corpus < MAX_CORPUS) {
        corpus[n_corpus] = *p;
        say(MARKER "fuzz-new %d %d: %s", n_corpus, fresh, prog_line(p));
        n_corpus++;
    }
}

static int seed_one(const char *path)
{
    Prog p;
    int fresh = 0, ret;

    if (load_prog(&p, path)) {
        return 1;
    }
    if (opt_log) {
        say(MARKER "fuzz-exec: %s", prog_line(&p));
    }
    ret = run_prog(&p, false, &fresh);
    if (ret != RUN_OK) {
        report(&p, ret);
        return 1;
    }
    /* Seeds stay, new coverage or not: they are the known-good shapes */
    if (n_corpus < MAX_CORPUS) {
        corpus[n_corpus++] = p;
    }
    return 0;
}

static int fuzz(int seconds, uint64_t seed, char **dirs, int n_dirs)
{
    int64_t start = now_ms(), next_stat = start + 60000;
    uint64_t execs = 0, kept = 0;
    int i;

    rnd_seed(seed);
    say(MARKER "fuzz: seed %llu, %d s", (unsigned long long)seed, seconds);
    for (i = 0; i < n_dirs && !crashed; i++) {
        for_each_prog(dirs[i], seed_one);
    }
    say(MARKER "fuzz: %d seed programs, %u PCs, %u edges", n_corpus, n_pcs,
        n_edges);
    while (!crashed && now_ms() - start < (int64_t)seconds * 1000) {
        static Prog p;
        int fresh = 0, ret;

        if (!n_corpus || rnd() % 10 == 0) {
            prog_generate(&p, 4 + rnd() % 16);
        } else {
            p = corpus[rnd() % n_corpus];
            prog_mutate(&p, &corpus[rnd() % n_corpus]);
        }
        if (!p.n) {
            continue;
        }
        if (opt_log) {
            say(MARKER "fuzz-exec: %s", prog_line(&p));
        }
        ret = run_prog(&p, false, &fresh);
        execs++;
        if (ret != RUN_OK) {
            report(&p, ret);
            break;
        }
        if (fresh) {
            corpus_add(&p, fresh);
            kept++;
        }
        if (now_ms() >= next_stat) {
            int64_t el = now_ms() - start;

            say(MARKER "fuzz: %llds: %llu programs (%.1f/s), corpus %d, "
                "%u PCs, %u edges", (long long)(el / 1000),
                (unsigned long long)execs, execs * 1000.0 / el, n_corpus,
                n_pcs, n_edges);
            next_stat += 60000;
        }
    }
    if (!crashed) {
        /* Leaks: kmemleak reports objects unreferenced for 5 s or more */
        sleep(6);
        kmemleak_scan();
        if (kmsg_splat()) {
            say(MARKER "fuzz-repro kmemleak: (no program: see the log)");
            crashed = true;
        }
    }
    {
        int64_t el = now_ms() - start;

        say(MARKER "fuzz: done: %llu programs in %lld s (%.1f/s), %llu "
            "kept, corpus %d, %u PCs, %u edges, %s",
            (unsigned long long)execs, (long long)(el / 1000),
            el ? execs * 1000.0 / el : 0.0, (unsigned long long)kept,
            n_corpus, n_pcs, n_edges, crashed ? "CRASHED" : "no crash");
    }
    cover_report();
    return crashed ? 1 : 0;
}

int main(int argc, char **argv)
{
    char *dirs[16];
    int n_dirs = 0, seconds = 60, opt, bad = 0;
    uint64_t seed = 0;
    bool replay = false;

    while ((opt = getopt(argc, argv, "t:s:lc:r")) != -1) {
        switch (opt) {
        case 't':
            seconds = atoi(optarg);
            break;
        case 's':
            parse_u64(optarg, &seed);
            break;
        case 'l':
            opt_log = true;
            break;
        case 'c':
            if (n_dirs < 16) {
                dirs[n_dirs++] = optarg;
            }
            break;
        case 'r':
            replay = true;
            break;
        default:
            fprintf(stderr, "usage: %s [-t S] [-s SEED] [-l] [-c DIR]... | "
                    "-r FILE|DIR...\n", argv[0]);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!exec_init()) {
        say(MARKER "fuzz: no asahi render node");
        return 1;
    }
    pcs = calloc(PC_TABLE, sizeof(*pcs));
    edges = calloc(EDGE_BITS / 8, 1);
    if (!pcs || !edges) {
        return 1;
    }
    /* debugfs holds kcov and kmemleak, where the kernel has them */
    if (access("/sys/kernel/debug", F_OK) == 0 &&
        mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) &&
        errno != EBUSY) {
        say(MARKER "fuzz: cannot mount debugfs: %s", strerror(errno));
    }
    oom_adj("-1000");
    kmsg_open();
    kcov_open(&kcov_local, "local");
    if (kcov_local.fd < 0) {
        say(MARKER "fuzz: fuzzing blind");
    } else {
        kcov_open(&kcov_remote, "remote");
    }
    if (replay) {
        int i;

        for (i = optind; i < argc; i++) {
            bad += for_each_prog(argv[i], replay_one);
        }
        /* Leaks: kmemleak reports objects unreferenced for 5 s or more */
        sleep(6);
        kmemleak_scan();
        replay_no++;
        if (kmsg_splat()) {
            say("not ok %d kmemleak: leaks or a late splat", replay_no);
            bad++;
        } else {
            say("ok %d kmemleak", replay_no);
        }
        say("1..%d", replay_no);
        return bad ? 1 : 0;
    }
    if (!seed) {
        seed = now_ms() ^ ((uint64_t)getpid() << 32);
    }
    return fuzz(seconds, seed, dirs, n_dirs);
}
