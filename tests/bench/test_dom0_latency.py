"""Tests of the dom0 responsiveness benchmark (issue 48): the probe
(bench/dom0-latency/wakeprobe.c), the scenario's summary
(tests/testbed/scenarios/dom0-latency/summary.py), report.py's
--dom0-latency table and fipc-testbed's HOST_TOOLS build."""
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCEN = os.path.join(TOP, "tests", "testbed", "scenarios", "dom0-latency")
PROBE = os.path.join(TOP, "bench", "dom0-latency", "wakeprobe.c")
sys.path.insert(0, os.path.join(TOP, "bench", "fio"))
import report  # noqa: E402


def load_path(name, path):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


summarize = load_path("dom0lat_summary", os.path.join(SCEN, "summary.py"))


def load_runner():
    return load_path("fipc_testbed_dom0lat", os.path.join(TOP, "tests", "testbed", "fipc-testbed"))


def probe_line(label, mode, count, p50, p99, mx):
    return json.dumps({"label": label, "mode": mode, "cpu": 0, "interval_us": 1000,
                       "seconds": 3.0, "count": count, "p50_us": p50, "p99_us": p99,
                       "max_us": mx, "mean_us": p50})


def fio_burst(ios_r, ios_w, ms=2000, error=0):
    return {"fio version": "fio-3.33",
            "jobs": [{"jobname": "burst-randrw-4k-qd32", "error": error, "job_runtime": ms,
                      "read": {"total_ios": ios_r, "runtime": ms},
                      "write": {"total_ios": ios_w, "runtime": ms}}]}


# Recorded-shape results: sleep p99 per (round, config); pipe p99 twice it.
P99 = {(1, "idle"): 300.0, (1, "phy"): 900.0, (1, "phy1"): 1000.0,
       (2, "idle"): 320.0, (2, "phy"): 1100.0, (2, "phy1"): 1050.0}


def make_results(d, p99=None, hog_p99=19500.0, dev_ios=900, burst_ios=3000, rounds=2):
    p99 = p99 or P99
    os.makedirs(os.path.join(d, "dom0"))
    os.makedirs(os.path.join(d, "guest"))
    with open(os.path.join(d, "dom0", "selftest.jsonl"), "w") as f:
        f.write(probe_line("selftest", "sleep", 1500, 80.0, hog_p99, 20100.0) + "\n")
    for (r, cfg), v in p99.items():
        if r > rounds:
            continue
        phase = f"r{r}.{cfg}"
        with open(os.path.join(d, "dom0", f"probe-{phase}.jsonl"), "w") as f:
            f.write(probe_line(phase, "sleep", 2500, 70.0, v, v * 3) + "\n")
            f.write(probe_line(phase, "pipe", 2600, 5.0, v * 2, v * 4) + "\n")
        with open(os.path.join(d, "dom0", f"dev-{phase}.txt"), "w") as f:
            f.write(f"ios {0 if cfg == 'idle' else dev_ios} seconds 6.000\n")
        if cfg != "idle":
            for b in (1, 2):
                with open(os.path.join(d, "guest", f"{phase}-b{b}.json"), "w") as f:
                    f.write("note: a warning first\n"
                            + json.dumps(fio_burst(burst_ios // 2, burst_ios // 2)))
                with open(os.path.join(d, "guest", f"{phase}-b{b}.rc"), "w") as f:
                    f.write("0\n")
    return d


def test_summary_figures_and_target(tmp_path):
    doc = summarize.summarize(make_results(str(tmp_path)), probe_s=3)
    assert doc["ok"], [c for c in doc["checks"] if not c["ok"]]
    assert doc["rounds"] == 2
    phy, phy1, idle = doc["configs"]["phy"], doc["configs"]["phy1"], doc["configs"]["idle"]
    assert phy["sleep"]["p99_us"] == 1000.0 and phy1["sleep"]["p99_us"] == 1025.0
    assert phy["sleep"]["max_us"] == 3300.0 and phy["pipe"]["p99_us"] == 2000.0
    assert phy["sleep"]["p99_range_us"] == 200.0 and idle["sleep"]["p99_range_us"] == 20.0
    assert phy1["iops_probe"] == 150.0 and phy1["iops_fio"] == 1500.0
    assert "iops_fio" not in idle
    t = doc["target"]
    assert t == {"phy_p99_us": 1000.0, "phy1_p99_us": 1025.0, "spread_us": 200.0,
                 "met": True, "judged": False, "spread_known": True}
    assert "met (reported, not judged" in summarize.result_line(doc)


def test_target_not_met_is_reported_and_judged_on_request(tmp_path):
    p99 = dict(P99)
    p99[(1, "phy1")], p99[(2, "phy1")] = 2000.0, 2100.0
    d = make_results(str(tmp_path), p99=p99)
    doc = summarize.summarize(d, probe_s=3)
    assert doc["target"]["met"] is False and doc["ok"]
    assert "not met" in summarize.result_line(doc)
    doc = summarize.summarize(d, probe_s=3, judge=True)
    assert not doc["ok"]
    assert [c["name"] for c in doc["checks"] if not c["ok"]] == ["target phy1 no worse than phy"]


def test_checks_fail(tmp_path):
    # The hog's p99 below half its spin: the probe did not see it.
    doc = summarize.summarize(make_results(str(tmp_path / "a"), hog_p99=900.0), probe_s=3)
    assert [c["name"] for c in doc["checks"] if not c["ok"]] == ["selftest"]
    # No guest I/O reached the device, the bursts did none.
    doc = summarize.summarize(make_results(str(tmp_path / "b"), dev_ios=0, burst_ios=0),
                              probe_s=3)
    bad = {c["name"] for c in doc["checks"] if not c["ok"]}
    assert "r1.phy1 guest I/O during the probe" in bad and "r2.phy guest bursts" in bad
    assert not any(n.startswith(("r1.idle", "r2.idle")) for n in bad)
    # A burst whose fio exited non-zero (its .rc beside the JSON).
    d = make_results(str(tmp_path / "f"))
    with open(os.path.join(d, "guest", "r2.phy1-b2.rc"), "w") as f:
        f.write("1\n")
    doc = summarize.summarize(d, probe_s=3)
    assert [c["name"] for c in doc["checks"] if not c["ok"]] == ["r2.phy1 guest bursts"]
    # Too few samples: 3 s of 1 ms sleeps is 3000 due, 300 at least.
    d = make_results(str(tmp_path / "c"))
    with open(os.path.join(d, "dom0", "probe-r2.phy.jsonl"), "w") as f:
        f.write(probe_line("r2.phy", "sleep", 299, 70.0, 1.0, 3.0) + "\n")
    doc = summarize.summarize(d, probe_s=3)
    bad = {c["name"] for c in doc["checks"] if not c["ok"]}
    assert bad == {"r2.phy sleep samples", "r2.phy pipe samples"}
    # A configuration never measured.
    d = make_results(str(tmp_path / "e"))
    for r in (1, 2):
        os.remove(os.path.join(d, "dom0", f"probe-r{r}.phy1.jsonl"))
    doc = summarize.summarize(d, probe_s=3)
    assert not doc["ok"] and doc["target"] is None
    assert "phy1 measured" in {c["name"] for c in doc["checks"] if not c["ok"]}


def test_recorded_run(tmp_path):
    """Run 2 of 2026-11-30 (emulated, Debian 12 testbed): its probe lines,
    device counts and the first burst of each phase as the guest wrote it."""
    d = str(tmp_path / "r")
    shutil.copytree(os.path.join(os.path.dirname(__file__), "data", "dom0-latency-run2"), d)
    doc = summarize.summarize(d, probe_s=3)
    assert doc["ok"] and doc["rounds"] == 2 and len(doc["checks"]) == 21
    c = doc["configs"]
    assert c["idle"]["sleep"]["p99_us"] == 3932.5 and c["idle"]["pipe"]["p50_us"] == 77.8
    assert c["phy"]["sleep"]["p99_us"] == 14748.2 and c["phy1"]["sleep"]["p99_us"] == 6484.2
    assert c["phy"]["iops_probe"] == 601.7 and c["phy1"]["iops_fio"] == 1261.5
    assert doc["target"]["met"] and doc["target"]["spread_us"] == 3576.7
    md = report.dom0_latency_table(doc, emulated=True)
    assert "| phy: (xen-blkback) | 179.9 | 14,748.2 | 55,276.4 | 81.6 | 305.9 | 3,242.2 | " \
        "602 | 1,124 |" in md.splitlines()
    # The bursts' fio results as the guest wrote them, with no exit status
    # recorded: each still counts; a burst without I/O does not.
    os.remove(os.path.join(d, "guest", "r1.phy1-b1.json"))
    with open(os.path.join(d, "guest", "r1.phy1-b1.json"), "w") as f:
        json.dump(fio_burst(0, 0), f)
    doc = summarize.summarize(d, probe_s=3)
    assert [x["name"] for x in doc["checks"] if not x["ok"]] == ["r1.phy1 guest bursts"]


def test_one_round_has_no_spread(tmp_path):
    doc = summarize.summarize(make_results(str(tmp_path), rounds=1), probe_s=3)
    assert doc["rounds"] == 1 and doc["target"]["spread_us"] == 0
    assert doc["target"]["met"] is False and not doc["target"]["spread_known"]
    assert "one round: no spread" in summarize.result_line(doc)


def test_summarize_main_writes_json_and_exit_status(tmp_path):
    d = make_results(str(tmp_path / "ok"))
    r = subprocess.run([sys.executable, os.path.join(SCEN, "summary.py"), d, "--probe-s", "3"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "@@DOM0LAT result: dom0 wake-up p99 phy1 1025.0 us vs phy 1000.0 us" in r.stdout
    with open(os.path.join(d, "dom0-latency.json")) as f:
        assert json.load(f)["configs"]["phy"]["sleep"]["p50_us"] == 70.0
    d = make_results(str(tmp_path / "bad"), dev_ios=0)
    r = subprocess.run([sys.executable, os.path.join(SCEN, "summary.py"), d, "--probe-s", "3"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "@@DOM0LAT FAIL r1.phy guest I/O" in r.stdout


def test_report_table(tmp_path):
    doc = summarize.summarize(make_results(str(tmp_path)), probe_s=3)
    md = report.dom0_latency_table(doc, emulated=True)
    assert md.startswith("### dom0 responsiveness: dom0's wake-ups while a guest bursts I/O "
                         "(emulated: QEMU TCG testbed, functional evidence only)")
    lines = md.splitlines()
    assert "| guest idle | 70.0 | 310.0 | 960.0 | 5.0 | 620.0 | 1,280.0 | 0 | - |" in lines
    assert "| phy: (xen-blkback) | 70.0 | 1,000.0 | 3,300.0 | 5.0 | 2,000.0 | 4,400.0 | " \
        "150 | 1,500 |" in lines
    assert "| phy1: (xen-fipc-back) | 70.0 | 1,025.0 | 3,150.0 | 5.0 | 2,050.0 | 4,200.0 | " \
        "150 | 1,500 |" in lines
    assert "Target (phy1 no worse than phy): sleep p99 phy1 1025.0 us, phy 1000.0 us, the " \
        "rounds' spread 200.0 us: met (reported, not judged: emulated timings)." in lines
    assert "Checks: 21 of 21 passed." in lines
    doc["checks"][0]["ok"] = False
    doc["target"]["met"] = False
    md = report.dom0_latency_table(doc, emulated=False)
    assert "Checks: 20 of 21 passed; failed: selftest." in md and ": not met (" in md
    assert "emulated" not in md
    assert report.dom0_latency_table(None, emulated=True) == ""


def test_report_main_with_dom0_latency(tmp_path):
    sys.path.insert(0, os.path.dirname(__file__))
    from test_fio_report import fio_json, write
    write(tmp_path / "r", "phy", "lat-4k-read", fio_json(1000.0, 1000000, 1, 2))
    d = make_results(str(tmp_path / "dl"))
    subprocess.run([sys.executable, os.path.join(SCEN, "summary.py"), d, "--probe-s", "3"],
                   check=True, capture_output=True)
    cmd = [sys.executable, os.path.join(TOP, "bench", "fio", "report.py"), str(tmp_path / "r"),
           "--out", str(tmp_path / "out"), "--emulated", "--dom0-latency"]
    r = subprocess.run(cmd + [d], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(tmp_path / "out" / "fio.md") as f:
        assert "### dom0 responsiveness" in f.read()
    with open(tmp_path / "out" / "fio.json") as f:
        assert json.load(f)["dom0_latency"]["target"]["met"] is True
    r = subprocess.run(cmd + [str(tmp_path / "nothing")], capture_output=True, text=True)
    assert r.returncode == 1 and "no dom0-latency.json" in r.stderr


@pytest.fixture(scope="module")
def probe_bin(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    out = str(tmp_path_factory.mktemp("probe") / "wakeprobe")
    subprocess.run([cc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", out, PROBE], check=True)
    return out


def test_wakeprobe_output(probe_bin):
    r = subprocess.run([probe_bin, "-d", "0.4", "-i", "2000", "-l", "t"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    recs = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert [x["mode"] for x in recs] == ["sleep", "pipe"]
    for x in recs:
        assert x["label"] == "t" and x["interval_us"] == 2000 and x["seconds"] == 0.2
        assert 20 <= x["count"] <= 100
        assert 0 <= x["p50_us"] <= x["p99_us"] <= x["max_us"]
    r = subprocess.run([probe_bin, "-m", "pipe", "-d", "0.1"], capture_output=True, text=True)
    assert [json.loads(ln)["mode"] for ln in r.stdout.splitlines()] == ["pipe"]
    for bad in (["-m", "spin"], ["-d", "0"], ["-l", 'a"b'], ["extra"]):
        r = subprocess.run([probe_bin] + bad, capture_output=True, text=True)
        assert r.returncode == 2 and "usage" in r.stderr


def test_percentile_nearest_rank(probe_bin):
    # 0.2 s at 1 ms: the p99 of ~200 samples is one of the two largest.
    r = subprocess.run([probe_bin, "-m", "sleep", "-d", "0.2"], capture_output=True, text=True)
    x = json.loads(r.stdout)
    assert x["p99_us"] <= x["max_us"] and x["count"] > 0


def test_stage_tools(tmp_path):
    if not (shutil.which("cc") or os.environ.get("FIPC_HOST_CC")):
        pytest.skip("no C compiler")
    tb = load_runner()
    conf = tb.read_conf(os.path.join(SCEN, "scenario.conf"))
    assert conf["HOST_TOOLS"] == "bench/dom0-latency/wakeprobe.c"
    try:
        built = tb.stage_tools(str(tmp_path), [("dom0-latency", conf), ("other", {})])
    except tb.Failure as f:
        if "cannot find -lc" in f.msg:
            pytest.skip("no static libc")
        raise
    assert built == ["wakeprobe"]
    exe = tmp_path / "tools" / "wakeprobe"
    assert os.access(exe, os.X_OK)
    assert b"statically linked" in subprocess.run(["file", str(exe)], capture_output=True).stdout \
        or not shutil.which("file")
    bad = tmp_path / "bad.c"
    bad.write_text("int main(void) { return x; }\n")
    with pytest.raises(tb.Failure):
        tb.stage_tools(str(tmp_path / "s2"), [("s", {"HOST_TOOLS": str(bad)})])
