#!/usr/bin/env python3
"""kernel_reports: find the debug kernel's reports in a run's kernel logs.

  kernel_reports.py RESULTS_DIR      classify, print, exit 1 if any is new

A report starts at a line such as "WARNING: possible circular locking
dependency detected", "BUG: KFENCE: use-after-free", "ODEBUG: ...",
"UBSAN: ...", "pagealloc: memory corruption", "BUG kmalloc-64 (...)" and
runs until the next report or the end of its trace.  A report is *known*
if one of its lines matches a signature of image/debug-known-reports.txt
(a bug of the stock kernel, each with the reason it is not ours); every
other report fails the run.  Logs read: dom0's full kernel log
(kernel-log.txt, written by dom0/boot.sh after the scenario) and every
guest console (consoles/guest-*.log).  Python 3 standard library only.
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
KNOWN = os.path.join(HERE, "..", "image", "debug-known-reports.txt")

# The first line of a report (after the "[ time]" prefix).
START_RE = re.compile(
    r"(BUG: |BUG [^ ]+ \(|WARNING: |Oops|general protection fault|UBSAN: |"
    r"ODEBUG: |pagealloc: |INFO: task .* blocked|watchdog: BUG: soft lockup|"
    r"rcu: INFO: .*stall|kernel BUG at|Bad page)")
END_RE = re.compile(r"---\[ end trace|</TASK>")
STAMP_RE = re.compile(r"^\[ *[0-9]+\.[0-9]+\] ?")
MAX_LINES = 120


def load_known(path=KNOWN):
    """[([compiled regexes], reason)] from the signature file: one
    signature a line, "RE && RE ...  # reason"; every RE must match a line
    of the report."""
    known = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            sig, _, why = line.partition("  # ")
            if not why.strip():
                raise ValueError("%s: no reason given for %r" % (path, sig))
            known.append(([re.compile(r.strip()) for r in sig.split(" && ")], why.strip()))
    return known


def matches(res, rep):
    return all(any(r.search(l) for l in rep) for r in res)


def reports(lines):
    """Split a kernel log into reports: lists of lines (stamps removed)."""
    out, cur = [], None
    for raw in lines:
        line = STAMP_RE.sub("", raw.replace("\r", "").rstrip("\n"))
        # A guest console relays our scenario lines as well: only the
        # kernel's own lines start a report.
        if START_RE.match(line.strip()):
            # "ODEBUG: ..." then "[ cut here ]" then its "WARNING: CPU:
            # ... at lib/debugobjects.c": one report.
            if cur and len(cur) <= 2 and "cut here" in cur[-1]:
                cur.append(line)
                continue
            if cur:
                out.append(cur)
            cur = [line]
            continue
        if cur is not None:
            cur.append(line)
            if END_RE.search(line) or len(cur) >= MAX_LINES:
                out.append(cur)
                cur = None
    if cur:
        out.append(cur)
    return out


def classify(results, known=None, logs=None):
    """[(log name, report lines, reason or None)] for every report of the
    logs (default: dom0's kernel-log.txt and every guest console)."""
    known = load_known() if known is None else known
    if logs is None:
        logs = [os.path.join(results, "kernel-log.txt")]
        logs += sorted(glob.glob(os.path.join(results, "consoles", "guest-*.log")))
    found = []
    for log in logs:
        if not os.path.exists(log):
            continue
        with open(log, errors="replace") as f:
            for rep in reports(f):
                why = next((w for res, w in known if matches(res, rep)), None)
                found.append((os.path.relpath(log, results), rep, why))
    return found


# Lockdep reports once, then switches itself off for the rest of the boot.
LOCKDEP_RE = re.compile(r"possible circular locking|inconsistent lock state|"
                        r"possible recursive locking|suspicious RCU usage|"
                        r"possible irq lock inversion|lock held when returning")


def lockdep_off(found):
    """'LOG: FIRST LINE' of the first lockdep report (lockdep is off after
    it), or None."""
    for log, rep, _ in found:
        if any(LOCKDEP_RE.search(l) for l in rep[:2]):
            return "%s: %s" % (log, rep[0])
    return None


def write_summary(results, found, out):
    """kernel-checks.txt: every report, known or new; returns the new ones."""
    new = [f for f in found if f[2] is None]
    off = lockdep_off(found)
    with open(out, "w") as f:
        f.write("kernel log reports: %d, known %d, new %d\n"
                % (len(found), len(found) - len(new), len(new)))
        if off:
            f.write("lockdep switched itself off after its first report (%s): lock "
                    "bugs later in that kernel's run are not seen\n" % off)
        for log, rep, why in found:
            f.write("\n== %s: %s\n   %s\n" % (log, "known: " + why if why else "NEW", rep[0]))
            f.write("\n".join("   " + l for l in rep[1:40]) + "\n")
    return new


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    results = sys.argv[1]
    if not os.path.exists(os.path.join(results, "kernel-log.txt")):
        print("kernel_reports: no kernel-log.txt in %s (not a debug-kernel run?)" % results,
              file=sys.stderr)
        return 2
    found = classify(results)
    new = write_summary(results, found, os.path.join(results, "kernel-checks.txt"))
    for log, rep, why in found:
        print("%-8s %s: %s" % ("known" if why else "NEW", log, rep[0]))
    print("%d report(s), %d new" % (len(found), len(new)))
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
