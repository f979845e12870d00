#!/usr/bin/env python3
"""Boot the test guest on -M apple-m1 and judge the result.

The guest's /init prints "AGX-TEST: PASS" or "AGX-TEST: FAIL <step>" and
powers off; on failure it exits through semihosting with status 1.  It can
ask the host to act with "AGX-TEST: host: <verb> [args]": the harness then
does it over QMP (so crashes are injected from the host, as a developer
would with qom-set).  A hang is a failure after --timeout seconds.
--expect-line REGEX (repeatable): the run also needs a console line
matching REGEX (re.search), so an expected failure fails for its own
reason.

usage: boot-test.py [--expect-fail] [--expect-line REGEX] [--timeout S]
                    [--log FILE] --qemu BIN --kernel IMAGE
                    (--initrd CPIO | --disk IMG)
                    [--append ARGS] [-- extra QEMU args]

--disk boots the ext4 image of scripts/build-mesa-guest.sh from a
read-only virtio-blk disk (root=/dev/vda, init=/init.sh) instead of an
initramfs.
"""
import argparse
import atexit
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

from agx_console import MarkerReader, check_fields, parse_fields, self_test
from agx_qmp import QMP

# Property values the guest asked to remember (qom-save), by name
saved = {}


def host_action(qmp, words):
    """Carry out one request of the guest."""
    if words[0] == 'qom-set' and len(words) == 4:
        value = json.loads(words[3])
        qmp.cmd('qom-set', path=words[1], property=words[2], value=value)
    elif words[0] == 'qom-fields' and len(words) >= 4:
        # A "name=0x... ..." property must hold these fields
        have = parse_fields(qmp.cmd('qom-get', path=words[1],
                                    property=words[2]))
        bad = check_fields(have, parse_fields(' '.join(words[3:])))
        if bad:
            raise RuntimeError('%s %s: %s' % (words[1], words[2],
                                              '; '.join(bad)))
    elif words[0] == 'qom-save' and len(words) == 4:
        # Remember a number property's value under a name
        saved[words[3]] = qmp.cmd('qom-get', path=words[1],
                                  property=words[2])
    elif words[0] == 'qom-expect' and len(words) == 4:
        # A number property must have this value now
        now = qmp.cmd('qom-get', path=words[1], property=words[2])
        if now != int(words[3], 0):
            raise RuntimeError('%s %s: %d, want %s' %
                               (words[1], words[2], now, words[3]))
    elif words[0] == 'qom-delta' and len(words) == 5:
        # It must have moved by this much since qom-save
        now = qmp.cmd('qom-get', path=words[1], property=words[2])
        if words[3] not in saved:
            raise RuntimeError('qom-delta: nothing saved as %s' % words[3])
        if now - saved[words[3]] != int(words[4]):
            raise RuntimeError('%s %s: %d, %s saved %d, want %+d' %
                               (words[1], words[2], now, words[3],
                                saved[words[3]], int(words[4])))
    elif words[0] == 'qom-delta-min' and len(words) == 5:
        # It must have moved by at least this much since qom-save
        now = qmp.cmd('qom-get', path=words[1], property=words[2])
        if words[3] not in saved:
            raise RuntimeError('qom-delta-min: nothing saved as %s' %
                               words[3])
        if now - saved[words[3]] < int(words[4]):
            raise RuntimeError('%s %s: %d, %s saved %d, want at least %+d' %
                               (words[1], words[2], now, words[3],
                                saved[words[3]], int(words[4])))
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
    ap.add_argument('--expect-line', action='append', default=[])
    ap.add_argument('--log')
    ap.add_argument('extra', nargs='*')
    opt = ap.parse_args()

    # The QMP socket's folder, gone when this script ends, however it ends
    tmp = tempfile.mkdtemp(prefix='agx-boot-')
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
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
    wanted = [re.compile(r) for r in opt.expect_line]
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
            wanted = [r for r in wanted if not r.search(line)]
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
    for r in wanted:
        log.write('boot-test: no line matched %r\n' % r.pattern)
    log.write('boot-test: verdict=%s exit=%d time=%.1fs%s\n' %
              (verdict, rc, elapsed, ' TIMEOUT' if timed_out else ''))
    if opt.expect_fail:
        ok = (not timed_out and verdict is not None and
              verdict.startswith('FAIL'))
    else:
        ok = not timed_out and verdict == 'PASS' and rc == 0
    return 0 if ok and not wanted else 1


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    sys.exit(main())
