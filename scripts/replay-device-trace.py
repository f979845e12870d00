#!/usr/bin/env python3
"""Replay device fuzzer reproducers on -M apple-m1, and migrate midway.

Each trace is a qtest command list (one command a line, as QEMU's
scripts/oss-fuzz/reorder_fuzzer_qtest_trace.py writes what generic-fuzz
did: MMIO, DMA answers as memory writes, clock steps).  For each trace
this runs two TAP tests on the ordinary qemu-system-aarch64:
  replay:  all commands, then QEMU must still answer and exit cleanly;
  migrate: the first half, migration to a file, a new QEMU restoring it
           (-incoming), the second half, then the same checks.
A crash, an abort, a hang (--timeout) or an error on restore fails.

usage: replay-device-trace.py --qemu BIN [--timeout S] TRACE|DIR...
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

from agx_qmp import QMP

# What make fuzz-device fuzzes (its QEMU_FUZZ_ARGS and generic-fuzz's -m)
MACHINE = ['-M', 'apple-m1', '-smp', '1', '-m', '512M']
# Any register read answers once every command before it has run
ALIVE = 'readl 0x206400000\n'


class Qemu:
    """qemu-system-aarch64 under qtest on stdio, with a QMP socket."""

    def __init__(self, binary, tmp, extra=()):
        self.qmp_path = os.path.join(tmp, 'qmp-%d.sock' % time.monotonic_ns())
        self.proc = subprocess.Popen(
            [binary] + MACHINE + ['-display', 'none', '-accel', 'qtest',
                                  '-qtest', 'stdio', '-qmp',
                                  'unix:%s,server=on,wait=off' % self.qmp_path,
                                  '-d', 'guest_errors,unimp', '-D', os.devnull]
            + list(extra),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        self.qmp = QMP(self.qmp_path)

    def run(self, commands):
        """Send commands, one reply each; True if all were answered."""
        for line in commands:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
            if not self.proc.stdout.readline():
                return False
        return True

    def finish(self, timeout):
        """Quit over QMP; the exit status and stderr are kept."""
        try:
            if self.proc.poll() is None:
                self.qmp.cmd('quit')
        except (OSError, ValueError, RuntimeError):
            pass
        try:
            _, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return False, 'hang'
        if os.path.exists(self.qmp_path):
            os.unlink(self.qmp_path)
        return self.proc.returncode == 0, err.strip()[-400:]


def commands(path):
    with open(path) as f:
        return [line if line.endswith('\n') else line + '\n'
                for line in f if line.strip() and not line.startswith('#')]


def replay(binary, cmds, timeout, tmp):
    q = Qemu(binary, tmp)
    ok = q.run(cmds + [ALIVE])
    done, err = q.finish(timeout)
    return ok and done, err


def replay_migrate(binary, cmds, timeout, tmp):
    half = len(cmds) // 2
    uri = 'file:' + os.path.join(tmp, 'mig-%d' % time.monotonic_ns())
    src = Qemu(binary, tmp)
    if not src.run(cmds[:half]):
        return False, 'source died: ' + src.finish(timeout)[1]
    src.qmp.cmd('migrate', uri=uri)
    src.qmp.wait_migration(timeout)
    done, err = src.finish(timeout)
    if not done:
        return False, 'source: ' + err
    dst = Qemu(binary, tmp, ['-incoming', uri])
    dst.qmp.wait_migration(timeout)
    ok = dst.run(cmds[half:] + [ALIVE])
    done, err = dst.finish(timeout)
    os.unlink(uri[len('file:'):])
    return ok and done, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--qemu', required=True)
    ap.add_argument('--timeout', type=float, default=60)
    ap.add_argument('traces', nargs='+')
    args = ap.parse_args()

    files = []
    for t in args.traces:
        if os.path.isdir(t):
            files += sorted(os.path.join(t, n) for n in os.listdir(t))
        else:
            files.append(t)
    print('1..%d' % (2 * len(files)))
    n = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            cmds = commands(path)
            name = os.path.basename(path)
            for kind, fn in (('replay', replay), ('migrate', replay_migrate)):
                n += 1
                try:
                    ok, err = fn(args.qemu, cmds, args.timeout, tmp)
                except (RuntimeError, OSError, ValueError) as e:
                    ok, err = False, str(e)
                print('%s %d - %s %s (%d commands)%s' %
                      ('ok' if ok else 'not ok', n, kind, name, len(cmds),
                       '' if ok else ': ' + err.replace('\n', ' | ')))
                failed += not ok
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
