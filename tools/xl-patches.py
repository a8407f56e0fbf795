#!/usr/bin/env python3
"""The toolstack patches of one Xen series, the feature written once.

Every user takes them from here (tools/build-xl-phy1.sh,
tests/xl/patch-drift.sh, tests/docs/check-xenstore-keys.sh):

  tools/xl-patches.py print SERIES        the libxl patches of SERIES, on
                                          stdout (the series concatenated)
  tools/xl-patches.py apply SERIES DIR    it and the xenstat patch onto the
                                          Xen source tree DIR
  tools/xl-patches.py inputs SERIES       the files the result is made of
  tools/xl-patches.py fixup SERIES PATCH  the fix-up that makes the whole
                                          PATCH of the base, on stdout

tools/libxl-phy1/*.patch carry the feature, against Debian 12's Xen 4.17
(SERIES 4.17): a git format-patch series, one concern each (the man page,
libxl's types and device glue, libxl_disk.c, libxlu's parser), applied in
the order of their names (`apply` takes them one by one).  The base is
that series concatenated, as `print` writes it.  Another series applies
tools/libxl-phy1-SERIES.fixup to it: a diff of the base (not of Xen) that
changes only what truly differs there, the lines that must read otherwise
(4.20: the man page's backend list has "tap", the device kind is 21 not
18) and the context of hunks that would not apply; tests/xl/patch-drift.sh
checks that it stays so.  The fix-up sees the patch with its hunk headers
stripped to "@@ @@" (no line numbers, no counts), so that a change to the
feature elsewhere, or inside a hunk it fixes up, leaves it applying; the
headers are then rebuilt: the base's line numbers, the counts of the lines
now there.  patch runs with --fuzz=0 in both steps: offsets only, and a
hunk whose context differs fails loudly (exit 1) instead of landing
elsewhere.  libxenstat's patches differ in their code (4.20's parser and
back types changed): one per series, tools/xenstat-fipcblk[-SERIES].patch.

When a change near a line the fix-up changes breaks it: make the series'
whole patch (the last `print` output changed by hand: it keeps the base's
headers and order of files, which a `git diff` would not), run
`tools/xl-patches.py fixup SERIES WHOLE > new` and move new over
tools/libxl-phy1-SERIES.fixup (its header comment is kept).
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, 'libxl-phy1')
BASE_SERIES = '4.17'
HUNK = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$')
BARE = re.compile(r'^@@ @@(.*)$')
# git's metadata, which differs between two exports of one change
META = re.compile(r'^(From [0-9a-f]{40} |Date: |index [0-9a-f]+\.\.)')


def die(msg):
    sys.exit('xl-patches: error: ' + msg)


def files(series, need_fixup=True):
    """The fix-up (None for the base series) and xenstat patch of SERIES."""
    if series == BASE_SERIES:
        fixup, xenstat = None, os.path.join(HERE, 'xenstat-fipcblk.patch')
    else:
        fixup = os.path.join(HERE, 'libxl-phy1-%s.fixup' % series)
        xenstat = os.path.join(HERE, 'xenstat-fipcblk-%s.patch' % series)
        if need_fixup and not os.path.exists(fixup):
            die('no fix-up for Xen %s (%s)' % (series, fixup))
    if not os.path.exists(xenstat):
        die('missing ' + xenstat)
    return fixup, xenstat


def read(path):
    with open(path) as f:
        return f.read().split('\n')


def base_files():
    """The base series' patches, in the order they apply."""
    names = sorted(n for n in os.listdir(BASE) if n.endswith('.patch'))
    if not names:
        die('no patches in ' + BASE)
    return [os.path.join(BASE, n) for n in names]


def read_base():
    """The base series concatenated, as lines."""
    text = ''
    for path in base_files():
        with open(path) as f:
            text += f.read()
    return text.split('\n')


def bare(lines):
    """The patch with each hunk header stripped to "@@ @@<function>"."""
    return [HUNK.sub(r'@@ @@\5', line) for line in lines]


def in_body(lines, j):
    """Whether lines[j] continues a hunk (not a file header, not git's
    "-- " signature before its version line)."""
    line = lines[j]
    if line[:1] not in (' ', '+', '-', '\\') or line.startswith('--- '):
        return False
    return not (line == '-- ' and j + 1 < len(lines) and
                re.match(r'^\d+\.\d+', lines[j + 1]))


def rebuild(lines, base):
    """Hunk headers for a bare patch: the base's starts, counted lines."""
    starts = [(int(m.group(1)), int(m.group(3)))
              for m in map(HUNK.match, base) if m]
    out, k, shift, i = [], 0, 0, 0
    while i < len(lines):
        m = BARE.match(lines[i])
        if not m:
            if lines[i].startswith('diff ') or lines[i].startswith('--- '):
                shift = 0       # a new file
            out.append(lines[i])
            i += 1
            continue
        if k >= len(starts):
            die('the fix-up adds a hunk: the base has %d' % len(starts))
        j, old, new = i + 1, 0, 0
        while j < len(lines) and in_body(lines, j):
            old += lines[j][:1] in (' ', '-')
            new += lines[j][:1] in (' ', '+')
            j += 1
        a = starts[k][0]
        c = a + shift if a else 1       # a = 0: a new file
        out.append('@@ -%d,%d +%d,%d @@%s' % (a, old, c, new, m.group(1)))
        out += lines[i + 1:j]
        shift += new - old
        k += 1
        i = j
    if k != len(starts):
        die('the fix-up drops a hunk: %d of %d' % (k, len(starts)))
    return out


def run_patch(args, stdin_path, cwd=None):
    with open(stdin_path) as f:
        r = subprocess.run(['patch', '-s', '--fuzz=0'] + args,
                           stdin=f, cwd=cwd,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
    sys.stderr.write(r.stdout)
    return r.returncode == 0


def make(series):
    """The libxl patch of SERIES, as lines."""
    fixup, _ = files(series)
    base = read_base()
    if fixup is None:
        return base
    with tempfile.TemporaryDirectory() as t:
        src, out = os.path.join(t, 'bare'), os.path.join(t, 'out')
        with open(src, 'w') as f:
            f.write('\n'.join(bare(base)))
        # the rejects, if any, go to the scratch directory
        rej = os.path.join(t, 'rej')
        if not run_patch(['-r', rej, '-o', out, src], fixup):
            die('%s does not apply to the series in %s: refresh it '
                '(tools/xl-patches.py)' % (os.path.basename(fixup), BASE))
        return rebuild(read(out), base)


def apply(series, tree):
    """The base series patch by patch, in order; another series' whole
    patch at once."""
    _, xenstat = files(series)
    with tempfile.NamedTemporaryFile('w', suffix='.patch') as p:
        p.write('\n'.join(make(series)))
        p.flush()
        if series == BASE_SERIES:
            libxl = [('libxl-phy1/' + os.path.basename(f), f)
                     for f in base_files()]
        else:
            libxl = [('libxl-phy1 (Xen %s)' % series, p.name)]
        for name, path in libxl + [(os.path.basename(xenstat), xenstat)]:
            if not run_patch(['-p1', '--no-backup-if-mismatch'], path, tree):
                die('%s does not apply to %s' % (name, tree))


def fixup(series, whole):
    path, _ = files(series, need_fixup=False)
    if path is None:
        die('Xen %s is the base series: it has no fix-up' % series)
    base, want = read_base(), read(whole)
    # Keep the base's git metadata where the other has its own.
    if len(base) == len(want):
        want = [b if META.match(b) and META.match(w) else w
                for b, w in zip(base, want)]
    if os.path.exists(path):
        for line in read(path):
            if line.startswith('--- '):
                break
            print(line)
    with tempfile.TemporaryDirectory() as t:
        for name, lines in (('a', base), ('b', want)):
            with open(os.path.join(t, name), 'w') as f:
                f.write('\n'.join(bare(lines)))
        r = subprocess.run(['diff', '-u',
                            '--label', 'libxl-phy1-%s.patch' % BASE_SERIES,
                            '--label', 'libxl-phy1-%s.patch' % series,
                            os.path.join(t, 'a'), os.path.join(t, 'b')],
                           stdout=subprocess.PIPE, universal_newlines=True)
    if r.returncode > 1:
        die('diff failed')
    sys.stdout.write(r.stdout)


def main(argv):
    mode, args = (argv[1], argv[2:]) if len(argv) > 1 else ('', [])
    want = {'print': 1, 'apply': 2, 'inputs': 1, 'fixup': 2}
    if want.get(mode) != len(args):
        die('usage: %s print|inputs SERIES | apply SERIES DIR | '
            'fixup SERIES PATCH' % argv[0])
    if mode == 'print':
        sys.stdout.write('\n'.join(make(args[0])))
    elif mode == 'apply':
        apply(*args)
    elif mode == 'inputs':
        fix, xenstat = files(args[0])
        for f in [os.path.abspath(__file__)] + base_files() + [fix, xenstat]:
            if f:
                print(f)
    else:
        fixup(*args)


if __name__ == '__main__':
    main(sys.argv)
