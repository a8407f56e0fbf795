#!/usr/bin/env python3
"""Turn a scenario results directory into result.json and decide pass/fail.

Usage: summarize.py RESULTS_DIR [--scenario NAME] [--meta META.json]
                    [--emulated] [--out FILE]

RESULTS_DIR is what a scenario wrote via lib/fipc-scenario.sh: fio JSON
outputs <where>/<job>.json with exit statuses <where>/<job>.rc ("where" is
"dom0" or a domU name), optional <where>/guest.rc and phases.txt.  META
(written by fipc-testbed) adds the run's environment, phases and the
scenario's exit status.  Works on any host with python3 (stdlib only), e.g.
after running a scenario on a real Xen host.

Exit status: 0 if the run passed, 1 if not, 2 on usage errors.
Schema of result.json: docs/testbed.md ("Results").
"""
import argparse
import json
import os
import sys

SCHEMA = "fipc-testbed-result/1"


def read_int(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def load_fio_json(path):
    """fio may print warnings before the JSON document: skip to the first '{'."""
    with open(path, errors="replace") as f:
        text = f.read()
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON object in file")
    return json.JSONDecoder().raw_decode(text[start:])[0]


def lat_us(d):
    """mean/p50/p99 total latency in microseconds from a fio read/write block."""
    lat = d.get("lat_ns") or {}
    pct = lat.get("percentile") or (d.get("clat_ns") or {}).get("percentile") or {}

    def p(key):
        v = pct.get(key)
        return round(v / 1000.0, 2) if isinstance(v, (int, float)) else None

    mean = lat.get("mean")
    return {
        "mean": round(mean / 1000.0, 2) if isinstance(mean, (int, float)) else None,
        "p50": p("50.000000"),
        "p99": p("99.000000"),
    }


def direction(d):
    return {
        "iops": round(d.get("iops", 0.0), 1),
        "io_bytes": d.get("io_bytes", 0),
        "lat_us": lat_us(d),
    }


def job_entry(job, glob, where, rel, rc):
    opts = dict(glob)
    opts.update(job.get("job options") or {})
    rw = opts.get("rw", opts.get("readwrite", "read"))
    rd, wr = job.get("read", {}), job.get("write", {})
    mixed = rw in ("rw", "readwrite", "randrw", "trimwrite")
    main = wr if "write" in rw or rw in ("trim", "randtrim") else rd
    is_verify = opts.get("verify", "0") not in ("0", "none", "")
    error = job.get("error", 0)
    entry = {
        "name": job.get("jobname"),
        "where": where,
        "file": rel,
        "kind": "verify" if is_verify else "perf",
        "rw": rw,
        "bs": opts.get("bs"),
        "iodepth": int(opts["iodepth"]) if str(opts.get("iodepth", "")).isdigit() else opts.get("iodepth"),
        "ioengine": opts.get("ioengine"),
        "runtime_s": round(job.get("job_runtime", 0) / 1000.0, 2),
        # IOPS of the job's own workload; a verify job's read-back is in "read".
        "iops": round(rd.get("iops", 0.0) + wr.get("iops", 0.0) if mixed else main.get("iops", 0.0), 1),
        "lat_us": lat_us(main),
        "read": direction(rd),
        "write": direction(wr),
        "error": error,
        "fio_rc": rc,
        "verify": None,
    }
    if is_verify:
        # Passed only if fio completed without error AND the verify phase
        # really read back everything that was written.
        # (fio's exit status is per file and checked separately.)
        # A check split in two jobs: the writing one (do_verify=0) must
        # have written, the checking one (verify_only=1) must have read.
        if str(opts.get("verify_only", "0")) == "1":
            ok = error == 0 and rd.get("io_bytes", 0) > 0
        elif str(opts.get("do_verify", "1")) == "0":
            ok = error == 0 and wr.get("io_bytes", 0) > 0
        else:
            ok = (error == 0 and wr.get("io_bytes", 0) > 0
                  and rd.get("io_bytes", 0) >= wr.get("io_bytes", 0))
        entry["verify"] = "pass" if ok else "fail"
    return entry


def summarize(results, scenario=None, meta=None, emulated=False):
    meta = meta or {}
    failures = list(meta.get("failures", []))
    jobs = []
    guests = {}
    for dirpath, dirnames, filenames in os.walk(results):
        dirnames.sort()
        where = os.path.relpath(dirpath, results)
        if where == ".":
            continue
        if "guest.rc" in filenames:
            grc = read_int(os.path.join(dirpath, "guest.rc"))
            guests[where] = grc
            if grc != 0:
                failures.append("guest script of %s exited %s" % (where, grc))
        for fn in sorted(filenames):
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, results)
            # A scenario's own exit status (a scenario of a shared boot,
            # fipc-testbed run A+B, has its results in a directory of
            # its name) is judged below, not as a fio job's.
            if fn == "scenario.rc":
                rc = read_int(path)
                if rc != 0:
                    failures.append("scenario %s exited %s" % (where, rc))
                continue
            if fn.endswith(".rc") and fn != "guest.rc":
                rc = read_int(path)
                if not os.path.exists(path[:-3] + ".json"):
                    failures.append("fio %s: no JSON output (exit status %s)" % (rel[:-3], rc))
                continue
            if not fn.endswith(".json"):
                continue
            try:
                doc = load_fio_json(path)
            except (OSError, ValueError) as e:
                rc = read_int(path[:-5] + ".rc")
                if rc is not None:
                    failures.append("fio %s: unreadable JSON (%s), exit status %s" % (rel, e, rc))
                continue
            if "fio version" not in doc:
                continue
            rc = read_int(path[:-5] + ".rc")
            if rc is None:
                failures.append("fio %s: no exit status file" % rel)
            elif rc != 0:
                failures.append("fio %s exited %d" % (rel, rc))
            for job in doc.get("jobs", []):
                e = job_entry(job, doc.get("global options") or {}, where, rel, rc)
                if e["error"]:
                    failures.append("job %s/%s: fio error %s" % (where, e["name"], e["error"]))
                if e["verify"] == "fail":
                    failures.append("job %s/%s: data verification FAILED" % (where, e["name"]))
                jobs.append(e)
    if not jobs:
        failures.append("no fio results found in %s" % results)
    src = meta.get("scenario_rc")
    if src is None:
        src = read_int(os.path.join(results, "scenario.rc"))
    if src is not None and src != 0:
        failures.append("scenario script exited %s" % src)

    phases = list(meta.get("phases", []))
    try:
        with open(os.path.join(results, "phases.txt")) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and not any(p.get("name") == parts[0] for p in phases):
                    phases.append({"name": parts[0], "rc": int(parts[1]), "elapsed_s": float(parts[2])})
    except OSError:
        pass

    # de-duplicate failure messages, keep order
    seen = set()
    failures = [f for f in failures if not (f in seen or seen.add(f))]
    result = {
        "schema": SCHEMA,
        "scenario": scenario or meta.get("scenario"),
        "pass": not failures,
        "failures": failures,
        "emulated": bool(emulated or meta.get("emulated")),
        "timing_note": ("EMULATED: QEMU TCG (no KVM), timings are not representative of "
                        "real hardware; compare only runs on the same machine"
                        if (emulated or meta.get("emulated")) else meta.get("timing_note")),
        "environment": meta.get("environment", {}),
        "phases": phases,
        "scenario_rc": src,
        "guests": guests,
        "jobs": jobs,
    }
    for k in ("started", "duration_s", "log"):
        if k in meta:
            result[k] = meta[k]
    return result


def print_table(r, out=sys.stdout):
    hdr = "%-8s %-28s %-6s %9s %10s %9s %9s  %s" % (
        "where", "job", "kind", "IOPS", "lat_mean", "lat_p50", "lat_p99", "verify")
    print(hdr, file=out)
    for j in r["jobs"]:
        lat = j["lat_us"]
        f = lambda v: "-" if v is None else "%.1f" % v
        print("%-8s %-28s %-6s %9.1f %10s %9s %9s  %s" % (
            j["where"], j["name"], j["kind"], j["iops"], f(lat["mean"]), f(lat["p50"]),
            f(lat["p99"]), j["verify"] or "-"), file=out)
    print("(latencies in us%s)" % ("; EMULATED timings" if r["emulated"] else ""), file=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--scenario")
    ap.add_argument("--meta")
    ap.add_argument("--emulated", action="store_true")
    ap.add_argument("--out", help="default: RESULTS/result.json")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    if not os.path.isdir(a.results):
        print("summarize: no such directory %s" % a.results, file=sys.stderr)
        return 2
    meta = None
    if a.meta:
        with open(a.meta) as f:
            meta = json.load(f)
    r = summarize(a.results, a.scenario, meta, a.emulated)
    out = a.out or os.path.join(a.results, "result.json")
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(r, f, indent=2)
        f.write("\n")
    os.replace(tmp, out)
    if not a.quiet:
        print_table(r)
        for msg in r["failures"]:
            print("FAIL: " + msg)
        print("%s: %s" % (r["scenario"], "PASS" if r["pass"] else "FAIL"))
    return 0 if r["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
