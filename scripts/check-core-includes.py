#!/usr/bin/env python3
"""Check the include rules of our C files.

The folders say what may include what.  The QEMU-free folders are those
of the libraries that both QEMU and the standalone build compile:

    hw/apple/rtkit/      RTKit, every Apple coprocessor's protocol
    hw/display/agx/core/ the GPU firmware core (and its subfolders)
    hw/arm/m1n1/         what m1n1 computes for the GPU (calibration)
    tests/lib/agx/       the tests' shared library

with their headers in include/hw/agx/, include/hw/arm/m1n1/ and beside
the test library's sources.  Their files may include only C library and
GLib headers, our own headers (which must be QEMU-free in turn) and the
headers their meson.build files generate: never a QEMU header.  RTKit
serves every Apple coprocessor: it includes nothing of the GPU's.  Every
other C file of ours that QEMU compiles (under hw/ and tests/qtest/) is a
QEMU source file and includes "qemu/osdep.h" first, as QEMU requires.

    check-core-includes.py SRCDIR
"""

import os
import re
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)
OUTPUT_RE = re.compile(r"output:\s*'([^']+\.h)'")

QEMU_FREE_DIRS = ('hw/apple/rtkit', 'hw/display/agx/core', 'hw/arm/m1n1',
                  'tests/lib/agx')
QEMU_FREE_HEADER_DIRS = ('include/hw/agx', 'include/hw/arm/m1n1',
                         'tests/lib/agx')
RTKIT_DIRS = ('hw/apple/rtkit/',)

# What a QEMU-free file may include with <...>
SYSTEM_HEADERS = {
    'glib.h', 'stdarg.h', 'stdbool.h', 'stddef.h', 'stdint.h', 'stdio.h',
    'stdlib.h', 'string.h', 'inttypes.h', 'limits.h', 'errno.h', 'unistd.h',
    'math.h', 'fenv.h', 'float.h',
}


def walk(srcdir, top, suffixes):
    for d, _, names in os.walk(os.path.join(srcdir, top)):
        for name in sorted(names):
            if name.endswith(suffixes):
                yield os.path.join(d, name)


def generated_headers(srcdir):
    """Headers the QEMU-free folders' meson.build files generate."""
    names = set()
    for top in QEMU_FREE_DIRS:
        for path in walk(srcdir, top, ('meson.build',)):
            with open(path, encoding='utf-8') as f:
                names |= set(OUTPUT_RE.findall(f.read()))
    return names


def includes(path):
    with open(path, encoding='utf-8') as f:
        return INCLUDE_RE.findall(f.read())


def check_qemu_free(srcdir, path, generated, errors, seen, rtkit=False):
    """Check @path and what it includes; @rtkit: RTKit includes it."""
    rel = os.path.relpath(path, srcdir)
    rtkit = rtkit or rel.startswith(RTKIT_DIRS)
    if (path, rtkit) in seen:
        return
    seen.add((path, rtkit))
    for kind, name in includes(path):
        if kind == '<':
            if name not in SYSTEM_HEADERS:
                errors.append('%s: QEMU-free, includes <%s>' % (rel, name))
            continue
        if name in generated:
            # Generated from a description, with nothing to include
            continue
        if rtkit and name.startswith(('hw/agx/', 'hw/arm/')):
            errors.append('%s: RTKit, includes the GPU\'s "%s"' % (rel, name))
            continue
        if '/' in name:
            header = os.path.join(srcdir, 'include', name)
        else:
            # A header beside the file
            header = os.path.join(os.path.dirname(path), name)
        if not os.path.exists(header):
            errors.append('%s: QEMU-free, includes "%s"' % (rel, name))
            continue
        check_qemu_free(srcdir, header, generated, errors, seen, rtkit)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    srcdir = os.path.abspath(sys.argv[1])
    qemu_free = set()
    for top in QEMU_FREE_DIRS:
        qemu_free |= set(walk(srcdir, top, ('.c', '.h')))
    for top in QEMU_FREE_HEADER_DIRS:
        qemu_free |= set(walk(srcdir, top, ('.h',)))
    generated = generated_headers(srcdir)
    errors, seen = [], set()
    for path in sorted(qemu_free):
        check_qemu_free(srcdir, path, generated, errors, seen)

    qemu_files = 0
    for top in ('hw', 'tests/qtest'):
        for path in walk(srcdir, top, ('.c',)):
            if path in qemu_free:
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
          'include qemu/osdep.h first'
          % (len({p for p, _ in seen}), qemu_files))
    return 0


if __name__ == '__main__':
    sys.exit(main())
