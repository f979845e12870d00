/*
 * uapi-fuzz: the calls a program is made of, and its text form
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uapi-fuzz.h"

#define R(k, n) { n, k, V_ANY }
#define V(k, n) { n, RES_NONE, k }

/*
 * Every call; exec.c carries them out in this order (op index = the
 * switch case there).  Never reorder: saved programs name calls by name,
 * but the executor's switch goes by index.
 */
const OpDesc ops[] = {
    { "open", RES_FD, 0, { } },
    { "close", RES_NONE, 1, { R(RES_FD, "fd") } },
    { "get_params", RES_NONE, 4,
      { R(RES_FD, "fd"), V(V_ZERO, "group"), V(V_ZERO, "pad"),
        V(V_SIZE, "size") } },
    { "get_time", RES_NONE, 2, { R(RES_FD, "fd"), V(V_ZERO, "flags") } },
    { "vm_create", RES_VM, 4,
      { R(RES_FD, "fd"), V(V_KSTART, "kernel_start"),
        V(V_KEND, "kernel_end"), V(V_ZERO, "pad") } },
    { "vm_destroy", RES_NONE, 3,
      { R(RES_FD, "fd"), R(RES_VM, "vm"), V(V_ZERO, "pad") } },
    { "gem_create", RES_BO, 5,
      { R(RES_FD, "fd"), V(V_SIZE, "size"), V(V_FLAGS, "flags"),
        R(RES_VM, "vm"), V(V_ZERO, "pad") } },
    { "gem_close", RES_NONE, 2, { R(RES_FD, "fd"), R(RES_BO, "bo") } },
    { "mmap", RES_MAP, 5,
      { R(RES_FD, "fd"), R(RES_BO, "bo"), V(V_ZERO, "flags"),
        V(V_SIZE, "size"), V(V_OFFSET, "offset") } },
    { "munmap", RES_NONE, 1, { R(RES_MAP, "map") } },
    { "write64", RES_NONE, 3,
      { R(RES_MAP, "map"), V(V_OFFSET, "offset"), V(V_ANY, "value") } },
    { "fill", RES_NONE, 4,
      { R(RES_MAP, "map"), V(V_OFFSET, "offset"), V(V_SIZE, "len"),
        V(V_ANY, "byte") } },
    { "vm_bind", RES_NONE, 7,
      { R(RES_FD, "fd"), R(RES_VM, "vm"), R(RES_BO, "bo"),
        V(V_OFFSET, "offset"), V(V_SIZE, "range"), V(V_VA, "addr"),
        V(V_FLAGS, "flags") } },
    { "bind_op", RES_NONE, 5,
      { R(RES_BO, "bo"), V(V_OFFSET, "offset"), V(V_SIZE, "range"),
        V(V_VA, "addr"), V(V_FLAGS, "flags") } },
    { "vm_bind_list", RES_NONE, 4,
      { R(RES_FD, "fd"), R(RES_VM, "vm"), V(V_SIZE, "stride"),
        V(V_ZERO, "pad") } },
    { "bind_object", RES_TSOBJ, 6,
      { R(RES_FD, "fd"), R(RES_BO, "bo"), V(V_OFFSET, "offset"),
        V(V_SIZE, "range"), V(V_FLAGS, "flags"), V(V_ZERO, "vm") } },
    { "unbind_object", RES_NONE, 3,
      { R(RES_FD, "fd"), R(RES_TSOBJ, "object"), V(V_ZERO, "flags") } },
    { "queue_create", RES_QUEUE, 5,
      { R(RES_FD, "fd"), R(RES_VM, "vm"), V(V_PRIO, "priority"),
        V(V_VA, "usc_exec_base"), V(V_ZERO, "flags") } },
    { "queue_destroy", RES_NONE, 3,
      { R(RES_FD, "fd"), R(RES_QUEUE, "queue"), V(V_ZERO, "pad") } },
    { "cmd_compute", RES_NONE, 7,
      { V(V_BARRIER, "vdm_barrier"), V(V_BARRIER, "cdm_barrier"),
        V(V_SIZE, "size"), V(V_VA, "stream"), V(V_SIZE, "stream_len"),
        V(V_VA, "sampler_heap"), V(V_SMALL, "sampler_count") } },
    { "cmd_render", RES_NONE, 8,
      { V(V_BARRIER, "vdm_barrier"), V(V_BARRIER, "cdm_barrier"),
        V(V_SIZE, "size"), V(V_VA, "base"), V(V_PIXELS, "width"),
        V(V_PIXELS, "height"), V(V_SMALL, "layers"),
        V(V_FLAGS, "flags") } },
    { "cmd_attach", RES_NONE, 5,
      { V(V_CMDTYPE, "type"), V(V_SMALL, "count"), V(V_VA, "pointer"),
        V(V_SIZE, "size"), V(V_ZERO, "flags") } },
    { "cmd_raw", RES_NONE, 4,
      { V(V_CMDTYPE, "type"), V(V_SIZE, "size"), V(V_BARRIER, "vdm"),
        V(V_BARRIER, "cdm") } },
    { "cmd_set", RES_NONE, 3,
      { V(V_WIDTH, "width"), V(V_OFFSET, "offset"), V(V_ANY, "value") } },
    { "cmd_ts", RES_NONE, 3,
      { V(V_OFFSET, "offset"), R(RES_TSOBJ, "object"),
        V(V_OFFSET, "ts_offset") } },
    { "sync_in", RES_NONE, 3,
      { R(RES_SYNCOBJ, "syncobj"), V(V_SYNCTYPE, "type"),
        V(V_POINT, "point") } },
    { "sync_out", RES_NONE, 3,
      { R(RES_SYNCOBJ, "syncobj"), V(V_SYNCTYPE, "type"),
        V(V_POINT, "point") } },
    { "submit", RES_NONE, 5,
      { R(RES_FD, "fd"), R(RES_QUEUE, "queue"), V(V_ZERO, "flags"),
        V(V_ZERO, "pad"), V(V_ZERO, "truncate") } },
    { "syncobj_create", RES_SYNCOBJ, 2,
      { R(RES_FD, "fd"), V(V_FLAGS, "flags") } },
    { "syncobj_destroy", RES_NONE, 2,
      { R(RES_FD, "fd"), R(RES_SYNCOBJ, "syncobj") } },
    { "syncobj_wait", RES_NONE, 5,
      { R(RES_FD, "fd"), R(RES_SYNCOBJ, "syncobj"), V(V_POINT, "point"),
        V(V_FLAGS, "flags"), V(V_MS, "timeout_ms") } },
    { "syncobj_signal", RES_NONE, 3,
      { R(RES_FD, "fd"), R(RES_SYNCOBJ, "syncobj"), V(V_POINT, "point") } },
    { "syncobj_reset", RES_NONE, 2,
      { R(RES_FD, "fd"), R(RES_SYNCOBJ, "syncobj") } },
    { "syncobj_transfer", RES_NONE, 6,
      { R(RES_FD, "fd"), R(RES_SYNCOBJ, "dst"), V(V_POINT, "dst_point"),
        R(RES_SYNCOBJ, "src"), V(V_POINT, "src_point"),
        V(V_FLAGS, "flags") } },
    { "syncobj_query", RES_NONE, 3,
      { R(RES_FD, "fd"), R(RES_SYNCOBJ, "syncobj"), V(V_FLAGS, "flags") } },
    { "syncobj_export", RES_SYNCFILE, 3,
      { R(RES_FD, "fd"), R(RES_SYNCOBJ, "syncobj"), V(V_FLAGS, "flags") } },
    { "syncobj_import", RES_NONE, 4,
      { R(RES_FD, "fd"), R(RES_SYNCOBJ, "syncobj"),
        R(RES_SYNCFILE, "sync_file"), V(V_FLAGS, "flags") } },
    { "sync_file_wait", RES_NONE, 2,
      { R(RES_SYNCFILE, "sync_file"), V(V_MS, "timeout_ms") } },
    { "prime_export", RES_DMABUF, 3,
      { R(RES_FD, "fd"), R(RES_BO, "bo"), V(V_FLAGS, "flags") } },
    { "prime_import", RES_BO, 2,
      { R(RES_FD, "fd"), R(RES_DMABUF, "dmabuf") } },
    { "dmabuf_sync_file", RES_SYNCFILE, 2,
      { R(RES_DMABUF, "dmabuf"), V(V_FLAGS, "flags") } },
    { "sleep", RES_NONE, 1, { V(V_MS, "ms") } },
    { "collide", RES_NONE, 0, { } },
};

const int n_ops = sizeof(ops) / sizeof(ops[0]);

const char *parse_u64(const char *s, uint64_t *v)
{
    const char *p = s;
    int base = 10;

    *v = 0;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
        isxdigit((unsigned char)p[2])) {
        base = 16;
        p += 2;
    }
    for (;; p++) {
        int d;

        if (isdigit((unsigned char)*p)) {
            d = *p - '0';
        } else if (base == 16 && isxdigit((unsigned char)*p)) {
            d = tolower((unsigned char)*p) - 'a' + 10;
        } else {
            break;
        }
        *v = *v * base + d;
    }
    return p;
}

int op_by_name(const char *name)
{
    int i;

    for (i = 0; i < n_ops; i++) {
        if (!strcmp(ops[i].name, name)) {
            return i;
        }
    }
    return -1;
}

size_t prog_format(const Prog *p, char *buf, size_t size, const char *sep)
{
    size_t len = 0;
    int i, j;

#define OUT(...)                                                         \
    do {                                                                 \
        int n_ = snprintf(buf + len, len < size ? size - len : 0,        \
                          __VA_ARGS__);                                  \
        len += n_ > 0 ? n_ : 0;                                          \
    } while (0)

    if (size) {
        buf[0] = '\0';
    }
    for (i = 0; i < p->n; i++) {
        const Call *c = &p->calls[i];
        const OpDesc *d = &ops[c->op];

        OUT("%sr%d = %s", i ? sep : "", i, d->name);
        for (j = 0; j < d->nargs; j++) {
            if (c->args[j].is_ref) {
                OUT(" r%llu", (unsigned long long)c->args[j].val);
            } else {
                OUT(" 0x%llx", (unsigned long long)c->args[j].val);
            }
        }
    }
#undef OUT
    if (len >= size && size) {
        buf[size - 1] = '\0';
    }
    return len;
}

/* One call's text, up to its end; -1 on error */
static int parse_call(Call *c, int index, char *text, char *msg,
                      size_t msg_size)
{
    char *save = NULL, *tok;
    const char *end;
    int op = -1, j = 0;

    tok = strtok_r(text, " \t\r", &save);
    /* An optional "rN =" in front */
    if (tok && tok[0] == 'r' && isdigit((unsigned char)tok[1])) {
        if (atoi(tok + 1) != index) {
            snprintf(msg, msg_size, "call %d is numbered %s", index, tok);
            return -1;
        }
        tok = strtok_r(NULL, " \t\r", &save);
        if (!tok || strcmp(tok, "=")) {
            snprintf(msg, msg_size, "call %d: '=' expected", index);
            return -1;
        }
        tok = strtok_r(NULL, " \t\r", &save);
    }
    if (tok) {
        op = op_by_name(tok);
    }
    if (op < 0) {
        snprintf(msg, msg_size, "call %d: unknown call '%s'", index,
                 tok ? tok : "");
        return -1;
    }
    memset(c, 0, sizeof(*c));
    c->op = op;
    while ((tok = strtok_r(NULL, " \t\r", &save))) {
        if (j == ops[op].nargs) {
            snprintf(msg, msg_size, "call %d: %s takes %d arguments", index,
                     ops[op].name, ops[op].nargs);
            return -1;
        }
        if (tok[0] == 'r') {
            c->args[j].is_ref = true;
            end = parse_u64(tok + 1, &c->args[j].val);
            if (end == tok + 1 || c->args[j].val >= (uint64_t)index) {
                snprintf(msg, msg_size, "call %d: bad reference '%s'", index,
                         tok);
                return -1;
            }
        } else {
            end = parse_u64(tok, &c->args[j].val);
            if (end == tok) {
                snprintf(msg, msg_size, "call %d: bad number '%s'", index,
                         tok);
                return -1;
            }
        }
        if (*end) {
            snprintf(msg, msg_size, "call %d: junk in '%s'", index, tok);
            return -1;
        }
        j++;
    }
    if (j != ops[op].nargs) {
        snprintf(msg, msg_size, "call %d: %s takes %d arguments, not %d",
                 index, ops[op].name, ops[op].nargs, j);
        return -1;
    }
    return 0;
}

int prog_parse(Prog *p, const char *text, char *msg, size_t msg_size)
{
    char *copy = strdup(text), *line, *call, *save = NULL, *save2;
    int ret = 0;

    p->n = 0;
    if (!copy) {
        snprintf(msg, msg_size, "out of memory");
        return -1;
    }
    for (line = strtok_r(copy, "\n", &save); line && !ret;
         line = strtok_r(NULL, "\n", &save)) {
        /* A comment runs to the end of its line */
        line[strcspn(line, "#")] = '\0';
        for (call = strtok_r(line, ";", &save2); call && !ret;
             call = strtok_r(NULL, ";", &save2)) {
            call += strspn(call, " \t\r");
            if (!*call) {
                continue;
            }
            if (p->n == MAX_CALLS) {
                snprintf(msg, msg_size, "more than %d calls", MAX_CALLS);
                ret = -1;
                break;
            }
            ret = parse_call(&p->calls[p->n], p->n, call, msg, msg_size);
            if (!ret) {
                p->n++;
            }
        }
    }
    free(copy);
    return ret;
}

uint64_t prog_hash(const Prog *p)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    int i, j;

    for (i = 0; i < p->n; i++) {
        const Call *c = &p->calls[i];

        h = (h ^ c->op) * 0x100000001b3ULL;
        for (j = 0; j < ops[c->op].nargs; j++) {
            h = (h ^ c->args[j].val ^ ((uint64_t)c->args[j].is_ref << 63)) *
                0x100000001b3ULL;
        }
    }
    return h;
}
