#!/usr/bin/env python3
"""Check the include rules of our C files.

QEMU-free files (the RTKit library's and the firmware core's sources,
given on the command line from the one lists in hw/apple/rtkit/meson.build
and hw/display/agx/core/meson.build, the headers of include/hw/agx but
apple-*.h, the RTKit library's headers in include/hw/apple, the qtests'
QEMU-free library, and the local headers they include) may include only
C library and GLib headers, the core's and RTKit's own headers and the
one the core's build generates (agx-structs.h): never a QEMU header.
The RTKit library serves every Apple coprocessor: its files include
nothing of the GPU's (include/hw/agx).  Every other C file of ours
that QEMU compiles (under hw/ and tests/qtest/) is a QEMU source file and
includes "qemu/osdep.h" first, as QEMU requires.

    check-core-includes.py SRCDIR QEMU_FREE_FILE...
"""

import os
import re
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)

# What a QEMU-free file may include with <...>
SYSTEM_HEADERS = {
    'glib.h', 'stdarg.h', 'stdbool.h', 'stddef.h', 'stdint.h', 'stdio.h',
    'stdlib.h', 'string.h', 'inttypes.h', 'limits.h', 'errno.h', 'unistd.h',
    'math.h',
}


# Headers the core's build generates (hw/display/agx/core/meson.build)
GENERATED = {'agx-structs.h', 'agx-isa.h'}

# The RTKit library's headers (hw/apple/rtkit/meson.build): the QEMU-free
# ones of include/hw/apple
RTKIT_HEADERS = {'rtkit.h', 'apple-bits.h'}


def is_rtkit(srcdir, path):
    rel = os.path.relpath(path, srcdir)
    return rel.startswith(('hw/apple/', 'include/hw/apple/'))


def includes(path):
    with open(path, encoding='utf-8') as f:
        return INCLUDE_RE.findall(f.read())


def check_qemu_free(srcdir, path, errors, seen):
    if path in seen:
        return
    seen.add(path)
    rel = os.path.relpath(path, srcdir)
    for kind, name in includes(path):
        if kind == '<':
            if name not in SYSTEM_HEADERS:
                errors.append('%s: QEMU-free, includes <%s>' % (rel, name))
            continue
        core = re.fullmatch(r'hw/agx/([a-z0-9-]+\.h)', name)
        rtkit = re.fullmatch(r'hw/apple/([a-z0-9-]+\.h)', name)
        if name in GENERATED:
            # Generated from a description, with nothing to include
            continue
        if core and is_rtkit(srcdir, path):
            errors.append('%s: RTKit, includes the GPU\'s "%s"' % (rel, name))
            continue
        if core and not core.group(1).startswith('apple-'):
            header = os.path.join(srcdir, 'include', name)
        elif rtkit and rtkit.group(1) in RTKIT_HEADERS:
            header = os.path.join(srcdir, 'include', name)
        elif '/' not in name:
            # A header beside the file (the command builders' own)
            header = os.path.join(os.path.dirname(path), name)
        else:
            header = None
        if not header or not os.path.exists(header):
            errors.append('%s: QEMU-free, includes "%s"' % (rel, name))
            continue
        check_qemu_free(srcdir, header, errors, seen)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    srcdir = os.path.abspath(sys.argv[1])
    qemu_free = {os.path.abspath(p) for p in sys.argv[2:]}
    inc = os.path.join(srcdir, 'include/hw/agx')
    qemu_free |= {os.path.join(inc, h) for h in os.listdir(inc)
                  if h.endswith('.h') and not h.startswith('apple-')}
    qemu_free |= {os.path.join(srcdir, 'include/hw/apple', h)
                  for h in RTKIT_HEADERS}
    errors, seen = [], set()
    for path in sorted(qemu_free):
        check_qemu_free(srcdir, path, errors, seen)

    qemu_files = 0
    for top in ('hw', 'tests/qtest'):
        for d, _, names in os.walk(os.path.join(srcdir, top)):
            for name in sorted(names):
                path = os.path.join(d, name)
                if not name.endswith('.c') or path in qemu_free:
                    continue
                qemu_files += 1
                first = includes(path)[:1]
                if first != [('"', 'qemu/osdep.h')]:
                    errors.append('%s: a QEMU source file, its first include '
                                  'is not "qemu/osdep.h"'
                                  % os.path.relpath(path, srcdir))
    for e in errors:
        print(e)
    if errors:
        return 1
    print('%d QEMU-free files include no QEMU header; %d QEMU source files '
          'include qemu/osdep.h first' % (len(seen), qemu_files))
    return 0


if __name__ == '__main__':
    sys.exit(main())
