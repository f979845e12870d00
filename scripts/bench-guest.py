#!/usr/bin/env python3
"""Benchmarks of the test guest on -M apple-m1, printed as figures.

idle: the host CPU time QEMU uses while the guest sleeps for --idle
seconds, with the GPU firmware booted (RTKit, InitData, Initialize) and
without it (GPU present, never started); their ratio is what a booted
GPU costs an idle VM (1.00 = nothing).
jobs: the asahi driver's gpu-jobs self-test figures (jobs/s inside the
guest), after its rtkit-boot and gpu-init self-tests.
uapi (with --uapi N): N no-op compute submissions through the asahi
UAPI on one queue and on four, end to end (the guest's asahi-uapi
/asahi/bench/ tests; needs the asahi DRM driver in the guest).

usage: bench-guest.py --qemu BIN --kernel IMAGE --initrd CPIO [--idle S]
                      [--uapi N]
"""
import argparse
import os
import re
import subprocess
import sys
import time

from agx_console import MarkerReader


def cpu_seconds(pid):
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def boot(args, steps, extra=(), append=''):
    """Boot with agx.steps=steps; returns (console lines, idle CPU s)."""
    cmd = [args.qemu, '-M', 'apple-m1', '-m', '2G', '-smp', '4',
           '-display', 'none', '-serial', 'stdio', '-monitor', 'none',
           '-no-reboot', '-kernel', args.kernel, '-initrd', args.initrd,
           '-append', 'console=ttyAMA0 panic=-1 agx.steps=%s agx.idle=%d %s'
           % (steps, args.idle, append)] + list(extra)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines, start, idle, passed = [], None, None, False
    markers = MarkerReader()
    deadline = time.time() + args.idle + 120
    for line in proc.stdout:
        lines.append(line.rstrip())
        text = markers.feed(lines[-1])
        if text == 'step idle: start':
            start = cpu_seconds(proc.pid)
        elif (text is not None and text.startswith('step idle: ok') and
              start is not None):
            idle = cpu_seconds(proc.pid) - start
        elif text == 'PASS':
            passed = True
        if time.time() > deadline:
            proc.kill()
            break
    proc.wait()
    if not passed:
        sys.stderr.write('\n'.join(lines[-20:]) + '\n')
        raise SystemExit('bench-guest: boot with %s failed' % steps)
    return lines, idle


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--qemu', required=True)
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--initrd', required=True)
    ap.add_argument('--idle', type=int, default=30)
    ap.add_argument('--uapi', type=int, default=0)
    args = ap.parse_args()

    _, off = boot(args, 'kernel-alive,idle')
    _, on = boot(args, 'kernel-alive,rtkit-boot,gpu-init,idle')
    print('guest idle %d s: host CPU %.2f s with the GPU firmware up, '
          '%.2f s without: ratio %.2f' % (args.idle, on, off,
                                          on / off if off else float('nan')))
    lines, _ = boot(args, 'kernel-alive,rtkit-boot,gpu-init,gpu-jobs,gpu-jobs')
    for l in lines:
        m = re.search(r'gpu-jobs: (\d+ jobs .*jobs/s); (.*)', l)
        if m:
            print('guest gpu-jobs: %s; %s' % (m.group(1), m.group(2)))
        m = re.search(r'gpu-init: .*(Initialize consumed in \d+ us)', l)
        if m:
            print('guest gpu-init: %s (RUN to Initialize, guest time)'
                  % m.group(1))
    if args.uapi:
        lines, _ = boot(args, 'kernel-alive,asahi-uapi',
                        append='agx.uapi=/asahi/bench/ agx.uapi-bench=%d'
                        % args.uapi)
        rate = {}
        for l in lines:
            m = re.search(r'uapi: bench: (.*)', l)
            if m:
                print('guest asahi UAPI: %s' % m.group(1))
                r = re.search(r'on (\d+) queue.* ([\d.]+) submits/s',
                              m.group(1))
                if r:
                    rate[int(r.group(1))] = float(r.group(2))
        if 1 in rate and len(rate) > 1:
            n = max(rate)
            print('guest asahi UAPI: %d queues / 1 queue: %.2f '
                  '(%.0f / %.0f submits/s)' % (n, rate[n] / rate[1],
                                               rate[n], rate[1]))


if __name__ == '__main__':
    main()
