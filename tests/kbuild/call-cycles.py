#!/usr/bin/python3
"""Call cycles between the source files of our kernel code.

For each directory (with its subdirectories: lib/fipc's ring/ and
poller/ are one directory here, so a call between the layers counts;
so is a KUnit tests/ directory: its files call the code they test and
define only static functions, so they add edges into the code, which
can neither make a cycle nor hide one between the code's files):
every function a .c file defines without "static" is looked for, as a
call, in the directory's other .c files (comments left out); a file calling another's function is an edge, and files that reach
each other through edges form a cycle.  A layered directory has none:
each file calls only files below it.  KNOWN lists the cycles still to
break, none since issue 47; a cycle not listed fails, and so does a
listed one that is gone (take it off the list).

usage: call-cycles.py            (the directories below, from the top)
Last line: "N passed, N failed".
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIRS = ("lib/fipc", "linux/drivers/block/xen-fipc-back",
        "linux/drivers/block/xen-fipc-front")
KNOWN = {}
DEF = re.compile(r"^(?!static\b)[a-z_][\w \*]*?\b([a-z_]\w*)\((?:[^;{])*?\)\n\{", re.M)


def edges_of(d):
    src = {}
    for root, subdirs, files in os.walk(d):
        subdirs.sort()
        for f in sorted(files):
            if not f.endswith(".c"):
                continue
            with open(os.path.join(root, f), encoding="utf-8") as fh:
                text = fh.read()
            f = os.path.relpath(os.path.join(root, f), d)
            src[f] = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
    defs = {}
    for f, s in src.items():
        for m in DEF.finditer(s):
            defs.setdefault(m.group(1), f)
    edges = {f: set() for f in src}
    for f, s in src.items():
        for name, home in defs.items():
            if home != f and re.search(r"\b" + name + r"\s*\(", s):
                edges[f].add(home)
    return edges


def cycles(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    passed = failed = 0
    for d in DIRS:
        edges = edges_of(os.path.join(TOP, d))
        found = cycles(edges)
        known = KNOWN.get(d, [])
        n = sum(len(e) for e in edges.values())
        for c in found:
            if c in known:
                print("ok   %s: known cycle %s (still to break)" % (d, " ".join(sorted(c))))
                passed += 1
            else:
                print("FAIL %s: files call each other: %s" % (d, " ".join(sorted(c))))
                failed += 1
        for c in known:
            if c not in found:
                print("FAIL %s: the known cycle %s is gone: take it off KNOWN"
                      % (d, " ".join(sorted(c))))
                failed += 1
        if not [c for c in found if c not in known]:
            print("ok   %s: %d files, %d cross-file call edges, no other cycle"
                  % (d, len(edges), n))
            passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
