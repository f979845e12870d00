#!/usr/bin/env python3
"""Check that the core's trace hooks and QEMU's trace events agree.

Every agx_* event of hw/display/agx/trace-events must be a hook of
AgxTraceOps (include/hw/agx/agx-trace.h) with the same name, without the
prefix, and the same argument types after the opaque pointer, and
apple-agx-trace.c must set that hook; nothing more on either side.

    check-trace-hooks.py SRCDIR
"""

import os
import re
import sys


def types(params):
    """The argument types of a C parameter list, without the names."""
    params = ' '.join(params.split())
    if params in ('', 'void'):
        return []
    return [re.sub(r'\s+', ' ', re.sub(r'\w+$', '', p.strip())).strip()
            .replace(' *', '*') for p in params.split(',')]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    with open(os.path.join(src, 'hw/display/agx/trace-events')) as f:
        events = {m.group(1): types(m.group(2)) for m in
                  re.finditer(r'^agx_(\w+)\(([^)]*)\)', f.read(), re.M)}
    with open(os.path.join(src, 'include/hw/agx/agx-trace.h')) as f:
        header = f.read()
    hooks = {m.group(1): types(m.group(2) or '') for m in
             re.finditer(r'void \(\*(\w+)\)\(\s*void \*opaque\s*'
                         r'(?:,([^)]*))?\);', header)}
    with open(os.path.join(src, 'hw/display/agx/apple-agx-trace.c')) as f:
        glue = set(re.findall(r'^\s*\.(\w+) = apple_agx_trace_\1,', f.read(),
                              re.M))
    errors = []
    for name in sorted(set(events) | set(hooks) | glue):
        if name not in events:
            errors.append('%s: no agx_%s in trace-events' % (name, name))
        if name not in hooks:
            errors.append('%s: no hook in AgxTraceOps' % name)
        elif name in events and hooks[name] != events[name]:
            errors.append('%s: hook takes (%s), event (%s)' %
                          (name, ', '.join(hooks[name]),
                           ', '.join(events[name])))
        if name not in glue:
            errors.append('%s: apple-agx-trace.c does not set it' % name)
    for e in errors:
        print(e)
    if errors:
        return 1
    print('%d trace events, hooks and QEMU trace functions agree'
          % len(events))
    return 0


if __name__ == '__main__':
    sys.exit(main())
