#!/usr/bin/env python3
"""Count subtests in a meson testlog.json: prints "<passed> <failed>".

TAP tests count one per "ok"/"not ok" line; a test program that died
without reporting a failure counts as one more failure.
"""
import json
import sys

passed = failed = 0
with open(sys.argv[1]) as log:
    for line in log:
        t = json.loads(line)
        ok = nok = 0
        for out in (t.get('stdout') or t.get('stdo') or '').splitlines():
            if out.startswith('ok '):
                ok += 1
            elif out.startswith('not ok '):
                nok += 1
        if ok + nok == 0:
            ok = 1 if t['result'] in ('OK', 'EXPECTEDFAIL', 'SKIP') else 0
        if t['result'] not in ('OK', 'EXPECTEDFAIL', 'SKIP') and nok == 0:
            nok = 1
        passed += ok
        failed += nok
print(passed, failed)
