#!/usr/bin/env python3
"""Run the guest's UAPI fuzzer (tests/guest/uapi-fuzz) and keep what it finds.

Boots the test guest with the fuzz step, streams its console and:
  - saves every program the fuzzer kept for new coverage in OUT/corpus/
    (the next run starts from them: scripts/fuzz-driver.sh packs them as
    /fuzz/saved);
  - saves programs the fuzzer had to kill (slow) in OUT/slow/;
  - saves a reproducer in OUT/repro/ when the fuzzer reports one, or when
    the kernel dies (panic_on_warn, an oops in interrupt context): then
    the last program the guest printed before running it (agx.fuzz-log=1);
  - turns the PCs of the asahi module the fuzzer reached (its fuzz-cov
    lines) into source lines of drivers/gpu/drm/asahi/ with the module's
    debug info (--ko): the lines of the instructions of each basic block
    KCOV saw run, against those of all instrumented blocks;
  - prints the programs/s, the coverage and what was found.
The console goes to OUT/console-DATE.log without the fuzz-exec lines (one
per program).  Exit status 0 when the guest passed and nothing was found.

usage: fuzz-driver.py --qemu BIN --kernel IMAGE --initrd CPIO --out DIR
                      [--ko asahi.ko] [--append ARGS] [--timeout S]
                      [-- extra QEMU args]
"""
import argparse
import collections
import hashlib
import os
import re
import select
import subprocess
import sys
import time

from agx_console import MarkerReader

CROSS = 'aarch64-linux-gnu-'


def prog_text(line):
    """A program's one-line form, as a file: one call per line."""
    return '\n'.join(c.strip() for c in line.split(' ; ')) + '\n'


def save(path, text):
    with open(path + '.tmp', 'w') as f:
        f.write(text)
    os.rename(path + '.tmp', path)


def blocks(ko):
    """The module's code as KCOV sees it, per text section: for each
    callsite (the return address KCOV records: the call plus 4), the
    source lines of the instructions of its basic block, that is from the
    call to the next one (a function's prologue goes with its first)."""
    out = subprocess.run([CROSS + 'objdump', '-dlr', ko], check=True,
                         capture_output=True, text=True).stdout
    res = collections.defaultdict(dict)
    section = None
    line = None
    pending = []        # lines of a function's instructions before a call
    current = None      # the block being filled
    for text in out.splitlines():
        m = re.match(r'Disassembly of section (\S+):', text)
        if m:
            section, current, pending = m.group(1), None, []
            continue
        if re.match(r'[0-9a-f]+ <.*>:$', text):
            current, pending = None, []
            continue
        m = re.match(r'(\S+\.[ch]):(\d+)', text)
        if m:
            line = '%s:%s' % (m.group(1), m.group(2))
            continue
        m = re.match(r'\s+([0-9a-f]+): R_AARCH64_CALL26\s+'
                     r'__sanitizer_cov_trace_pc', text)
        if m and section:
            current = res[section].setdefault(int(m.group(1), 16) + 4,
                                              set(pending))
            pending = []
            continue
        if re.match(r'\s+[0-9a-f]+:\t', text) and line:
            if current is None:
                pending.append(line)
            else:
                current.add(line)
    return res


def coverage(ko, reached):
    """Prints line coverage of drivers/gpu/drm/asahi/: the lines of the
    instructions in the basic blocks KCOV saw run, against those of all
    instrumented blocks; returns (hit, all, missed lines)."""
    mark = 'drivers/gpu/drm/asahi/'
    all_lines, hit_lines, sites, seen = set(), set(), 0, 0
    for section, blks in blocks(ko).items():
        got = reached.get(section, set())
        for pc, lines in blks.items():
            lines = {x[x.index(mark):] for x in lines if mark in x}
            all_lines |= lines
            sites += 1
            if pc in got:
                hit_lines |= lines
                seen += 1
    per_file = collections.defaultdict(lambda: [0, 0])
    for line in all_lines:
        name = line.rsplit(':', 1)[0]
        per_file[name][1] += 1
        per_file[name][0] += line in hit_lines
    for name in sorted(per_file):
        hit, total = per_file[name]
        print('  %-44s %5d of %5d lines (%.0f%%)' %
              (name, hit, total, 100.0 * hit / total))
    print('fuzz-driver: %d of %d KCOV basic blocks of the module reached' %
          (seen, sites))
    return len(hit_lines), len(all_lines), sorted(all_lines - hit_lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--qemu', required=True)
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--initrd', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--ko')
    ap.add_argument('--append', default='')
    ap.add_argument('--timeout', type=float, default=600)
    ap.add_argument('extra', nargs='*')
    opt = ap.parse_args()

    for d in ('corpus', 'repro', 'slow'):
        os.makedirs(os.path.join(opt.out, d), exist_ok=True)
    cmd = [opt.qemu, '-M', 'apple-m1', '-m', '2G', '-display', 'none',
           '-serial', 'stdio', '-monitor', 'none', '-no-reboot',
           '-kernel', opt.kernel, '-initrd', opt.initrd,
           '-append', 'console=ttyAMA0 panic=-1 ' + opt.append] + opt.extra
    stamp = time.strftime('%Y%m%d-%H%M%S')
    log_name = os.path.join(opt.out, 'console-%s.log' % stamp)
    log = open(log_name, 'w')
    log.write('$ %s\n' % ' '.join(cmd))
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    start = time.monotonic()
    markers = MarkerReader()
    buf = b''
    last_exec = None
    verdict = None
    panicked = False
    repros = []
    reached = collections.defaultdict(set)
    figures = []
    new = 0
    slow = 0
    timed_out = False

    def add_repro(reason, text):
        name = os.path.join(opt.out, 'repro', '%s-%d.prog' %
                            (stamp, len(repros)))
        save(name, '# %s\n' % reason + prog_text(text))
        repros.append((reason, name))
        print('fuzz-driver: reproducer (%s) saved as %s' % (reason, name))

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
            if 'Kernel panic' in line:
                panicked = True
            if re.match(r'(not )?ok \d+ ', line):
                print(line)         # replay's verdict per program
            text = markers.feed(line)
            if text is None or not text.startswith('fuzz-exec: '):
                log.write(line + '\n')
            if text is None:
                continue
            if text.startswith('fuzz-exec: '):
                last_exec = text[len('fuzz-exec: '):]
            elif text.startswith('fuzz-new '):
                prog = text.split(': ', 1)[1]
                h = hashlib.sha1(prog.encode()).hexdigest()[:16]
                save(os.path.join(opt.out, 'corpus', h + '.prog'),
                     prog_text(prog))
                new += 1
            elif text.startswith('fuzz-repro '):
                reason, prog = text[len('fuzz-repro '):].split(': ', 1)
                if prog.startswith('('):
                    repros.append((reason, None))
                else:
                    add_repro(reason, prog)
            elif text.startswith('fuzz-slow '):
                prog = text.split(': ', 1)[1]
                h = hashlib.sha1(prog.encode()).hexdigest()[:16]
                save(os.path.join(opt.out, 'slow', h + '.prog'),
                     '# %s\n' % text.split(':', 1)[0] + prog_text(prog))
                slow += 1
            elif text.startswith('fuzz-cov '):
                words = text.split()
                reached[words[1]].update(int(w, 16) for w in words[2:])
            elif text.startswith('fuzz: '):
                print(text)
                figures.append(text)
            elif text == 'PASS' or text.startswith('FAIL'):
                verdict = verdict or text
    rc = proc.wait()
    log.close()
    if panicked and not repros:
        if last_exec:
            add_repro('kernel panic', last_exec)
        else:
            repros.append(('kernel panic', None))
    if timed_out and not repros:
        if last_exec:
            add_repro('guest hung', last_exec)
        else:
            repros.append(('guest hung', None))

    print('fuzz-driver: %d programs kept for new coverage, saved in %s' %
          (new, os.path.join(opt.out, 'corpus')))
    if slow:
        print('fuzz-driver: %d programs still ran after 10 s (killed), in %s'
              % (slow, os.path.join(opt.out, 'slow')))
    if opt.ko and reached:
        hit, total, missed = coverage(opt.ko, reached)
        save(os.path.join(opt.out, 'uncovered.txt'), '\n'.join(missed) + '\n')
        print('fuzz-driver: driver coverage: %d of %d lines of '
              'drivers/gpu/drm/asahi/ (%.1f%%); uncovered lines in %s' %
              (hit, total, 100.0 * hit / max(total, 1),
               os.path.join(opt.out, 'uncovered.txt')))
    for reason, name in repros:
        print('fuzz-driver: FOUND %s%s' % (reason, ': ' + name if name
                                             else ' (see %s)' % log_name))
    print('fuzz-driver: verdict=%s exit=%d%s; console in %s' %
          (verdict, rc, ' TIMEOUT' if timed_out else '', log_name))
    return 0 if verdict == 'PASS' and not repros else 1


if __name__ == '__main__':
    sys.exit(main())
