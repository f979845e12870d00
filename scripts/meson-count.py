#!/usr/bin/env python3
"""Count subtests in a meson testlog.json: prints "<passed> <failed>".

TAP tests count one per "ok"/"not ok" line ("not ok ... # TODO", an
expected failure, not at all); a test program that died without
reporting a failure counts as one more failure.

usage: meson-count.py [--print-failures SUITE] testlog.json
With --print-failures, each failure is printed first, as a TAP
"not ok SUITE/<test>: ..." line (a test that died or timed out: with
the end of its output).
"""
import json
import re
import sys

args = sys.argv[1:]
suite = None
if args[:1] == ['--print-failures']:
    suite = args[1]
    args = args[2:]

passed = failed = 0
with open(args[0]) as log:
    for line in log:
        t = json.loads(line)
        # "project:suites / name" in QEMU's tree
        name = t['name'].split(' / ')[-1]
        ok = nok = 0
        output = (t.get('stdout') or t.get('stdo') or '').splitlines()
        for out in output:
            if out.startswith('ok '):
                ok += 1
            elif re.search(r'#\s*TODO\b', out, re.I):
                # TAP: a "not ok" marked TODO is an expected failure
                continue
            elif out.startswith('not ok '):
                nok += 1
                if suite:
                    print('not ok %s/%s: %s' % (suite, name, out[7:]))
        if ok + nok == 0:
            ok = 1 if t['result'] in ('OK', 'EXPECTEDFAIL', 'SKIP') else 0
        if t['result'] not in ('OK', 'EXPECTEDFAIL', 'SKIP') and nok == 0:
            nok = 1
            if suite:
                print('not ok %s/%s: %s, the end of its output:' %
                      (suite, name, t['result']))
                # qtest's "# starting QEMU: exec ..." lines say little
                tail = [o for o in output if not o.startswith('# starting ')]
                for out in tail[-10:]:
                    print('  | ' + out)
        passed += ok
        failed += nok
print(passed, failed)
