#!/usr/bin/env python3
"""Generate the USC decoder's tables from agx-isa.def.

agx-isa.def describes every instruction the interpreter knows once: its
length rule, the bits that identify it and the bit positions of its
fields and operands.  This script checks the description (no two
encodings that could match the same word with equal specificity, fields
inside the instruction, operands named once) and writes

    agx-isa.h           enum AgxUscOp, enum AgxUscField, operand kinds and
                        the AgxUscEncoding type
    agx-isa-tables.c    agx_usc_encodings[]: the match table, most specific
                        encoding first, then agx_usc_op_names[]

    agx-isa.py agx-isa.def agx-isa.h          (the header)
    agx-isa.py agx-isa.def agx-isa-tables.c   (the tables)
"""

import re
import sys

OPERAND_KINDS = ['dst', 'dst16', 'dst64', 'src', 'src64', 'ssrc', 'ssrc64',
                 'fsrc', 'hsrc', 'csrc']
# Operand slots of the decoded instruction: D, then the sources in order
SLOTS = {'D': 0, 'A': 1, 'B': 2, 'C': 3, 'X': 3, 'Y': 4}
MAX_PIECES = 3
MAX_FIELDS = 18
MAX_OPERANDS = 5

LEN_RE = re.compile(r'^(\d+)(?:,(\d+)@(\d+))?$')
MATCH_RE = re.compile(r'^(\d+):(\d+)=(0x[0-9a-fA-F]+|\d+)$')
FIELD_RE = re.compile(r'^([A-Za-z][A-Za-z0-9]*)=(\d+:\d+(?:\+\d+:\d+)*)$')
OPERAND_RE = re.compile(r'^([A-Z])=([a-z0-9]+)\((\d+),(\d+)\)$')


class DefError(Exception):
    pass


class Insn:
    def __init__(self, name, line):
        self.name = name
        self.line = line
        self.len_short = 0
        self.len_long = 0
        self.lbit = -1
        self.exact = 0
        self.mask = 0
        self.fields = []        # (name, [(start, width)])
        self.operands = []      # (slot, kind, pos, ext)


def parse_int(s):
    return int(s, 0)


def parse(path):
    insns = []
    names = set()
    with open(path, encoding='utf-8') as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].strip()
            if not line:
                continue
            where = '%s:%d' % (path, lineno)
            tok = line.split()
            if len(tok) < 3:
                raise DefError('%s: expected NAME LENGTH MATCH...' % where)
            insn = Insn(tok[0], where)
            if insn.name in names:
                raise DefError('%s: %s described twice' % (where, insn.name))
            names.add(insn.name)
            m = LEN_RE.match(tok[1])
            if not m:
                raise DefError('%s: bad length %r' % (where, tok[1]))
            insn.len_short = int(m.group(1))
            insn.len_long = int(m.group(2)) if m.group(2) else insn.len_short
            insn.lbit = int(m.group(3)) if m.group(3) else -1
            for n in (insn.len_short, insn.len_long):
                if n < 2 or n > 12 or n % 2:
                    raise DefError('%s: length %d' % (where, n))
            if insn.lbit >= 8 * insn.len_short:
                raise DefError('%s: length bit outside the short form' % where)
            bits = 8 * insn.len_long
            for t in tok[2:]:
                m = MATCH_RE.match(t)
                if m:
                    start, width, value = (int(m.group(1)), int(m.group(2)),
                                           parse_int(m.group(3)))
                    if start + width > 64 or value >> width:
                        raise DefError('%s: bad match %s' % (where, t))
                    fmask = ((1 << width) - 1) << start
                    if insn.mask & fmask:
                        raise DefError('%s: match bits overlap: %s' %
                                       (where, t))
                    insn.mask |= fmask
                    insn.exact |= value << start
                    continue
                m = OPERAND_RE.match(t)
                if m:
                    slot, kind = m.group(1), m.group(2)
                    pos, ext = int(m.group(3)), int(m.group(4))
                    if slot not in SLOTS or kind not in OPERAND_KINDS:
                        raise DefError('%s: bad operand %s' % (where, t))
                    if (slot == 'D') != kind.startswith('dst'):
                        raise DefError('%s: %s cannot be a %s' %
                                       (where, slot, kind))
                    if ext + 2 > bits or pos + 12 > max(bits, 64):
                        raise DefError('%s: operand %s outside' % (where, t))
                    if any(SLOTS[o[0]] == SLOTS[slot]
                           for o in insn.operands):
                        raise DefError('%s: slot of %s used twice' %
                                       (where, slot))
                    insn.operands.append((slot, kind, pos, ext))
                    continue
                m = FIELD_RE.match(t)
                if m:
                    pieces = []
                    total = 0
                    for p in m.group(2).split('+'):
                        s, w = (int(x) for x in p.split(':'))
                        if s + w > bits:
                            raise DefError('%s: field %s outside' %
                                           (where, t))
                        pieces.append((s, w))
                        total += w
                    if len(pieces) > MAX_PIECES or total > 32:
                        raise DefError('%s: field %s too wide' % (where, t))
                    insn.fields.append((m.group(1), pieces))
                    continue
                raise DefError('%s: cannot parse %r' % (where, t))
            if insn.lbit >= 0:
                insn.mask &= ~(1 << insn.lbit)
            if len(insn.fields) > MAX_FIELDS or \
               len(insn.operands) > MAX_OPERANDS:
                raise DefError('%s: too many fields' % where)
            insns.append(insn)
    return insns


def check_overlaps(insns):
    """Two encodings that can match one word must differ in specificity,
    the more specific (more match bits) winning, and the less specific
    must not be a subset that would never match at all"""
    for i, a in enumerate(insns):
        for b in insns[i + 1:]:
            common = a.mask & b.mask
            if (a.exact ^ b.exact) & common:
                continue
            ca, cb = bin(a.mask).count('1'), bin(b.mask).count('1')
            if ca == cb:
                raise DefError('%s and %s (%s) match the same words' %
                               (a.name, b.name, b.line))


def c_name(name):
    return re.sub(r'[^A-Za-z0-9]', '_', name).upper()


def gen_header(insns, fields, out):
    w = out.write
    w('/* Generated by agx-isa.py from agx-isa.def: do not edit */\n\n')
    w('#ifndef AGX_ISA_H\n#define AGX_ISA_H\n\n#include <stdint.h>\n\n')
    w('typedef enum AgxUscOp {\n')
    for i in sorted(insns, key=lambda i: i.name):
        w('    AGX_USC_OP_%s,\n' % c_name(i.name))
    w('    AGX_USC_OP__COUNT\n} AgxUscOp;\n\n')
    w('typedef enum AgxUscField {\n')
    for f in fields:
        w('    AGX_USC_F_%s,\n' % c_name(f))
    w('    AGX_USC_F__COUNT\n} AgxUscField;\n\n')
    w('typedef enum AgxUscOperandKind {\n    AGX_USC_K_NONE,\n')
    for k in OPERAND_KINDS:
        w('    AGX_USC_K_%s,\n' % c_name(k))
    w('} AgxUscOperandKind;\n\n')
    w('#define AGX_USC_MAX_PIECES   %d\n' % MAX_PIECES)
    w('#define AGX_USC_MAX_FIELDS   %d\n' % MAX_FIELDS)
    w('#define AGX_USC_MAX_OPERANDS %d\n\n' % MAX_OPERANDS)
    w('''typedef struct AgxUscFieldDesc {
    uint8_t field;                      /* AgxUscField */
    uint8_t npieces;
    uint8_t start[AGX_USC_MAX_PIECES];
    uint8_t width[AGX_USC_MAX_PIECES];
} AgxUscFieldDesc;

typedef struct AgxUscOperandDesc {
    uint8_t slot;                       /* 0 = D, 1.. = sources */
    uint8_t kind;                       /* AgxUscOperandKind */
    uint8_t pos;                        /* slot (sources) */
    uint8_t ext;                        /* extension bits */
} AgxUscOperandDesc;

typedef struct AgxUscEncoding {
    uint16_t op;                        /* AgxUscOp */
    uint8_t len_short, len_long;
    int8_t lbit;                        /* length bit, -1 if fixed */
    uint8_t nfields, noperands;
    uint64_t exact, mask;
    AgxUscFieldDesc fields[AGX_USC_MAX_FIELDS];
    AgxUscOperandDesc operands[AGX_USC_MAX_OPERANDS];
} AgxUscEncoding;

extern const AgxUscEncoding agx_usc_encodings[];
extern const unsigned agx_usc_n_encodings;
extern const char *const agx_usc_op_names[AGX_USC_OP__COUNT];

#endif
''')


def gen_tables(insns, out):
    w = out.write
    w('/* Generated by agx-isa.py from agx-isa.def: do not edit */\n\n')
    w('#include "agx-isa.h"\n\n')
    w('const AgxUscEncoding agx_usc_encodings[] = {\n')
    order = sorted(insns, key=lambda i: -bin(i.mask).count('1'))
    for i in order:
        w('    { /* %s */\n' % i.name)
        w('        .op = AGX_USC_OP_%s, .len_short = %d, .len_long = %d, '
          '.lbit = %d,\n' % (c_name(i.name), i.len_short, i.len_long, i.lbit))
        w('        .exact = 0x%xull, .mask = 0x%xull,\n' % (i.exact, i.mask))
        w('        .nfields = %d, .fields = {\n' % len(i.fields))
        for name, pieces in i.fields:
            w('            { AGX_USC_F_%s, %d, { %s }, { %s } },\n' % (
                c_name(name), len(pieces),
                ', '.join(str(p[0]) for p in pieces),
                ', '.join(str(p[1]) for p in pieces)))
        w('        },\n')
        w('        .noperands = %d, .operands = {\n' % len(i.operands))
        for slot, kind, pos, ext in i.operands:
            w('            { %d, AGX_USC_K_%s, %d, %d },\n' % (
                SLOTS[slot], c_name(kind), pos, ext))
        w('        },\n    },\n')
    w('};\n\nconst unsigned agx_usc_n_encodings = %d;\n\n' % len(insns))
    w('const char *const agx_usc_op_names[AGX_USC_OP__COUNT] = {\n')
    for i in sorted(insns, key=lambda i: i.name):
        w('    [AGX_USC_OP_%s] = "%s",\n' % (c_name(i.name), i.name))
    w('};\n')


def main(argv):
    if len(argv) != 3 or not argv[2].endswith(('.h', '.c')):
        sys.stderr.write(__doc__)
        return 2
    try:
        insns = parse(argv[1])
        check_overlaps(insns)
    except DefError as e:
        sys.stderr.write('agx-isa.py: %s\n' % e)
        return 1
    fields = sorted({f[0] for i in insns for f in i.fields})
    names = {}
    for f in fields:
        if c_name(f) in names:
            sys.stderr.write('agx-isa.py: fields %s and %s have one C name\n'
                             % (names[c_name(f)], f))
            return 1
        names[c_name(f)] = f
    with open(argv[2], 'w', encoding='utf-8') as out:
        if argv[2].endswith('.h'):
            gen_header(insns, fields, out)
        else:
            gen_tables(insns, out)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
