#!/usr/bin/env python3
"""Summarise ring benchmark runs on several CPU pairs (bench/ring/pairs.sh).

Groups the runs' JSON files by build (the label pairs.sh passed as -g) and
CPU pair, takes the median of each figure over a group's runs, and prints a
Markdown table with issue 15's targets for the duplex ring, each judged on
every pair: round trip p50 <= 1.05 x the floor and <= packed's, cycles per
message <= packed's at every burst size.  Every ratio is taken within one run (same CPUs, same minute)
before the median; where a run records each ring's p50 per round, the
round-trip ratios are paired by round (the rings of one round ran one
after another) and the targets are judged on those.  The reference rings
(floor64, virtio_pk, nvme_sqcq) get their own table: round-trip p50 over
duplex's, paired by round, and cache lines per exchange.  A benchmark: it
prints figures and verdicts and exits 0 whatever they are.

    bench/ring/pairs.py DIR [--json OUT]
"""
import argparse
import glob
import json
import os
import statistics
import sys

RTT_OVER_FLOOR_MAX = 1.05
RINGS = ("duplex", "packed")
REFERENCES = ("floor64", "virtio_pk", "nvme_sqcq")


def load_runs(directory):
    """Every run's JSON in DIR, as (build, (cpu, cpu), data) tuples."""
    runs = []
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            print("pairs.py: skipping %s: %s" % (path, e), file=sys.stderr)
            continue
        if d.get("benchmark") != "ring" or "summary" not in d:
            continue
        runs.append((d.get("git_commit", "?"), tuple(d.get("cpus", [])), d))
    return runs


def median_of(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def by_round(d, ring, ref):
    """Median over a run's rounds of ring's p50 over ref's, or None."""
    a = d.get(ring, {}).get("rtt_p50_cycles_by_round")
    b = d.get(ref, {}).get("rtt_p50_cycles_by_round")
    if not a or not b or len(a) != len(b) or not all(b):
        return None
    return statistics.median(x / y for x, y in zip(a, b))


def run_figures(d):
    """The figures one run gives, each a number or None."""
    s = d["summary"]

    def p50(ring):
        return d.get(ring, {}).get("rtt_cycles", {}).get("p50")

    floor = p50("floor")
    f = {"floor_p50": floor,
         "duplex_over_packed": s.get("duplex_rtt_p50_over_packed")}
    for ring in RINGS:
        f[ring + "_p50"] = p50(ring)
        f[ring + "_over_floor"] = (p50(ring) / floor
                                   if p50(ring) and floor else None)
    for size, ratio in s.get("duplex_burst_over_packed", {}).items():
        f["burst_%s" % size] = ratio
    for ref in ("floor", "floor64", "packed"):
        f["duplex_over_%s_paired" % ref] = by_round(d, "duplex", ref)
    for ref in REFERENCES:
        f[ref + "_over_duplex_paired"] = by_round(d, ref, "duplex")
        f[ref + "_lines"] = d.get(ref, {}).get("lines_per_exchange")
    return f


def summarise(runs):
    """Median figures per (build, pair), with the targets judged."""
    groups = {}
    for build, pair, d in runs:
        groups.setdefault((build, pair), []).append(run_figures(d))
    rows = []
    for (build, pair), figs in sorted(groups.items()):
        keys = sorted({k for f in figs for k in f})
        med = {k: median_of([f.get(k) for f in figs]) for k in keys}
        bursts = sorted((int(k[6:]) for k in keys if k.startswith("burst_")))
        rows.append({"build": build, "cpus": list(pair), "runs": len(figs),
                     "median": med, "bursts": bursts,
                     "targets": judge(med, bursts)})
    return rows


def judge(med, bursts):
    """Issue 15's targets on one pair's medians: True, False or None."""
    def at_most(value, bound):
        return None if value is None else value <= bound

    def paired(name):
        v = med.get(name + "_paired")
        return med.get(name) if v is None else v

    over_floor = at_most(paired("duplex_over_floor"), RTT_OVER_FLOOR_MAX)
    over_packed = at_most(paired("duplex_over_packed"), 1.0)
    rtt = None if None in (over_floor, over_packed) else over_floor and over_packed
    burst_ok = [at_most(med.get("burst_%d" % b), 1.0) for b in bursts]
    burst = None if not burst_ok or None in burst_ok else all(burst_ok)
    return {"rtt": rtt, "burst": burst,
            "burst_over": [b for b, ok in zip(bursts, burst_ok) if ok is False]}


def fmt(value, spec="%.2f"):
    return "n/a" if value is None else spec % value


def verdict(ok):
    return {True: "met", False: "not met", None: "n/a"}[ok]


def table(rows):
    bursts = sorted({b for r in rows for b in r["bursts"]})
    head = ["build", "CPUs", "runs", "floor p50", "duplex p50 (x floor)",
            "packed p50 (x floor)", "duplex / packed",
            "paired: duplex / floor, floor64, packed"]
    head += ["burst %d" % b for b in bursts]
    head += ["RTT", "bursts"]
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        m, t = r["median"], r["targets"]

        def ring(name):
            return "%s (%s)" % (fmt(m.get(name + "_p50"), "%.0f"),
                                fmt(m.get(name + "_over_floor")))

        cells = [r["build"], ",".join(str(c) for c in r["cpus"]),
                 str(r["runs"]), fmt(m.get("floor_p50"), "%.0f"),
                 ring("duplex"), ring("packed"),
                 fmt(m.get("duplex_over_packed"), "%.3f"),
                 " / ".join(fmt(m.get("duplex_over_%s_paired" % ref), "%.3f")
                            for ref in ("floor", "floor64", "packed"))]
        cells += [fmt(m.get("burst_%d" % b), "%.3f") for b in bursts]
        over = ""
        if t["burst_over"]:
            over = " (over at %s)" % ", ".join(str(b) for b in t["burst_over"])
        cells += [verdict(t["rtt"]), verdict(t["burst"]) + over]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def reference_table(rows):
    """Each reference ring's round trip over duplex's, paired by round."""
    refs = [ref for ref in REFERENCES
            if any(r["median"].get(ref + "_over_duplex_paired") is not None
                   for r in rows)]
    if not refs:
        return ""
    head = ["build", "CPUs"] + ["%s / duplex (lines %s)" % (
        ref, fmt(next((r["median"].get(ref + "_lines") for r in rows
                       if r["median"].get(ref + "_lines")), None), "%d"))
        for ref in refs]
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        m = r["median"]
        if all(m.get(ref + "_over_duplex_paired") is None for ref in refs):
            continue
        out.append("| " + " | ".join(
            [r["build"], ",".join(str(c) for c in r["cpus"])] +
            [fmt(m.get(ref + "_over_duplex_paired"), "%.2f")
             for ref in refs]) + " |")
    return "\n".join(out)


def tally(rows):
    """Per build: on how many pairs each target was met."""
    lines = []
    for build in sorted({r["build"] for r in rows}):
        mine = [r for r in rows if r["build"] == build]
        parts = []
        for key, name in (("rtt", "round trip"), ("burst", "bursts")):
            met = sum(1 for r in mine if r["targets"][key] is True)
            parts.append("%s met on %d of %d pairs" % (name, met, len(mine)))
        lines.append("- %s: %s" % (build, "; ".join(parts)))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", help="pairs.sh's output folder")
    ap.add_argument("--json", help="also write the summary here")
    a = ap.parse_args(argv)
    runs = load_runs(a.dir)
    if not runs:
        print("pairs.py: no ring benchmark JSON in %s" % a.dir, file=sys.stderr)
        return 1
    rows = summarise(runs)
    machine = os.path.join(a.dir, "machine.txt")
    if os.path.exists(machine):
        with open(machine) as f:
            print("".join("    " + line for line in f))
    print("Medians over each pair's runs; ratios taken within a run. Targets "
          "(issue 15): duplex round trip p50 <= %.2f x the floor and <= "
          "packed (paired by round where the runs record rounds); cycles "
          "per message <= packed at every burst.\n" % RTT_OVER_FLOOR_MAX)
    print(table(rows))
    print()
    refs = reference_table(rows)
    if refs:
        print("Reference rings: round-trip p50 over duplex's, paired by "
              "round, with the cache lines each exchange moves.\n")
        print(refs)
        print()
    print(tally(rows))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
