"""The test guest's console, as the host-side scripts read it.

The guest's /init writes marker lines, "AGX-TEST: <text>", to the same
UART the kernel logs to.  Since Linux 7.x the kernel's console output can
land in the middle of a line /init is writing, so a kernel record may
sit inside one of our marker lines; the rest of that line follows the
record.  MarkerReader puts such lines back together.
"""
import re

MARK = 'AGX-TEST: '
# A kernel log record's timestamp
KREC = re.compile(r'\[\s*\d+\.\d{6}\] ')


class MarkerReader:
    """Turn console lines into the texts of our marker lines."""

    def __init__(self):
        self.pending = None     # a marker line cut short by a kernel record

    def feed(self, line):
        """Return the text after MARK, or None if line completes none."""
        if self.pending is not None:
            if KREC.match(line):
                return None
            line, self.pending = self.pending + line, None
        if MARK not in line:
            return None
        start = line.index(MARK) + len(MARK)
        cut = KREC.search(line, start)
        if cut:
            self.pending = line[:cut.start()]
            return None
        return line[start:]


def self_test():
    """The parser against console output seen from Linux 7.3."""
    cases = [
        (['AGX-TEST: PASS[    1.207561] agx: done', ''], ['PASS']),
        (['AGX-TEST: host: qom-set /a b "c"[    1.031535] x: y',
          '[    1.031637] z', ''], ['host: qom-set /a b "c"']),
        (['AGX-TEST: ho[    2.000001] k', 'st: x'], ['host: x']),
        (['[    0.500000] k', 'AGX-TEST: FAIL x'], ['FAIL x']),
    ]
    for lines, want in cases:
        reader = MarkerReader()
        got = [t for t in map(reader.feed, lines) if t is not None]
        if got != want:
            print('not ok: %r gave %r, want %r' % (lines, got, want))
            return 1
    have = parse_fields('a=0x1 b.c=0x20')
    if (check_fields(have, {'a': 1}) or
            check_fields(have, {'b.c': 0x21}) != ['b.c=0x20, want 0x21'] or
            check_fields(have, {'d': 0}) != ['d missing (want 0x0)']):
        print('not ok: qom-fields comparison')
        return 1
    print('ok: %d cases' % (len(cases) + 1))
    return 0


def parse_fields(text):
    """'a=0x1 b=0x2' -> {'a': 1, 'b': 2}"""
    fields = {}
    for item in text.split():
        name, _, value = item.partition('=')
        fields[name] = int(value, 0)
    return fields


def check_fields(have, want):
    """The fields of want that have lacks or differs in, as text."""
    bad = []
    for name, value in want.items():
        if name not in have:
            bad.append('%s missing (want 0x%x)' % (name, value))
        elif have[name] != value:
            bad.append('%s=0x%x, want 0x%x' % (name, have[name], value))
    return bad
