#!/usr/bin/env python3
"""Boot the test guest on -M apple-m1 and judge the result.

The guest's /init prints "AGX-TEST: PASS" or "AGX-TEST: FAIL <step>" and
powers off; on failure it exits through semihosting with status 1.  It can
ask the host to act with "AGX-TEST: host: <verb> [args]": the harness then
does it over QMP (so crashes are injected from the host, as a developer
would with qom-set).  A hang is a failure after --timeout seconds.

usage: boot-test.py [--expect-fail] [--timeout S] [--log FILE]
                    --qemu BIN --kernel IMAGE (--initrd CPIO | --disk IMG)
                    [--append ARGS] [-- extra QEMU args]

--disk boots the ext4 image of scripts/build-mesa-guest.sh from a
read-only virtio-blk disk (root=/dev/vda, init=/init.sh) instead of an
initramfs.
"""
import argparse
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time

from agx_qmp import QMP

MARK = 'AGX-TEST: '
# A kernel log record: since Linux 7.x the kernel's console output can land
# in the middle of a line /init is writing to the same UART, so a record
# may sit inside one of our marker lines; the rest of that line follows
# the record.
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
    print('ok: %d cases' % len(cases))
    return 0


def host_action(qmp, words):
    """Carry out one request of the guest."""
    if words[0] == 'qom-set' and len(words) == 4:
        value = json.loads(words[3])
        qmp.cmd('qom-set', path=words[1], property=words[2], value=value)
    else:
        raise RuntimeError('unknown host request: %s' % ' '.join(words))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--qemu', required=True)
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--initrd')
    ap.add_argument('--disk')
    ap.add_argument('--append', default='')
    ap.add_argument('--timeout', type=float, default=180)
    ap.add_argument('--expect-fail', action='store_true')
    ap.add_argument('--log')
    ap.add_argument('extra', nargs='*')
    opt = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix='agx-boot-')
    qmp_path = os.path.join(tmp, 'qmp.sock')
    cmd = [opt.qemu, '-M', 'apple-m1', '-m', '2G', '-display', 'none',
           '-serial', 'stdio', '-monitor', 'none', '-no-reboot',
           '-qmp', 'unix:%s,server=on,wait=off' % qmp_path,
           '-semihosting-config', 'enable=on,target=native,userspace=on',
           '-kernel', opt.kernel]
    append = 'console=ttyAMA0 panic=-1 agx.semihost=1 '
    if opt.disk:
        cmd += ['-drive', 'file=%s,if=none,format=raw,readonly=on,id=root'
                % opt.disk, '-device', 'virtio-blk-device,drive=root']
        append += 'root=/dev/vda rootfstype=ext4 ro init=/init.sh '
    elif opt.initrd:
        cmd += ['-initrd', opt.initrd]
    else:
        ap.error('one of --initrd and --disk is required')
    cmd += ['-append', append + opt.append] + opt.extra
    log = open(opt.log, 'w') if opt.log else sys.stdout
    log.write('$ %s\n' % ' '.join(cmd))
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    qmp = None
    verdict = None
    buf = b''
    markers = MarkerReader()
    timed_out = False
    while True:
        left = start + opt.timeout - time.monotonic()
        if left <= 0:
            timed_out = True
            proc.kill()
            break
        ready, _, _ = select.select([proc.stdout], [], [], min(left, 1.0))
        if not ready:
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        buf += chunk
        while b'\n' in buf:
            raw, buf = buf.split(b'\n', 1)
            line = raw.decode('utf-8', 'replace').rstrip('\r')
            log.write(line + '\n')
            text = markers.feed(line)
            if text is None:
                continue
            if text.startswith('host: '):
                try:
                    qmp = qmp or QMP(qmp_path)
                    host_action(qmp, text[6:].split())
                except Exception as e:     # a broken request fails the test
                    log.write('boot-test: %s\n' % e)
                    verdict = verdict or 'FAIL host-request'
            elif text == 'PASS' or text.startswith('FAIL'):
                verdict = verdict or text
    rc = proc.wait()
    elapsed = time.monotonic() - start
    log.write('boot-test: verdict=%s exit=%d time=%.1fs%s\n' %
              (verdict, rc, elapsed, ' TIMEOUT' if timed_out else ''))
    if opt.expect_fail:
        ok = (not timed_out and verdict is not None and
              verdict.startswith('FAIL'))
    else:
        ok = not timed_out and verdict == 'PASS' and rc == 0
    return 0 if ok else 1


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    sys.exit(main())
