#!/usr/bin/env python3
"""Check that the firmware core is layered: no cycle between its files.

The graph has one node per module of the QEMU-free libraries: X.c and
X.h are module X, for the files of the folders hw/display/agx/core/ (and
its subfolders), hw/apple/rtkit/, hw/arm/m1n1/, include/hw/agx/ and
include/hw/arm/m1n1/, and the include/hw/apple/ headers they include.  An
edge A -> B when A's source or header includes B's header, or when A's
object file uses a symbol B's object file defines (nm on the static
libraries: what the compiler really linked, macros and inline functions
included).  A cycle is printed with the include or the symbol behind each
of its edges.

    check-core-layers.py SRCDIR LIBRTKIT.a LIBAGXCORE.a... [--print]

--print shows the layers, bottom first.  Exit status 0: layered, 1: not,
77: nm is missing (meson counts that as skipped).
"""

import os
import re
import shutil
import subprocess
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"hw/(agx|apple|arm/m1n1)/'
                        r'([a-z0-9-]+)\.h"', re.M)

CORE_DIRS = ('hw/display/agx/core', 'hw/apple/rtkit', 'hw/arm/m1n1',
             'include/hw/agx', 'include/hw/arm/m1n1')


def module_of(path):
    return os.path.splitext(os.path.basename(path))[0]


def core_files(srcdir):
    """The QEMU-free libraries' sources and headers, and the headers of
    include/hw/apple they include."""
    files = []
    for top in CORE_DIRS:
        for d, _, names in os.walk(os.path.join(srcdir, top)):
            files += [os.path.join(d, n) for n in sorted(names)
                      if n.endswith(('.c', '.h'))]
    apple = set()
    for path in files:
        with open(path, encoding='utf-8') as f:
            apple |= {b for k, b in INCLUDE_RE.findall(f.read())
                      if k == 'apple'}
    files += [os.path.join(srcdir, 'include/hw/apple', b + '.h')
              for b in sorted(apple)]
    return files


def include_edges(srcdir):
    """{(a, b): why} for every #include of a core header by a core file."""
    edges = {}
    for path in core_files(srcdir):
        with open(path, encoding='utf-8') as f:
            text = f.read()
        a = module_of(path)
        for bkind, b in INCLUDE_RE.findall(text):
            if b != a:
                edges.setdefault((a, b), '%s includes hw/%s/%s.h'
                                 % (os.path.relpath(path, srcdir), bkind, b))
    return edges


def symbol_edges(libs):
    """{(a, b): why} for every symbol one core object uses from another."""
    out = subprocess.run(['nm', '-A'] + libs, check=True,
                         capture_output=True, text=True).stdout
    defined, used = {}, []
    for line in out.splitlines():
        # lib.a:obj.o: [address] TYPE symbol
        m = re.match(r'^.*?:([^:]+\.o):\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z])\s+'
                     r'(\S+)$', line)
        if not m:
            continue
        obj, kind, sym = m.groups()
        # meson names objects after the path: hw_display_agx_core_agx-fw.c.o
        # (or agx-fw.c.o in the library's own folder)
        obj = os.path.basename(obj)
        module = re.sub(r'\.c\.o$', '', obj).split('_')[-1]
        if kind == 'U':
            used.append((module, sym))
        elif kind.isupper():
            defined[sym] = module
    edges = {}
    for a, sym in used:
        b = defined.get(sym)
        if b and b != a:
            edges.setdefault((a, b), '%s.c calls or uses %s() of %s.c'
                             % (a, sym, b))
    return edges


def find_cycle(nodes, succ):
    """A list of nodes forming a cycle, or None (depth-first search)."""
    state = {}
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(succ.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                cycle = visit(m)
                if cycle:
                    return cycle
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(nodes):
        if n not in state:
            cycle = visit(n)
            if cycle:
                return cycle
    return None


def layers(nodes, succ):
    """Each module's height: 0 uses nothing, n uses modules below n."""
    height = {}

    def h(n):
        if n not in height:
            height[n] = 1 + max((h(m) for m in succ.get(n, ())), default=-1)
        return height[n]

    for n in nodes:
        h(n)
    return height


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(args) < 2:
        sys.exit(__doc__)
    srcdir, libs = args[0], args[1:]
    if not shutil.which('nm'):
        print('nm not found: cannot read the call graph')
        return 77
    edges = include_edges(srcdir)
    for k, v in symbol_edges(libs).items():
        edges.setdefault(k, v)
    nodes = {n for e in edges for n in e}
    succ = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)

    cycle = find_cycle(nodes, succ)
    if cycle:
        print('not layered: %s' % ' -> '.join(cycle))
        for a, b in zip(cycle, cycle[1:]):
            print('  %s' % edges[(a, b)])
        return 1
    if '--print' in sys.argv:
        height = layers(nodes, succ)
        for level in range(max(height.values()) + 1):
            print('%d: %s' % (level, ' '.join(sorted(
                n for n in nodes if height[n] == level))))
    print('layered: %d modules, %d dependencies, no cycle'
          % (len(nodes), len(edges)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
