#!/usr/bin/env python3
"""Turn a usc-dump record into the shader corpus of tests/unit/usc-corpus.

The record (tests/guest/mesa/usc-dump.c and vk-ops --corpus, written by
scripts/capture-usc-corpus.sh) holds, in the order they happened, every
compute submission of vk-ops ("submit" ... "end"), the CPU reference of
each check ("expect") and its verdict ("result").  A submission belongs
to the check whose verdict comes next.  One file per check is written,
named after it ("/" becomes "--"), with its submissions and expectations
in the record's own line format, and a comment before each launch
decoding its words (see README.md there).

With --trace LOG (a console log of the same program under Mesa's own
decoder, ASAHI_MESA_DEBUG=trace), each code block whose bytes agxdecode
also printed gets Mesa's disassembly as comments, and the script reports
how many code blocks agree byte for byte with Mesa's view of them.

usage: usc-corpus.py RECORD OUTDIR [--mesa VERSION] [--trace LOG]
"""
import os
import re
import struct
import sys

# agxdecode's disassembly: "   OFF: HEX   mnemonic operands"
DIS = re.compile(r'^\s*([0-9a-f]+): ([0-9a-f]+)\s+(\S.*)$')

USC_LEN = {0x1d: 8, 0x3d: 8, 0xdd: 8, 0x9d: 8, 0x4d: 4, 0x0d: 6, 0x8d: 4,
           0x38: 8, 0x88: 2, 0x58: 4}


def launch_comment(block, words, usc_base):
    """A one-line reading of a CDM launch block and its USC words."""
    w0, w1 = struct.unpack_from('<II', block)
    mode = (w0 >> 27) & 3
    uni = (w0 >> 1) & 7
    pre = (w0 >> 12) & 15
    out = ['mode %s' % ['direct', 'indirect-global', 'indirect-local',
                        '?'][mode],
           'uniforms %d halves' % ((uni or 8) * 64),
           'preshader gprs %d halves' % ((pre or 16) * 16),
           'pipeline 0x%x' % (usc_base + (w1 & ~0x3f))]
    if mode == 0:
        g = struct.unpack_from('<6I', block, 8)
        out.append('grid %dx%dx%d threads, groups of %dx%dx%d' % g)
    i = 0
    while i < len(words):
        tag = words[i]
        n = USC_LEN.get(tag, 0)
        if not n or i + n > len(words):
            out.append('word 0x%02x?' % tag)
            break
        v = int.from_bytes(words[i:i + n], 'little')
        if tag in (0x1d, 0x3d):
            halves = (v >> 20) & 0x3f or 64
            first = ((v >> 8) & 0xff) + (256 if tag == 0x3d else 0)
            out.append('u%d..u%d (halves) <- 0x%x' %
                       (first, first + halves - 1, (v >> 26) << 2))
        elif tag == 0xdd:
            out.append('texture state %d x%d <- 0x%x' % (
                (v >> 8) & 0xff, (v >> 20) & 0x7f,
                ((v >> 27) & ((1 << 36) - 1)) << 3))
        elif tag == 0x9d:
            out.append('sampler state %d x%d <- 0x%x' % (
                (v >> 8) & 0xff, (v >> 20) & 0x7f,
                ((v >> 27) & ((1 << 36) - 1)) << 3))
        elif tag == 0x4d:
            out.append('shared %d bytes/group' %
                       ((((v >> 24) & 0xff) or 256) * 256 if v & 0x100
                        else 0))
        elif tag == 0x0d:
            out.append('code 0x%x' % (usc_base + ((v >> 16) & 0xffffffff)))
        elif tag == 0x8d:
            out.append('gprs %d halves' % ((((v >> 8) & 0x1f) or 32) * 8))
        elif tag == 0x38:
            out.append('preshader 0x%x' % (usc_base + (v >> 32)))
        elif tag == 0x88:
            out.append('no preshader')
        i += n
    return '# ' + ', '.join(out)


def read_record(path):
    """[(kind, name, lines)] in record order."""
    items = []
    with open(path, errors='replace') as f:
        lines = [l.rstrip('\n') for l in f if l.strip('\0\n')]
    i = 0
    while i < len(lines):
        words = lines[i].split()
        if words[0] == 'submit':
            j = i
            while j < len(lines) and lines[j].split()[0] != 'end':
                j += 1
            items.append(('submit', None, lines[i:j + 1]))
            i = j + 1
        elif words[0] == 'expect':
            j = i + 1
            while j < len(lines) and lines[j].startswith('data '):
                j += 1
            items.append(('expect', words[1], lines[i:j]))
            i = j
        elif words[0] == 'result':
            items.append(('result', words[1], [lines[i]]))
            i += 1
        else:
            i += 1
    return items


def read_trace(path):
    """{code bytes: [disassembly lines]} of every program agxdecode printed"""
    progs = {}
    cur = None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            m = DIS.match(line)
            if m and cur is not None:
                cur.append((bytes.fromhex(m.group(2)),
                            '%s: %s  %s' % (m.group(1), m.group(2),
                                            m.group(3).strip())))
                continue
            if cur == [] and not line.strip():
                continue        # the blank line before a main program
            if cur:
                progs[b''.join(b for b, _ in cur)] = [t for _, t in cur]
            cur = [] if line.strip().startswith('Code: 0x') else None
    return progs


def code_bytes(sub, k):
    """The bytes of the code block whose line is sub[k]"""
    n = int(sub[k].split()[2])
    data = bytearray(n)
    for line in sub[k + 1:]:
        if not line.startswith('data '):
            break
        _, off, hexs = line.split()
        b = bytes.fromhex(hexs)
        data[int(off, 16):int(off, 16) + len(b)] = b
    return bytes(data)


stats = {'code': 0, 'agreed': 0}


def disassembly(code, progs):
    """Mesa's lines for this code (its bytes, up to its stop), or None"""
    for prog, lines in progs.items():
        if prog and code.startswith(prog):
            return lines
    return None


def annotate(sub, progs):
    """The submission's lines, a decoding comment before each launch."""
    out = []
    usc_base = int(sub[0].split()[-1], 16)
    for k, line in enumerate(sub):
        w = line.split()
        if w[0] == 'code':
            stats['code'] += 1
            dis = disassembly(code_bytes(sub, k), progs) if progs else None
            if dis:
                stats['agreed'] += 1
                out += ['# agxdecode: ' + d for d in dis]
        if w[0] == 'launch':
            block = bytes.fromhex(sub[k + 1].split()[3])
            usc = next((l.split() for l in sub[k + 2:]
                        if l.startswith('words ')), None)
            words = bytes.fromhex(usc[3]) if usc and len(usc) > 3 else b''
            out.append(launch_comment(block, words, usc_base))
        out.append(line)
    return out


def main():
    if len(sys.argv) < 3:
        print(__doc__.split('usage: ')[1], end='')
        return 2
    opts = dict(zip(sys.argv[3::2], sys.argv[4::2]))
    mesa = opts.get('--mesa', 'unknown')
    progs = read_trace(opts['--trace']) if '--trace' in opts else {}
    items = read_record(sys.argv[1])
    checks = {}                 # name -> [lines]
    verdict = {}
    pending, last = [], []
    for kind, name, lines in items:
        if kind == 'submit':
            pending.append(lines)
            continue
        body = checks.setdefault(name, [])
        if kind == 'expect' and not pending and not body:
            # a second check of the same submissions: repeat them
            pending = last
        for sub in pending:
            body += annotate(sub, progs)
        if pending:
            last = pending
        pending = []
        if kind == 'result':
            verdict[name] = lines[0].split()[2]
        else:
            body += lines
    os.makedirs(sys.argv[2], exist_ok=True)
    for name, body in checks.items():
        if not body:
            continue
        launches = sum(1 for l in body if l.startswith('launch '))
        codes = sum(1 for l in body if l.startswith('code '))
        fname = os.path.join(sys.argv[2], name.replace('/', '--') + '.txt')
        with open(fname, 'w') as f:
            f.write('# usc-corpus: vk-ops check %s\n' % name)
            f.write('# Mesa %s (Honeykrisp), recorded by usc-dump.so; the '
                    'expect blocks are vk-ops\' CPU reference\n' % mesa)
            f.write('# verdict on the recording run: %s\n' %
                    verdict.get(name, '?'))
            f.write('\n'.join(body) + '\n')
        print('%-40s %3d launches %3d code blocks, expect %s' %
              (os.path.basename(fname), launches, codes,
               'yes' if any(l.startswith('expect ') for l in body)
               else 'no'))
    if progs:
        print('%d code blocks, %d of them byte for byte as agxdecode printed '
              'them (%d programs in its trace)' %
              (stats['code'], stats['agreed'], len(progs)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
