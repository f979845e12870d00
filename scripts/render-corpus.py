#!/usr/bin/env python3
"""Split a render record of usc-dump.so into tests/unit/render-corpus.

    render-corpus.py RECORD OUTDIR [--mesa VERSION]

RECORD is what the Mesa guest's render-dump step wrote
(scripts/capture-usc-corpus.sh --render): "program NAME" lines, each
followed by usc-dump.so's record of that program.  Each program becomes
OUTDIR/NAME.txt, its "mem" rows reduced to those that differ from what
the record said before (a submission after the first repeats all the
memory), its "after" rows to those that differ from the memory recorded
at submission (what the GPU wrote); a row is listed even when it became
zero.  The format: OUTDIR/README.md.
"""

import os
import sys

PAGE = 16384


class Memory:
    """What the record says memory held at submission: bytes, known or not"""

    def __init__(self):
        self.pages = {}

    def put(self, va, data):
        for i, b in enumerate(data):
            page = self.pages.setdefault((va + i) // PAGE,
                                         [bytearray(PAGE), bytearray(PAGE)])
            page[0][(va + i) % PAGE] = b
            page[1][(va + i) % PAGE] = 1

    def get(self, va, n):
        out = bytearray(n)
        for i in range(n):
            page = self.pages.get((va + i) // PAGE)
            if not page or not page[1][(va + i) % PAGE]:
                return None
            out[i] = page[0][(va + i) % PAGE]
        return bytes(out)


def reduce_program(lines):
    """The program's lines, its after rows cut to what the GPU changed"""
    mem = Memory()
    out = []
    region = None           # (kind, va, len, rows)

    def changed(va, n, rows):
        kept = []
        for off in range(0, n, 32):
            row = rows.get(off, bytes(min(32, n - off)))
            before = mem.get(va + off, len(row))
            if before == row or (before is None and not any(row)):
                continue
            kept.append('data %x %s' % (off, row.hex()))
        return kept

    def flush():
        if not region:
            return
        kind, va, n, rows = region
        if kind == 'mem':
            kept = changed(va, n, rows)
            if kept:
                out.append('mem 0x%x %d' % (va, n))
                out.extend(kept)
            for off in range(0, n, 32):
                mem.put(va + off, rows.get(off, bytes(min(32, n - off))))
            return
        if kind != 'after':
            return
        kept = []
        for off in range(0, n, 32):
            row = rows.get(off, bytes(min(32, n - off)))
            before = mem.get(va + off, len(row))
            if before == row or (before is None and not any(row)):
                continue
            kept.append('data %x %s' % (off, row.hex()))
        if kept:
            out.append('after 0x%x %d' % (va, n))
            out.extend(kept)

    for line in lines:
        f = line.split()
        if f and f[0] in ('mem', 'code', 'after'):
            flush()
            region = (f[0], int(f[1], 16), int(f[2]), {})
            if f[0] == 'code':
                out.append(line)
            continue
        if f and f[0] == 'data' and region:
            region[3][int(f[1], 16)] = bytes.fromhex(f[2])
            if region[0] == 'code':
                out.append(line)
            continue
        flush()
        region = None
        out.append(line)
    flush()
    return out


def main():
    args = sys.argv[1:]
    mesa = None
    if '--mesa' in args:
        i = args.index('--mesa')
        mesa = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    rec, outdir = args
    programs = {}
    name = None
    with open(rec, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('program '):
                name = line.split()[1]
                programs[name] = []
            elif name:
                programs[name].append(line)
    os.makedirs(outdir, exist_ok=True)
    for name, lines in programs.items():
        body = reduce_program(lines)
        path = os.path.join(outdir, name + '.txt')
        with open(path, 'w') as f:
            f.write('# %s\'s frame, recorded by usc-dump.so in the Mesa guest'
                    '%s\n' % (name, ' (Mesa %s)' % mesa if mesa else ''))
            f.write('\n'.join(body) + '\n')
        print('%s: %d lines, %d after regions' % (
            path, len(body), sum(1 for x in body if x.startswith('after'))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
