#!/usr/bin/env python3
"""Generate agx-structs.h from agx-structs.def.

agx-structs.def describes the firmware structures the model reads or
writes once: each field in order, with its type and, where a firmware
version has it and another does not, the condition on the field itself.
This script lays every structure out for every ABI the model implements,
checks the sizes the description asserts (the sizes the driver asserts)
and writes one #define per ABI, structure and field:

    #define AGX_V13_5_INIT_DATA_GLOBALS             0x00020

plus AGX_<STRUCT>_<FIELD> without the ABI where every ABI agrees, so
that code which does not care about the version cannot use a field that
moves between versions by mistake.

    agx-structs.py agx-structs.def agx-structs.h
    agx-structs.py --dump agx-structs.def      (offsets, for reading)

The description language is documented at the top of agx-structs.def.
"""

import re
import sys

# Scalar types: size and alignment.  Lower case are the C types of the
# driver's #[repr(C)] structures (naturally aligned); upper case are its
# unaligned U32/U64 and GPU pointers (alignment 1).
SCALARS = {
    'u8': (1, 1), 'i8': (1, 1),
    'u16': (2, 2), 'i16': (2, 2),
    'u32': (4, 4), 'i32': (4, 4), 'f32': (4, 4),
    'u64': (8, 8), 'i64': (8, 8),
    'U32': (4, 1), 'F32': (4, 1), 'U64': (8, 1), 'ptr': (8, 1),
    'bytes': (1, 1),
}

GPUS = ['G13', 'G14', 'G14X']
TYPE_RE = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)((?:\[[0-9a-fA-Fx]+\])*)$')


class DefError(Exception):
    pass


def macro_name(name):
    """InitData -> INIT_DATA, grow_tvb_ack -> GROW_TVB_ACK"""
    s = re.sub(r'([a-z0-9])([A-Z])', r'\1_\2', name)
    s = re.sub(r'([A-Z])([A-Z][a-z])', r'\1_\2', s)
    return s.upper()


class Description:
    def __init__(self):
        self.versions = []          # every version a condition may name
        self.abis = []              # (macro tag, version) laid out
        self.gpu = 'G13'
        self.structs = {}           # name -> Struct, in file order
        self.enums = {}

    def version_index(self, text, where):
        if text not in self.versions:
            raise DefError('%s: unknown version %s' % (where, text))
        return self.versions.index(text)


class Struct:
    def __init__(self, name, packed, where):
        self.name = name
        self.packed = packed
        self.where = where
        self.fields = []            # (name, type, dims, cond, where)
        self.sizes = {}             # version -> asserted size


class Enum:
    def __init__(self, name, where):
        self.name = name
        self.where = where
        self.variants = []          # (name, cond, where)


def compile_cond(desc, text, where):
    """'V >= 13.0b4 && G < G14X' -> a function of (version index, gpu)"""
    tokens = re.findall(r'&&|\|\||[()]|[<>=!]=|[<>]|[^\s()<>=!&|]+', text)
    out = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t in ('&&', '||', '(', ')'):
            out.append({'&&': ' and ', '||': ' or '}.get(t, t))
            i += 1
            continue
        if t not in ('V', 'G') or i + 2 >= len(tokens):
            raise DefError('%s: bad condition "%s"' % (where, text))
        op, rhs = tokens[i + 1], tokens[i + 2]
        if op not in ('<', '<=', '>', '>=', '==', '!='):
            raise DefError('%s: bad operator in "%s"' % (where, text))
        if t == 'V':
            out.append('(v %s %d)' % (op, desc.version_index(rhs, where)))
        else:
            if rhs not in GPUS:
                raise DefError('%s: unknown GPU %s' % (where, rhs))
            out.append('(g %s %d)' % (op, GPUS.index(rhs)))
        i += 3
    expr = ''.join(out)
    try:
        code = compile(expr, where, 'eval')
    except SyntaxError:
        raise DefError('%s: bad condition "%s"' % (where, text)) from None
    return lambda v, g: eval(code, {}, {'v': v, 'g': g})


def parse(path):
    desc = Description()
    cur = None
    with open(path, encoding='utf-8') as f:
        lines = f.readlines()
    for n, raw in enumerate(lines, 1):
        where = '%s:%d' % (path, n)
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if cur is None:
            if words[0] == 'versions':
                desc.versions = words[1:]
            elif words[0] == 'abi' and len(words) == 3:
                desc.version_index(words[2], where)
                desc.abis.append((words[1], words[2]))
            elif words[0] == 'gpu' and len(words) == 2 and words[1] in GPUS:
                desc.gpu = words[1]
            elif words[0] == 'struct' and len(words) in (2, 3):
                if len(words) == 3 and words[2] != 'packed':
                    raise DefError('%s: struct NAME [packed]' % where)
                if words[1] in desc.structs or words[1] in SCALARS:
                    raise DefError('%s: %s defined twice' % (where, words[1]))
                cur = Struct(words[1], len(words) == 3, where)
                desc.structs[words[1]] = cur
            elif words[0] == 'enum' and len(words) == 2:
                cur = Enum(words[1], where)
                desc.enums[words[1]] = cur
            else:
                raise DefError('%s: expected struct, enum, versions, abi'
                               % where)
            continue
        if words == ['end']:
            cur = None
            continue
        cond = None
        if ' if ' in ' %s ' % line:
            line, ctext = re.split(r'\s+if\s+|^if\s+', line, maxsplit=1)
            cond = compile_cond(desc, ctext, where)
            words = line.split()
        if isinstance(cur, Enum):
            if len(words) != 1:
                raise DefError('%s: expected VARIANT [if COND]' % where)
            cur.variants.append((words[0], cond, where))
            continue
        if words[0] == 'size' and len(words) > 1 and '=' in words[1]:
            for w in words[1:]:
                ver, _, size = w.partition('=')
                desc.version_index(ver, where)
                cur.sizes[ver] = int(size, 0)
            continue
        if len(words) != 2:
            raise DefError('%s: expected NAME TYPE [if COND]' % where)
        name, tspec = words
        m = TYPE_RE.match(tspec)
        if not m:
            raise DefError('%s: bad type %s' % (where, tspec))
        dims = [int(d, 0) for d in re.findall(r'\[([^]]+)\]', m.group(2))]
        if m.group(1) not in SCALARS and m.group(1) not in desc.structs:
            raise DefError('%s: unknown type %s' % (where, m.group(1)))
        if m.group(1) == 'bytes' and len(dims) != 1:
            raise DefError('%s: bytes[N]' % where)
        cur.fields.append((name, m.group(1), dims, cond, where))
    if cur is not None:
        raise DefError('%s: %s has no end' % (path, cur.name))
    if not desc.abis:
        raise DefError('%s: no abi' % path)
    return desc


class Layout:
    """One structure laid out for one version"""
    def __init__(self, size, align, fields):
        self.size = size
        self.align = align
        self.fields = fields        # name -> (offset, element size, count)


def layout(desc, st, v, g, cache):
    key = (st.name, v)
    if key in cache:
        return cache[key]
    off, align, fields = 0, 1, {}
    for name, tname, dims, cond, where in st.fields:
        if cond and not cond(v, g):
            continue
        if tname in SCALARS:
            esize, ealign = SCALARS[tname]
        else:
            sub = layout(desc, desc.structs[tname], v, g, cache)
            esize, ealign = sub.size, sub.align
        if st.packed:
            ealign = 1
        count = 1
        for d in dims:
            count *= d
        off = (off + ealign - 1) // ealign * ealign
        if name != '-':
            if name in fields:
                raise DefError('%s: %s twice in one version' % (where, name))
            fields[name] = (off, esize, count)
        off += esize * count
        align = max(align, ealign)
    size = (off + align - 1) // align * align
    cache[key] = Layout(size, align, fields)
    return cache[key]


def enum_values(en, v, g):
    values, i = {}, 0
    for name, cond, where in en.variants:
        if cond and not cond(v, g):
            continue
        values[name] = i
        i += 1
    return values


def compute(desc):
    """{abi tag: {(STRUCT, FIELD): value}}, checking asserted sizes"""
    g = GPUS.index(desc.gpu)
    cache = {}
    out = {}
    errors = []
    for st in desc.structs.values():
        for ver, want in st.sizes.items():
            got = layout(desc, st, desc.versions.index(ver), g, cache).size
            if got != want:
                errors.append('%s: %s is 0x%x bytes on %s, the driver says '
                              '0x%x' % (st.where, st.name, got, ver, want))
    if errors:
        raise DefError('\n'.join(errors))
    for tag, ver in desc.abis:
        v = desc.versions.index(ver)
        vals = {}
        for st in desc.structs.values():
            lay = layout(desc, st, v, g, cache)
            vals[(st.name, 'SIZE')] = lay.size
            for fname, tname, dims, cond, where in st.fields:
                if fname == '-' or (st.name, fname) in vals:
                    continue
                if fname in lay.fields:
                    off, esize, count = lay.fields[fname]
                    vals[(st.name, fname)] = off
                    if dims:
                        vals[(st.name, fname + '_COUNT')] = count
                else:
                    vals[(st.name, fname)] = None
        for en in desc.enums.values():
            ev = enum_values(en, v, g)
            for name, cond, where in en.variants:
                vals.setdefault((en.name, name), ev.get(name))
        out[tag] = vals
    return out


def generate(desc, tables, src):
    tags = [t for t, _ in desc.abis]
    keys = list(tables[tags[0]].keys())
    lines = [
        '/*',
        ' * AGX firmware structures: offsets and sizes per firmware ABI',
        ' *',
        ' * Generated by agx-structs.py from %s: do not edit.' % src,
        ' * AGX_<ABI>_<STRUCT>_<FIELD> is a byte offset from the start of',
        ' * the structure, AGX_<ABI>_<STRUCT>_SIZE its size,',
        ' * AGX_<ABI>_<STRUCT>_<FIELD>_COUNT the length of an array field,',
        ' * AGX_<ABI>_<ENUM>_<VARIANT> a tag; AGX_FIELD_ABSENT where the ABI',
        ' * has no such field.  AGX_<STRUCT>_<FIELD> (no ABI) exists when',
        ' * every ABI agrees.',
        ' */',
        '',
        '#ifndef AGX_STRUCTS_H',
        '#define AGX_STRUCTS_H',
        '',
        '#define AGX_FIELD_ABSENT 0xffffffffu',
    ]
    group = None
    seen = set()

    def define(name, text):
        if name in seen:
            raise DefError('two fields are both %s: rename one' % name)
        seen.add(name)
        lines.append('#define %-55s %s' % (name, text))

    for key in keys:
        if key[0] != group:
            group = key[0]
            kind = 'enum' if group in desc.enums else 'struct'
            sizes = ''
            if kind == 'struct':
                sizes = ': ' + ', '.join(
                    '%s 0x%x bytes' % (v, tables[t][(group, 'SIZE')])
                    for t, v in desc.abis)
            lines += ['', '/* %s %s%s */' % (kind, group, sizes)]
        values = [tables[t][key] for t in tags]
        for t, val in zip(tags, values):
            name = 'AGX_%s_%s_%s' % (t, macro_name(key[0]), macro_name(key[1]))
            define(name, 'AGX_FIELD_ABSENT' if val is None else '0x%05x' % val)
        if all(val == values[0] for val in values) and values[0] is not None:
            name = 'AGX_%s_%s' % (macro_name(key[0]), macro_name(key[1]))
            define(name, '0x%05x' % values[0])
    lines += ['', '#endif', '']
    return '\n'.join(lines)


def dump(desc, tables):
    tags = [t for t, _ in desc.abis]
    print('%-50s %s' % ('', ' '.join('%8s' % v for _, v in desc.abis)))
    for key in tables[tags[0]]:
        vals = [tables[t][key] for t in tags]
        print('%-50s %s' % ('.'.join(key), ' '.join(
            '%8s' % ('-' if v is None else '0x%x' % v) for v in vals)))


def main():
    args = sys.argv[1:]
    try:
        if len(args) == 2 and args[0] == '--dump':
            desc = parse(args[1])
            dump(desc, compute(desc))
            return
        if len(args) != 2:
            sys.exit(__doc__)
        desc = parse(args[0])
        text = generate(desc, compute(desc), 'agx-structs.def')
    except DefError as e:
        sys.exit('agx-structs.py: error: %s' % e)
    with open(args[1], 'w', encoding='utf-8') as f:
        f.write(text)


if __name__ == '__main__':
    main()
