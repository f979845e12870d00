#!/usr/bin/env python3
"""Check that the firmware core is layered: no cycle between its files.

The graph has one node per module (hw/display/agx/X.c and
include/hw/agx/X.h are module X; so are hw/apple/X.c and
include/hw/apple/X.h of the RTKit library the core builds on) and an
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

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"hw/(agx|apple)/([a-z0-9-]+)\.h"',
                        re.M)

# The RTKit library's modules (hw/apple/rtkit/meson.build); the rest of
# hw/apple is QEMU devices
RTKIT_MODULES = {'rtkit', 'apple-bits'}


def is_core(kind, module):
    if kind == 'apple':
        return module in RTKIT_MODULES
    # apple-*.c and their headers are the QEMU glue on top of the core
    return not module.startswith('apple-')


def module_of(path):
    return os.path.splitext(os.path.basename(path))[0]


def include_edges(srcdir):
    """{(a, b): why} for every #include of a core header by a core file."""
    edges = {}
    dirs = [('agx', os.path.join(srcdir, 'hw/display/agx')),
            ('agx', os.path.join(srcdir, 'hw/display/agx/core/shader')),
            ('agx', os.path.join(srcdir, 'include/hw/agx')),
            ('apple', os.path.join(srcdir, 'hw/apple')),
            ('apple', os.path.join(srcdir, 'include/hw/apple'))]
    for kind, d in dirs:
        for name in sorted(os.listdir(d)):
            if (not name.endswith(('.c', '.h')) or
                    not is_core(kind, module_of(name))):
                continue
            path = os.path.join(d, name)
            with open(path, encoding='utf-8') as f:
                text = f.read()
            a = module_of(name)
            for bkind, b in INCLUDE_RE.findall(text):
                if b != a and is_core(bkind, b):
                    edges.setdefault((a, b), '%s includes hw/%s/%s.h'
                                     % (os.path.relpath(path, srcdir),
                                        bkind, b))
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
        # meson names objects after the path: hw_display_agx_agx-fw.c.o,
        # hw_apple_rtkit.c.o
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
