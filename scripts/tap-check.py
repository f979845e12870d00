#!/usr/bin/env python3
"""Judge the TAP lines one step of the Mesa guest printed.

A guest program (tests/guest/mesa/vk-ops.c) prints one line per check,
"ok N name", "not ok N name - why" or "ok N name # SKIP why", between the
init script's "AGX-MESA: step STEP" and "AGX-MESA: step STEP done" lines.
This script reads a boot's console log, takes that step's lines (put
back together where a kernel record cut one, as agx_console does for
markers) and checks them against an expectation:

  all          every check passed or was skipped, and there was at least one
  NAME,NAME    these checks passed (the others may fail: a capability
               that is not there yet); a name ending in '/' stands for
               every check under it

Prints one summary line, e.g. "vk-ops: 1 of 28 passed (expected 1), ..."
and exits 0 if the expectation holds, 1 if not.

With --count, every check is counted: one that passed, or that failed or
was skipped and is named in KNOWN (the same NAME,NAME/ list, or a glob:
failures and skips with a documented reason) counts as passed; any other failure or
skip counts as failed and is printed as "not ok STEP/NAME - why".  The
last line is "PASSED FAILED"; no check at all is one failure.

usage: tap-check.py LOG STEP EXPECT
       tap-check.py --count LOG STEP KNOWN
       tap-check.py --self-test
"""
import fnmatch
import re
import sys

from agx_console import KREC

TAP = re.compile(r'^(not ok|ok) (\d+) ([^ ]+)(?: - (.*?))?(?: # SKIP (.*))?$')
STARTS = ('ok ', 'not ok ', 'AGX-MESA: ')


class LineReader:
    """Whole TAP and AGX-MESA lines from console lines."""

    def __init__(self):
        self.pending = None

    def feed(self, line):
        if self.pending is not None:
            if KREC.match(line):
                return None
            line, self.pending = self.pending + line, None
        start = [line.index(s) for s in STARTS if s in line]
        if not start:
            return None
        line = line[min(start):]
        cut = KREC.search(line)
        if cut:
            self.pending = line[:cut.start()]
            return None
        return line


def step_results(lines, step):
    """{name: (verdict, why)} of the step's TAP lines, in order."""
    reader = LineReader()
    inside = False
    results = {}
    for raw in lines:
        line = reader.feed(raw.rstrip('\r\n'))
        if line is None:
            continue
        if line.startswith('AGX-MESA: step '):
            inside = line == 'AGX-MESA: step ' + step
            continue
        m = TAP.match(line) if inside else None
        if m:
            verdict = 'skip' if m.group(5) is not None else \
                      'ok' if m.group(1) == 'ok' else 'fail'
            results[m.group(3)] = (verdict, m.group(4) or m.group(5) or '')
    return results


def judge(results, step, expect):
    """(ok, summary line)"""
    passed = [n for n, (v, _) in results.items() if v == 'ok']
    failed = [n for n, (v, _) in results.items() if v == 'fail']
    skipped = [n for n, (v, _) in results.items() if v == 'skip']
    text = '%s: %d of %d passed, %d failed, %d skipped' % (
        step, len(passed), len(results), len(failed), len(skipped))
    if expect == 'all':
        ok = bool(results) and not failed
        text += '; all must pass'
        if failed:
            text += '; failed: ' + ','.join(failed)
        return ok, text
    want = [w for w in expect.split(',') if w]
    missing = []
    for w in want:
        names = [n for n in results if n == w or
                 (w.endswith('/') and n.startswith(w))]
        if not names or any(results[n][0] != 'ok' for n in names):
            missing.append(w)
    extra = [n for n in passed
             if not any(n == w or (w.endswith('/') and n.startswith(w))
                        for w in want)]
    text += '; expected to pass: %s' % ','.join(want)
    if missing:
        text += '; NOT passing: %s' % ','.join(missing)
    if extra:
        text += '; also passing: %s' % ','.join(extra)
    return not missing, text


def listed(name, names):
    """Whether NAME is in the NAME,NAME/,GLOB list"""
    return any(name == w or (w.endswith('/') and name.startswith(w)) or
               fnmatch.fnmatchcase(name, w)
               for w in names.split(',') if w)


def count(results, step, known):
    """(lines to print, passed, failed)"""
    out = []
    passed = failed = 0
    for name, (verdict, why) in results.items():
        if verdict == 'ok' or listed(name, known):
            passed += 1
        else:
            failed += 1
            out.append('not ok %s/%s - %s%s' % (
                step, name, 'skipped: ' if verdict == 'skip' else '', why))
    if not results:
        failed = 1
        out.append('not ok %s: no results' % step)
    return out, passed, failed


def self_test():
    log = ['AGX-MESA: step vk-ops', 'vk-ops: device x',
           'ok 1 fill-buffer/whole', 'not ok 2 copy-b[    1.000001] k: y',
           '[    1.000002] z', 'uffer - 1 of 4 words differ',
           'ok 3 cs/int16 # SKIP no shaderInt16',
           'AGX-MESA: step vk-ops done', 'AGX-MESA: step vk-ops-lavapipe',
           'ok 1 copy-buffer']
    res = step_results(log, 'vk-ops')
    want = {'fill-buffer/whole': ('ok', ''),
            'copy-buffer': ('fail', '1 of 4 words differ'),
            'cs/int16': ('skip', 'no shaderInt16')}
    cases = [(res == want, 'parse %r' % res),
             (judge(res, 'vk-ops', 'fill-buffer/whole')[0], 'one expected'),
             (not judge(res, 'vk-ops', 'all')[0], 'all with a failure'),
             (not judge(res, 'vk-ops', 'copy-buffer')[0], 'failing expected'),
             (judge(res, 'vk-ops', 'fill-buffer/')[0], 'group'),
             (not judge({}, 'vk-ops', 'all')[0], 'no lines'),
             (not judge(res, 'vk-ops', 'event/set')[0], 'missing'),
             (count(res, 'vk-ops', '')[1:] == (1, 2), 'count'),
             (count(res, 'vk-ops', 'copy-buffer,cs/')[1:] == (3, 0),
              'count known'),
             (count({}, 'vk-ops', '')[1:] == (0, 1), 'count nothing'),
             (count(res, 'vk-ops', 'copy-*,*/int16')[1:] == (3, 0),
              'count globs')]
    bad = [what for ok, what in cases if not ok]
    for what in bad:
        print('not ok: %s' % what)
    if not bad:
        print('ok: %d cases' % len(cases))
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    if len(sys.argv) == 5 and sys.argv[1] == '--count':
        with open(sys.argv[2], errors='replace') as f:
            results = step_results(f, sys.argv[3])
        out, passed, failed = count(results, sys.argv[3], sys.argv[4])
        for line in out:
            print(line)
        print(passed, failed)
        return 0
    if len(sys.argv) != 4:
        print(__doc__.split('usage: ')[1], end='')
        return 2
    with open(sys.argv[1], errors='replace') as f:
        results = step_results(f, sys.argv[2])
    ok, text = judge(results, sys.argv[2], sys.argv[3])
    print(text)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
