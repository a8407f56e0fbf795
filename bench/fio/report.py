#!/usr/bin/python3
"""Turn fio results of several configurations into the report's tables.

Input: a results directory with one sub-directory per configuration
(dom0, phy, phy1-grant, phy1-memshare; with make bench-pvh also phy-pvh,
phy1-grant-pvh and phy1-memshare-pvh, the same in a PVH guest), each holding one fio JSON file per
job (<job>.json, from run-fio.sh) and optionally counters.json (event-channel
notifications, grant operations, hypercalls, CPU seconds, measured around
the timed jobs, with "ios" the number of I/Os they cover) and, per job,
<job>.counters-before / <job>.counters-after ("name value" lines that
run-fio.sh's FIO_COUNTERS_CMD printed around that job).  CPU times in
counters.json are "<who>_cpu_seconds"; their per I/O figures are
"<who>_cpu_us_per_io".  The fipc pollers ("front_poller", "back_poller")
are n/a (null) where a configuration has none (dom0, classic phy).
A configuration's idle.json holds the same kind of counters over an idle
window after its jobs ("idle_seconds" long, no I/O): what the disk costs a
host while its guest does nothing.
An optional backing.json at the top ({"device": ..., "kind": ...,
"model": ..., "size_bytes": ...}) names the timed device; fio.json
records it as "backing" (the device) and "backing_info".

With --noisy DIR (the testbed's "noisy" scenario): the quiet guests'
QD1 reads (DIR/<guest>/r<N>.<cfg>-alone.json, r<N>.<cfg>-beside.json for
round N, or <cfg>-alone.json and <cfg>-beside.json for one round, for
guests B and C and configurations phy and phy1), alone and beside a guest
that saturates a slow disk; fio.json gets them as "noisy" and fio.md a
table, with each guest's median p99 growth over the rounds.

With --dom0-latency DIR (the testbed's "dom0-latency" scenario): its
DIR/dom0-latency.json (dom0's wake-up latency with the guest idle and
while it bursts I/O on phy: and on phy1:, and the guest's IOPS); fio.json
gets it as "dom0_latency" and fio.md a "dom0 responsiveness" table.

Output: fio.json, fio.md (markdown tables shaped like the Fip-see report's
Tables 8 to 17) and PNG plots, written to --out; the tables are printed.
"""
import argparse
import json
import os
import statistics
import sys

# fio output parsing is shared with the testbed's result summarizer (in
# the repository; installed beside this file by fipc-xen-tools).
sys.path[:0] = [os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "..", "..", "tests", "testbed", "lib"),
                os.path.dirname(os.path.abspath(__file__))]
from summarize import load_fio_json  # noqa: E402

CONFIGS = ["dom0", "phy", "phy1-grant", "phy1-memshare", "phy-pvh",
           "phy1-grant-pvh", "phy1-memshare-pvh"]
HOST, CLASSIC = "dom0", "phy"
# CPU time of the fipc poller kthreads: frontend (guest), backend (dom0).
POLLERS = ("front_poller", "back_poller")


def load_fio(path):
    """Parse one fio JSON output (tolerating text fio prints before it)."""
    job = load_fio_json(path)["jobs"][0]
    rw = "write" if job["write"]["total_ios"] > job["read"]["total_ios"] else "read"
    sec = job[rw]
    lat = sec.get("lat_ns", {})
    pct = lat.get("percentile") or sec.get("clat_ns", {}).get("percentile", {})

    def p(key):
        return round(pct[key] / 1000.0, 2) if key in pct else None

    return {
        "rw": rw,
        "iops": round(sec["iops"], 1),
        "bw_MBps": round(sec["bw"] * 1024 / 1e6, 2),
        "ios": sec["total_ios"],
        "lat_us": {
            "mean": round(lat.get("mean", 0) / 1000.0, 2),
            "p50": p("50.000000"),
            "p99": p("99.000000"),
            "p99.9": p("99.900000"),
        },
        "usr_cpu": job.get("usr_cpu"),
        "sys_cpu": job.get("sys_cpu"),
    }


def load_counters(path):
    """Parse "name value" lines; None if the file is missing."""
    if not os.path.exists(path):
        return None
    values = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2:
                try:
                    values[parts[0]] = int(parts[1])
                except ValueError:
                    pass
    return values


def job_per_io(cdir, job, ios):
    """Per I/O deltas of the counters around one job, or None.  The
    counters also cover fio's ramp-up, which its I/O count does not: the
    figures are upper bounds."""
    before = load_counters(os.path.join(cdir, job + ".counters-before"))
    after = load_counters(os.path.join(cdir, job + ".counters-after"))
    if before is None or after is None or not ios:
        return None
    return {k: round((after[k] - before[k]) / ios, 3)
            for k in sorted(after) if k in before}


def window_per_io(counters, ios):
    """Counters over the window divided by its I/Os; CPU seconds become
    microseconds per I/O ("x_cpu_seconds" -> "x_cpu_us_per_io")."""
    out = {}
    for k, v in counters.items():
        if k.endswith("_cpu_seconds"):
            key = k[:-len("seconds")] + "us_per_io"
            out[key] = round(v * 1e6 / ios, 2) if ios and v is not None else None
        elif isinstance(v, (int, float)):
            out[k] = round(v / ios, 3) if ios else None
    return out


def load_json(path):
    """The JSON document in the file at path, or None if there is none."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def load_backing(resdir):
    """backing.json of a results directory, or None."""
    return load_json(os.path.join(resdir, "backing.json"))


def backing_label(info):
    if not info:
        return ""
    extra = [x for x in (info.get("kind"), info.get("model")) if x]
    if info.get("size_bytes"):
        extra.append(f"{info['size_bytes'] / 2**30:.1f} GiB")
    return f"Timed device: {info.get('device')}" + (f" ({', '.join(extra)})" if extra else "")


def cell(key, v, digits):
    """A table cell: pollers a configuration does not have are n/a."""
    if v is None:
        return "n/a" if "poller" in key else "-"
    return fmt(v, digits)


def collect(resdir):
    result = {}
    for cfg in sorted(os.listdir(resdir)):
        cdir = os.path.join(resdir, cfg)
        if not os.path.isdir(cdir):
            continue
        jobs = {}
        for name in sorted(os.listdir(cdir)):
            if name.endswith(".json") and not name.endswith("counters.json") \
                    and not name.startswith(("verify-", "idle")):
                try:
                    job = load_fio(os.path.join(cdir, name))
                    per_io = job_per_io(cdir, name[:-5], job["ios"])
                    if per_io is not None:
                        job["per_io"] = per_io
                    jobs[name[:-5]] = job
                except (ValueError, KeyError, IndexError) as e:
                    print(f"report: {cfg}/{name}: not fio output ({e!r}), ignored",
                          file=sys.stderr)
        entry = {"jobs": jobs}
        counters = load_json(os.path.join(cdir, "counters.json"))
        if counters is not None:
            ios = counters.pop("ios", 0) or sum(j["ios"] for j in jobs.values())
            # A configuration without pollers reports them as n/a, not 0.
            for p in POLLERS:
                counters.setdefault(p + "_cpu_seconds", None)
            entry["counters"] = counters
            entry["per_io"] = window_per_io(counters, ios)
        idle = load_json(os.path.join(cdir, "idle.json"))
        if idle is not None:
            for p in POLLERS:
                idle.setdefault(p + "_cpu_seconds", None)
            entry["idle"] = idle
        if jobs:
            result[cfg] = entry
    return result


def idle_table(res, cfgs, label):
    """What each configuration cost while its guest did no I/O at all."""
    have = [c for c in cfgs if "idle" in res[c]]
    if not have:
        return []
    secs = sorted({res[c]["idle"].get("idle_seconds") for c in have})
    keys = sorted({k for c in have for k in res[c]["idle"] if k != "idle_seconds"})
    out = [f"### Idle: {', '.join(str(x) for x in secs)} s without I/O after the jobs{label}\n",
           "Totals over the window (CPU in seconds): an idle guest should cost "
           "no poller CPU and no notification.\n",
           "| idle | " + " | ".join(have) + " |",
           "|---" * (len(have) + 1) + "|"]
    for k in keys:
        out.append("| " + k + " | " + " | ".join(
            cell(k, res[c]["idle"].get(k), 2 if k.endswith("_cpu_seconds") else 0)
            for c in have) + " |")
    out.append("")
    return out


def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if a is not None and b else "-"


def fmt(v, digits=0):
    if v is None:
        return "-"
    return f"{v:,.{digits}f}"


def cost_keys(res, cfgs):
    """The per I/O counters of the timed window (hypercalls, notifications,
    grant operations, copies...), then the fipc pollers' CPU per I/O."""
    keys = sorted({k for c in cfgs for k in res[c].get("per_io", {})
                   if not k.endswith("_cpu_us_per_io")})
    return keys + [f"{p}_cpu_us_per_io" for p in POLLERS
                   if any(res[c].get("per_io", {}).get(f"{p}_cpu_us_per_io")
                          is not None for c in cfgs)]


def cost_table(res, cfgs, label):
    """The report's lead: what a configuration costs per I/O, counted, which
    carries over to real hardware where emulated timings do not."""
    keys = cost_keys(res, cfgs)
    if not keys:
        return []
    out = [f"### Per I/O cost: what carries over to real hardware{label}\n",
           "Counted over the timed window (ramp-ups included), per I/O; "
           "poller CPU in us. The IOPS and latency tables below are "
           "timings, meaningful only against each other in one run.\n",
           "| per I/O | " + " | ".join(cfgs) + " |",
           "|---" * (len(cfgs) + 1) + "|"]
    for k in keys:
        digits = 1 if k.endswith("_cpu_us_per_io") else 3
        out.append("| " + k + " | " + " | ".join(
            cell(k, res[c].get("per_io", {}).get(k), digits)
            for c in cfgs) + " |")
    out.append("")
    return out


def tables(res, emulated, skipped=(), backing=None):
    label = " (emulated: QEMU TCG testbed, functional evidence only)" \
        if emulated else ""
    cfgs = [c for c in CONFIGS if c in res] + \
        [c for c in res if c not in CONFIGS]
    jobs = sorted({j for c in cfgs for j in res[c]["jobs"]})
    out = []
    if backing:
        out.append(backing_label(backing) + "\n")
    out += cost_table(res, cfgs, label)
    out += idle_table(res, cfgs, label)
    for kind, title in (("iops", "IOPS (libaio, iodepth 64, batches of 64)"),
                        ("lat", "Latency, us (sync engine, QD1, one pinned job)"),
                        ("desk", "Desktop profiles: IOPS, MB/s and mean latency "
                         "(libaio, one job; sequential 1 MiB, random 4 KiB)")):
        sel = [j for j in jobs if j.startswith(kind + "-")]
        if not sel:
            continue
        out.append(f"### {title}{label}\n")
        out.append("| job | " + " | ".join(cfgs) + " |")
        out.append("|---" * (len(cfgs) + 1) + "|")
        for j in sel:
            row = [j]
            for c in cfgs:
                r = res[c]["jobs"].get(j)
                if not r:
                    row.append("-")
                elif kind == "iops":
                    row.append(f"{fmt(r['iops'])} ({fmt(r['bw_MBps'], 1)} MB/s)")
                elif kind == "desk":
                    row.append(f"{fmt(r['iops'])} ({fmt(r['bw_MBps'], 1)} MB/s, "
                               f"{fmt(r['lat_us']['mean'], 1)} us)")
                else:
                    lu = r["lat_us"]
                    row.append(f"{fmt(lu['mean'], 2)} (p50 {fmt(lu['p50'], 2)}, p99 {fmt(lu['p99'], 2)})")
            out.append("| " + " | ".join(row) + " |")
        out.append("")
        # Relative tables, as the report's 14 to 17.
        others = [c for c in cfgs if c not in (HOST,)]
        if HOST in res and others:
            what = "mean latency" if kind == "lat" else "IOPS"
            out.append(f"#### {what}: percent of host ({HOST}) and versus classic ({CLASSIC}){label}\n")
            out.append("| job | " + " | ".join(
                f"{c} % of host" + (f" | {c} vs {CLASSIC}" if c != CLASSIC and CLASSIC in res else "")
                for c in others) + " |")
            ncols = sum(2 if (c != CLASSIC and CLASSIC in res) else 1 for c in others)
            out.append("|---" * (ncols + 1) + "|")
            for j in sel:
                row = [j]
                h = res[HOST]["jobs"].get(j)
                cl = res.get(CLASSIC, {}).get("jobs", {}).get(j)
                for c in others:
                    r = res[c]["jobs"].get(j)
                    if kind != "lat":
                        a = r["iops"] if r else None
                        row.append(pct(a, h["iops"] if h else None))
                        if c != CLASSIC and CLASSIC in res:
                            row.append(f"{a / cl['iops']:.2f}x" if r and cl and cl["iops"] else "-")
                    else:
                        a = r["lat_us"]["mean"] if r else None
                        row.append(pct(a, h["lat_us"]["mean"] if h else None))
                        if c != CLASSIC and CLASSIC in res:
                            row.append(f"{100 * (a / cl['lat_us']['mean'] - 1):+.1f}%"
                                       if r and cl and cl["lat_us"]["mean"] else "-")
                out.append("| " + " | ".join(row) + " |")
            out.append("")
    # CPU time over the timed window (ramp-ups and the gaps between jobs
    # included, so per I/O figures are upper bounds): the domains (xl
    # list), the guest's own /proc/stat, and the fipc pollers.
    cpu = sorted({k for c in cfgs for k in res[c].get("counters", {})
                  if k.endswith("_cpu_seconds")})
    if cpu:
        out.append(f"### CPU time over the timed window{label}\n")
        out.append("| CPU | " + " | ".join(cfgs) + " |")
        out.append("|---" * (len(cfgs) + 1) + "|")
        for k in cpu:
            out.append(f"| {k[:-len('_cpu_seconds')]} seconds | " + " | ".join(
                cell(k, res[c].get("counters", {}).get(k), 2) for c in cfgs) + " |")
        for k in cpu:
            pk = k[:-len("seconds")] + "us_per_io"
            out.append(f"| {k[:-len('_cpu_seconds')]} us per I/O | " + " | ".join(
                cell(pk, res[c].get("per_io", {}).get(pk), 1) for c in cfgs) + " |")
        out.append("")
    rows = sorted({(j, k) for c in cfgs for j, r in res[c]["jobs"].items()
                   for k in r.get("per_io", {})})
    if rows:
        out.append(f"### Per I/O counters by job (guest side, ramp-up included){label}\n")
        out.append("| job | counter | " + " | ".join(cfgs) + " |")
        out.append("|---" * (len(cfgs) + 2) + "|")
        for j, k in rows:
            out.append(f"| {j} | {k} | " + " | ".join(
                cell(k, res[c]["jobs"].get(j, {}).get("per_io", {}).get(k), 3)
                for c in cfgs) + " |")
        out.append("")
    if skipped:
        out.append("Not run: " + "; ".join(skipped) + "\n")
    return "\n".join(out)


NOISY_GUESTS = ("B", "C")
NOISY_CONFIGS = ("phy", "phy1")


def noisy_files(gdir, cfg):
    """The fio results of configuration cfg in a guest's directory, as
    {round: {"alone": path, "beside": path}}: round N is
    r<N>.<cfg>-<when>.json; a file without the prefix (<cfg>-<when>.json,
    one round only) is round 1 unless r1.<cfg>-<when>.json is there too."""
    found = {}
    if not os.path.isdir(gdir):
        return found
    for name in sorted(os.listdir(gdir)):
        stem, ext = os.path.splitext(name)
        if ext != ".json":
            continue
        rnd, prefixed = 1, False
        if stem.startswith("r") and "." in stem:
            head, stem = stem.split(".", 1)
            if not head[1:].isdigit():
                continue
            rnd, prefixed = int(head[1:]), True
        for when in ("alone", "beside"):
            if stem == f"{cfg}-{when}":
                paths = found.setdefault(rnd, {})
                if prefixed or when not in paths:
                    paths[when] = os.path.join(gdir, name)
    return found


def collect_noisy(ndir):
    """The noisy-neighbour scenario's quiet reads: {guest: {cfg: {"rounds":
    [{"round": N, "alone": lat_us, "beside": lat_us, "p99_ratio": beside
    p99 / alone p99}], "p99_ratio": the median over rounds}}}; per
    configuration, the worst of the quiet guests' median p99 ratios; and
    per round, whether phy1's worst ratio was no more than phy's.  A round
    without both phases of a configuration is left out."""
    out = {"guests": {}, "worst_p99_ratio": {}, "rounds": 0}
    # Verdicts compare unrounded ratios; fio.json and fio.md show them
    # rounded to 2 places.
    worst, per_round = {}, {}
    for g in NOISY_GUESTS:
        gdir = os.path.join(ndir, g)
        for cfg in NOISY_CONFIGS:
            rounds, ratios = [], []
            for rnd, paths in sorted(noisy_files(gdir, cfg).items()):
                if len(paths) < 2:
                    continue
                runs = {"round": rnd}
                for when, path in paths.items():
                    r = load_fio(path)
                    runs[when] = dict(r["lat_us"], iops=r["iops"])
                a, b = runs["alone"]["p99"], runs["beside"]["p99"]
                ratio = b / a if a and b else None
                runs["p99_ratio"] = round(ratio, 2) if ratio is not None else None
                rounds.append(runs)
                if ratio is not None:
                    # Round by round: the worst quiet guest of each configuration.
                    d = per_round.setdefault(rnd, {})
                    d[cfg] = max(d.get(cfg, 0), ratio)
                    ratios.append(ratio)
            if not rounds:
                continue
            mid = statistics.median(ratios) if ratios else None
            entry = {"rounds": rounds, "p99_ratio": round(mid, 2) if mid is not None else None}
            out["guests"].setdefault(g, {})[cfg] = entry
            out["rounds"] = max(out["rounds"], len(rounds))
            if mid is not None:
                worst[cfg] = max(worst.get(cfg, 0), mid)
    out["worst_p99_ratio"] = {c: round(v, 2) for c, v in worst.items()}
    out["phy1_no_worse_than_phy"] = (worst["phy1"] <= worst["phy"]) \
        if "phy" in worst and "phy1" in worst else None
    out["per_round_worst"] = [dict(round=n, **{c: round(v, 2) for c, v in per_round[n].items()})
                              for n in sorted(per_round)]
    both = [per_round[n] for n in sorted(per_round) if len(per_round[n]) == 2]
    out["rounds_phy1_no_worse"] = sum(1 for d in both if d["phy1"] <= d["phy"])
    out["rounds_compared"] = len(both)
    # How far each configuration's worst quiet guest moved between
    # rounds: a difference between phy and phy1 smaller than that is not
    # one the rounds can tell apart from their noise.
    spread = {}
    for cfg in NOISY_CONFIGS:
        vals = [per_round[n][cfg] for n in per_round if cfg in per_round[n]]
        if len(vals) > 1:
            spread[cfg] = max(vals) - min(vals)
    out["round_spread"] = {c: round(v, 2) for c, v in spread.items()}
    out["within_round_spread"] = None
    if out["phy1_no_worse_than_phy"] is not None and len(spread) == len(NOISY_CONFIGS):
        out["within_round_spread"] = abs(worst["phy1"] - worst["phy"]) < max(spread.values())
    return out


def noisy_table(noisy, emulated):
    label = " (emulated: QEMU TCG testbed, functional evidence only)" \
        if emulated else ""
    if not noisy or not noisy["guests"]:
        return ""
    out = [f"### Noisy neighbour: quiet guests beside a saturating one{label}\n",
           "Guests B and C read 4 KiB at QD 1 (completion latency, us), alone "
           "and while guest A writes 1 MiB at QD 256 to a slow disk, through "
           "classic phy: (a blkback thread per disk) and phy1: (one backend "
           "poller for all three). Each round measures both configurations, "
           "in alternating order.\n",
           "| guest | config | round | alone p50 | alone p99 | beside p50 | beside p99 | p99 beside / alone |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for g, cfgs in sorted(noisy["guests"].items()):
        for cfg in NOISY_CONFIGS:
            entry = cfgs.get(cfg)
            if not entry:
                continue
            for r in entry["rounds"]:
                out.append(f"| {g} | {cfg} | {r['round']} | {fmt(r['alone']['p50'], 1)} | "
                           f"{fmt(r['alone']['p99'], 1)} | {fmt(r['beside']['p50'], 1)} | "
                           f"{fmt(r['beside']['p99'], 1)} | {fmt(r['p99_ratio'], 2)}x |")
    w = noisy["worst_p99_ratio"]
    ok = noisy["phy1_no_worse_than_phy"]
    out.append("")
    many = noisy["rounds"] > 1
    out.append("Worst p99 growth of a quiet guest"
               + (f" (each guest's median over {noisy['rounds']} rounds)" if many else "")
               + ": " + ", ".join(f"{c} {w[c]:.2f}x" for c in NOISY_CONFIGS if c in w)
               + ("; target (phy1 no worse than phy): "
                  + ("met" if ok else "not met") if ok is not None else "") + "\n")
    if many and noisy["rounds_compared"]:
        out.append("Round by round (worst quiet guest): "
                   + "; ".join(f"{d['round']}: phy {fmt(d.get('phy'), 2)}x, phy1 {fmt(d.get('phy1'), 2)}x"
                               for d in noisy["per_round_worst"])
                   + f"; phy1 no worse in {noisy['rounds_phy1_no_worse']} of "
                   f"{noisy['rounds_compared']} rounds.\n")
    within = noisy.get("within_round_spread")
    if within is not None:
        sp = noisy["round_spread"]
        diff = abs(w["phy1"] - w["phy"])
        out.append(f"phy and phy1 differ by {diff:.2f}, "
                   + ("less" if within else "more")
                   + " than their worst quiet guest moved between rounds ("
                   + ", ".join(f"{c} {sp[c]:.2f}" for c in NOISY_CONFIGS)
                   + ("): the rounds do not tell them apart.\n" if within
                      else "): a difference the rounds' noise does not explain"
                      + (", in this boot; emulated boots have differed by more "
                         "(docs/benchmarks.md, run AY), so one boot does not "
                         "settle the target.\n" if emulated else ".\n")))
    return "\n".join(out)


DOM0_LATENCY_CONFIGS = (("idle", "guest idle"), ("phy", "phy: (xen-blkback)"),
                        ("phy1", "phy1: (xen-fipc-back)"))


def load_dom0_latency(ddir):
    """The dom0-latency scenario's summary (its summary.py), or None."""
    return load_json(os.path.join(ddir, "dom0-latency.json"))


def dom0_latency_table(d, emulated):
    """The "dom0 responsiveness" section: per configuration dom0's wake-up
    latency (us; each a median over the rounds, max the largest) and the
    guest's IOPS, then the target's line and the scenario's checks."""
    if not d or not d.get("configs"):
        return ""
    label = " (emulated: QEMU TCG testbed, functional evidence only)" if emulated else ""
    out = [f"### dom0 responsiveness: dom0's wake-ups while a guest bursts I/O{label}\n",
           f"wakeprobe in dom0 (SCHED_OTHER, on the backend poller's CPU): "
           f"{d['probe_s']:g} s of {d['interval_us']} us sleeps (lateness), then as long of "
           f"pipe wake-ups between two processes, with the guest idle and while it bursts "
           f"4 KiB random reads and writes at QD 32 on the same null_blk through each path; "
           f"medians over {d['rounds']} round(s). Guest IOPS: requests the device completed "
           f"during the probe per second, and fio's within its bursts.\n",
           "| configuration | sleep p50 (us) | sleep p99 | sleep max | pipe p50 | pipe p99 | "
           "pipe max | guest IOPS during probe | guest IOPS in bursts |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for cfg, name in DOM0_LATENCY_CONFIGS:
        c = d["configs"].get(cfg)
        if not c:
            continue
        s, p = c.get("sleep") or {}, c.get("pipe") or {}
        out.append(f"| {name} | {fmt(s.get('p50_us'), 1)} | {fmt(s.get('p99_us'), 1)} | "
                   f"{fmt(s.get('max_us'), 1)} | {fmt(p.get('p50_us'), 1)} | "
                   f"{fmt(p.get('p99_us'), 1)} | {fmt(p.get('max_us'), 1)} | "
                   f"{fmt(c.get('iops_probe'))} | {fmt(c.get('iops_fio'))} |")
    out.append("")
    t = d.get("target")
    if t:
        spread = (f"the rounds' spread {t['spread_us']:.1f} us" if t.get("spread_known")
                  else "one round, no spread")
        out.append(f"Target (phy1 no worse than phy): sleep p99 phy1 {t['phy1_p99_us']:.1f} us, "
                   f"phy {t['phy_p99_us']:.1f} us, {spread}: "
                   + ("met" if t["met"] else "not met")
                   + ("" if t.get("judged") else " (reported, not judged"
                      + (": emulated timings)" if emulated else ")")) + ".\n")
    checks = d.get("checks") or []
    bad = [c["name"] for c in checks if not c["ok"]]
    out.append(f"Checks: {len(checks) - len(bad)} of {len(checks)} passed"
               + (f"; failed: {', '.join(bad)}" if bad else "") + ".\n")
    return "\n".join(out)


def plots(res, outdir, emulated):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib not available, no plots", file=sys.stderr)
        return []
    made = []
    cfgs = [c for c in CONFIGS if c in res]
    keys = [k for k in cost_keys(res, cfgs) if not k.endswith("_cpu_us_per_io")]
    if keys:
        fig, ax = plt.subplots(figsize=(9, 4.5))
        width = 0.8 / max(len(cfgs), 1)
        for i, c in enumerate(cfgs):
            vals = [res[c].get("per_io", {}).get(k) or 0 for k in keys]
            ax.bar([x + i * width for x in range(len(keys))], vals, width, label=c)
        ax.set_xticks([x + width * (len(cfgs) - 1) / 2 for x in range(len(keys))])
        ax.set_xticklabels(keys, rotation=20)
        ax.set_ylabel("per I/O")
        ax.set_title("Counted per I/O" + (" (emulated testbed)" if emulated else ""))
        ax.legend()
        fig.tight_layout()
        path = os.path.join(outdir, "fio-per-io.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        made.append(path)
    for kind, ylabel, key in (("iops", "IOPS", lambda r: r["iops"]),
                              ("lat", "mean latency (us)", lambda r: r["lat_us"]["mean"])):
        jobs = sorted({j for c in cfgs for j in res[c]["jobs"] if j.startswith(kind + "-")})
        if not jobs:
            continue
        fig, ax = plt.subplots(figsize=(9, 4.5))
        width = 0.8 / max(len(cfgs), 1)
        for i, c in enumerate(cfgs):
            vals = [key(res[c]["jobs"][j]) if j in res[c]["jobs"] else 0 for j in jobs]
            ax.bar([x + i * width for x in range(len(jobs))], vals, width, label=c)
        ax.set_xticks([x + width * (len(cfgs) - 1) / 2 for x in range(len(jobs))])
        ax.set_xticklabels(jobs, rotation=20)
        ax.set_ylabel(ylabel)
        ax.set_title(f"fio {ylabel}" + (" (emulated testbed)" if emulated else ""))
        ax.legend()
        fig.tight_layout()
        path = os.path.join(outdir, f"fio-{kind}.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        made.append(path)
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("results", help="directory with one sub-directory per configuration")
    ap.add_argument("--out", required=True, help="where fio.json, fio.md and plots go")
    ap.add_argument("--emulated", action="store_true", help="label figures as emulated")
    ap.add_argument("--meta", help="JSON file with extra facts (machine, sizes) to embed")
    ap.add_argument("--noisy", help="results of the testbed's noisy scenario, for its section")
    ap.add_argument("--dom0-latency", help="results of the testbed's dom0-latency scenario, "
                    "for its section")
    args = ap.parse_args()
    res = collect(args.results)
    skipped = []
    spath = os.path.join(args.results, "skipped.txt")
    if os.path.exists(spath):
        with open(spath) as f:
            skipped = [ln.strip() for ln in f if ln.strip()]
    if not res:
        print(f"report: no fio results under {args.results}", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    doc = {"emulated": bool(args.emulated)}
    if args.meta:
        with open(args.meta) as f:
            doc["meta"] = json.load(f)
    doc.update(res)
    doc["configs"] = [c for c in CONFIGS if c in res]
    doc["skipped"] = skipped
    backing = load_backing(args.results)
    doc["backing"] = backing.get("device") if backing else None
    doc["backing_info"] = backing
    noisy = collect_noisy(args.noisy) if args.noisy else None
    if args.noisy and not noisy["guests"]:
        print(f"report: no noisy-neighbour results under {args.noisy}", file=sys.stderr)
        return 1
    doc["noisy"] = noisy
    dlat = load_dom0_latency(args.dom0_latency) if args.dom0_latency else None
    if args.dom0_latency and not dlat:
        print(f"report: no dom0-latency.json under {args.dom0_latency}", file=sys.stderr)
        return 1
    doc["dom0_latency"] = dlat
    with open(os.path.join(args.out, "fio.json"), "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
    md = tables(res, args.emulated, skipped, backing)
    if noisy:
        md += "\n" + noisy_table(noisy, args.emulated)
    if dlat:
        md += "\n" + dom0_latency_table(dlat, args.emulated)
    with open(os.path.join(args.out, "fio.md"), "w") as f:
        f.write(md + "\n")
    print(md)
    for p in plots(res, args.out, args.emulated):
        print(f"plot: {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
