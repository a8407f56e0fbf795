"""Tests of bench/fio/report.py: parsing real fio output and the tables."""
import json
import os
import shutil
import subprocess
import sys

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench", "fio"))
import report  # noqa: E402


def fio_json(iops, lat_mean_ns, p50_ns, p99_ns, rw="read", ios=1000):
    """A minimal document with the fields fio's JSON output has."""
    empty = {"iops": 0, "bw": 0, "total_ios": 0, "lat_ns": {"mean": 0}}
    sec = {"iops": iops, "bw": iops * 4, "total_ios": ios,
           "lat_ns": {"mean": lat_mean_ns,
                      "percentile": {"50.000000": p50_ns, "99.000000": p99_ns,
                                     "99.900000": p99_ns * 2}}}
    job = {"read": empty, "write": empty, "usr_cpu": 1.0, "sys_cpu": 2.0}
    job[rw] = sec
    return {"fio version": "fio-3.33", "jobs": [job]}


def write(d, cfg, job, doc, prefix=""):
    os.makedirs(os.path.join(d, cfg), exist_ok=True)
    with open(os.path.join(d, cfg, job + ".json"), "w") as f:
        f.write(prefix + json.dumps(doc))


def test_parse_fields_and_text_before_json(tmp_path):
    write(tmp_path, "dom0", "iops-4k-write",
          fio_json(1000.0, 5000, 4000, 9000, rw="write"),
          prefix="fio: some warning\n")
    r = report.load_fio(tmp_path / "dom0" / "iops-4k-write.json")
    assert r["rw"] == "write"
    assert r["iops"] == 1000.0
    assert r["lat_us"] == {"mean": 5.0, "p50": 4.0, "p99": 9.0, "p99.9": 18.0}


def test_relative_tables_and_per_io(tmp_path):
    write(tmp_path, "dom0", "iops-4k-read", fio_json(900.0, 1000, 1000, 2000))
    write(tmp_path, "phy", "iops-4k-read", fio_json(300.0, 3000, 3000, 6000))
    write(tmp_path, "phy1-memshare", "iops-4k-read", fio_json(810.0, 1500, 1500, 3000))
    with open(tmp_path / "phy" / "counters.json", "w") as f:
        json.dump({"evtchn_notifications": 2500, "ios": 1000}, f)
    res = report.collect(str(tmp_path))
    assert res["phy"]["per_io"]["evtchn_notifications"] == 2.5
    md = report.tables(res, emulated=True)
    assert "emulated" in md
    row = [ln for ln in md.splitlines() if ln.startswith("| iops-4k-read |") and "%" in ln][0]
    # phy is 33.3% of host; memshare 90.0% of host and 2.70x classic.
    assert "33.3%" in row and "90.0%" in row and "2.70x" in row


def test_per_job_counters_and_latency_vs_classic(tmp_path):
    write(tmp_path, "dom0", "lat-4k-read", fio_json(5000.0, 100000, 1, 2))
    write(tmp_path, "phy", "lat-4k-read", fio_json(1000.0, 1000000, 1, 2))
    write(tmp_path, "phy1-grant", "lat-4k-read", fio_json(800.0, 1250000, 1, 2, ios=400))
    d = tmp_path / "phy1-grant"
    (d / "lat-4k-read.counters-before").write_text("evtchn_to_front 100\nevtchn_to_back 7\n")
    (d / "lat-4k-read.counters-after").write_text("evtchn_to_front 300\nevtchn_to_back 7\nnew 5\n")
    res = report.collect(str(tmp_path))
    # Deltas over the job's I/Os; a counter missing before is left out.
    assert res["phy1-grant"]["jobs"]["lat-4k-read"]["per_io"] == \
        {"evtchn_to_back": 0.0, "evtchn_to_front": 0.5}
    assert "per_io" not in res["phy"]["jobs"]["lat-4k-read"]
    md = report.tables(res, emulated=False)
    row = [ln for ln in md.splitlines()
           if ln.startswith("| lat-4k-read | evtchn_to_front |")][0]
    assert row.endswith("| - | - | 0.500 |")
    # 1250 us against classic's 1000 us is 25% slower, not "-(-25)%".
    rel = [ln for ln in md.splitlines() if ln.startswith("| lat-4k-read |") and "%" in ln][0]
    assert "+25.0%" in rel


def test_main_writes_json_with_every_config(tmp_path):
    for cfg, iops in (("dom0", 10.0), ("phy", 5.0), ("phy1-grant", 7.0)):
        write(tmp_path / "res", cfg, "lat-512-read", fio_json(iops, 100000 / iops, 1, 2))
    out = tmp_path / "out"
    rc = subprocess.run([sys.executable, os.path.join(TOP, "bench/fio/report.py"),
                         str(tmp_path / "res"), "--out", str(out), "--emulated"],
                        capture_output=True, text=True)
    assert rc.returncode == 0, rc.stderr
    doc = json.load(open(out / "fio.json"))
    assert doc["emulated"] is True
    assert doc["configs"] == ["dom0", "phy", "phy1-grant"]
    assert doc["phy"]["jobs"]["lat-512-read"]["lat_us"]["mean"] == 20.0


def test_empty_results_fail(tmp_path):
    rc = subprocess.run([sys.executable, os.path.join(TOP, "bench/fio/report.py"),
                         str(tmp_path), "--out", str(tmp_path / "o")],
                        capture_output=True, text=True)
    assert rc.returncode == 1
    assert "no fio results" in rc.stderr


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio not installed")
def test_real_fio_output(tmp_path):
    """fio's real JSON (on a scratch file) parses into sane numbers."""
    os.makedirs(tmp_path / "dom0")
    with open(tmp_path / "dom0" / "lat-4k-read.json", "w") as f:
        subprocess.run(["fio", "--name=lat-4k-read", f"--filename={tmp_path}/data",
                        "--size=1m", "--bs=4k", "--rw=read", "--ioengine=sync",
                        "--number_ios=64", "--output-format=json",
                        "--lat_percentiles=1"], stdout=f, check=True)
    r = report.collect(str(tmp_path))["dom0"]["jobs"]["lat-4k-read"]
    assert r["ios"] == 64
    assert r["iops"] > 0 and r["lat_us"]["mean"] > 0
    assert r["lat_us"]["p50"] <= r["lat_us"]["p99"]


def test_poller_cpu_per_io_and_na(tmp_path):
    for cfg in ("dom0", "phy", "phy1-grant"):
        write(tmp_path, cfg, "iops-4k-read", fio_json(100.0, 1000, 1000, 2000, ios=2000))
    with open(tmp_path / "phy" / "counters.json", "w") as f:
        json.dump({"evtchn_to_back": 10, "dom0_cpu_seconds": 1.0}, f)
    with open(tmp_path / "phy1-grant" / "counters.json", "w") as f:
        json.dump({"evtchn_to_back": 10, "dom0_cpu_seconds": 2.0,
                   "front_poller_cpu_seconds": 0.5, "back_poller_cpu_seconds": 1.25}, f)
    res = report.collect(str(tmp_path))
    g = res["phy1-grant"]["per_io"]
    # Seconds over 2000 I/Os, in microseconds per I/O.
    assert g["front_poller_cpu_us_per_io"] == 250.0
    assert g["back_poller_cpu_us_per_io"] == 625.0
    assert g["dom0_cpu_us_per_io"] == 1000.0
    assert g["evtchn_to_back"] == 0.005
    # Classic has no pollers: null, not 0.
    assert res["phy"]["counters"]["front_poller_cpu_seconds"] is None
    assert res["phy"]["per_io"]["back_poller_cpu_us_per_io"] is None
    md = report.tables(res, emulated=True)
    row = [ln for ln in md.splitlines() if ln.startswith("| back_poller us per I/O |")][0]
    assert row == "| back_poller us per I/O | n/a | n/a | 625.0 |"
    row = [ln for ln in md.splitlines() if ln.startswith("| front_poller seconds |")][0]
    assert row == "| front_poller seconds | n/a | n/a | 0.50 |"
    row = [ln for ln in md.splitlines() if ln.startswith("| dom0 us per I/O |")][0]
    assert row == "| dom0 us per I/O | - | 500.0 | 1,000.0 |"
    # The report leads with the per I/O cost table: counters, then the
    # pollers' CPU per I/O (n/a where a configuration has no pollers),
    # before any timing table; the domains' CPU is not in it.
    lines = md.splitlines()
    lead = [i for i, ln in enumerate(lines) if ln.startswith("### Per I/O cost")]
    iops = [i for i, ln in enumerate(lines) if ln.startswith("### IOPS")]
    assert lead and iops and lead[0] < iops[0]
    assert "| evtchn_to_back | - | 0.005 | 0.005 |" in lines
    assert "| back_poller_cpu_us_per_io | n/a | n/a | 625.0 |" in lines
    assert not [ln for ln in lines if ln.startswith("| dom0_cpu_us_per_io |")]


def test_per_job_poller_cpu(tmp_path):
    write(tmp_path, "phy", "lat-4k-read", fio_json(10.0, 1, 1, 2, ios=100))
    write(tmp_path, "phy1-grant", "lat-4k-read", fio_json(10.0, 1, 1, 2, ios=100))
    for cfg in ("phy", "phy1-grant"):
        (tmp_path / cfg / "lat-4k-read.counters-before").write_text("evtchn_to_front 0\n")
        (tmp_path / cfg / "lat-4k-read.counters-after").write_text("evtchn_to_front 50\n")
    d = tmp_path / "phy1-grant"
    with open(d / "lat-4k-read.counters-before", "a") as f:
        f.write("front_poller_cpu_us 1000000\n")
    with open(d / "lat-4k-read.counters-after", "a") as f:
        f.write("front_poller_cpu_us 1003000\n")
    res = report.collect(str(tmp_path))
    assert res["phy1-grant"]["jobs"]["lat-4k-read"]["per_io"]["front_poller_cpu_us"] == 30.0
    md = report.tables(res, emulated=False)
    row = [ln for ln in md.splitlines()
           if ln.startswith("| lat-4k-read | front_poller_cpu_us |")][0]
    assert row == "| lat-4k-read | front_poller_cpu_us | n/a | 30.000 |"


def test_backing_device_recorded(tmp_path):
    res_dir = tmp_path / "res"
    write(res_dir, "dom0", "iops-4k-read", fio_json(10.0, 1, 1, 2))
    info = {"device": "/dev/nvme0n1", "kind": "nvme", "model": "QEMU NVMe Ctrl",
            "size_bytes": 1 << 30}
    (res_dir / "backing.json").write_text(json.dumps(info))
    out = tmp_path / "out"
    rc = subprocess.run([sys.executable, os.path.join(TOP, "bench/fio/report.py"),
                         str(res_dir), "--out", str(out)], capture_output=True, text=True)
    assert rc.returncode == 0, rc.stderr
    doc = json.load(open(out / "fio.json"))
    assert doc["backing"] == "/dev/nvme0n1"
    assert doc["backing_info"] == info
    md = (out / "fio.md").read_text()
    assert md.startswith("Timed device: /dev/nvme0n1 (nvme, QEMU NVMe Ctrl, 1.0 GiB)")
    # Without backing.json (older results) the device is unknown, not guessed.
    (res_dir / "backing.json").unlink()
    subprocess.run([sys.executable, os.path.join(TOP, "bench/fio/report.py"),
                    str(res_dir), "--out", str(out)], capture_output=True, check=True)
    assert json.load(open(out / "fio.json"))["backing"] is None


def test_idle_window_table(tmp_path):
    write(tmp_path, "phy", "lat-4k-read", fio_json(1000.0, 1000000, 1, 2))
    write(tmp_path, "phy1-grant", "lat-4k-read", fio_json(1000.0, 900000, 1, 2))
    (tmp_path / "phy" / "idle.json").write_text(
        json.dumps({"idle_seconds": 10, "evtchn_to_front": 3, "evtchn_to_back": 0}))
    (tmp_path / "phy1-grant" / "idle.json").write_text(
        json.dumps({"idle_seconds": 10, "evtchn_to_front": 0, "evtchn_to_back": 1,
                    "front_poller_cpu_seconds": 0.0, "back_poller_cpu_seconds": 0.02}))
    (tmp_path / "phy1-grant" / "idle-front.json").write_text(
        json.dumps({"idle_seconds": 10, "evtchn_to_front": 0}))
    res = report.collect(str(tmp_path))
    # The idle files are not fio jobs.
    assert sorted(res["phy1-grant"]["jobs"]) == ["lat-4k-read"]
    assert res["phy1-grant"]["idle"]["back_poller_cpu_seconds"] == 0.02
    md = report.tables(res, emulated=True)
    lines = md.splitlines()
    head = lines.index(
        "### Idle: 10 s without I/O after the jobs (emulated: QEMU TCG testbed, "
        "functional evidence only)")
    # Right after the per I/O cost table, before the timings.
    assert head < [i for i, ln in enumerate(lines) if ln.startswith("### Latency")][0]
    assert "| back_poller_cpu_seconds | n/a | 0.02 |" in lines
    assert "| front_poller_cpu_seconds | n/a | 0.00 |" in lines
    assert "| evtchn_to_front | 3 | 0 |" in lines


def test_noisy_neighbour_section(tmp_path):
    nd = tmp_path / "noisy"
    # B: phy p99 1000 -> 3000 (3x), phy1 800 -> 1600 (2x); C: phy 2x, phy1 2.5x.
    for g, cfg, when, p99 in (("B", "phy", "alone", 1000), ("B", "phy", "beside", 3000),
                              ("B", "phy1", "alone", 800), ("B", "phy1", "beside", 1600),
                              ("C", "phy", "alone", 1000), ("C", "phy", "beside", 2000),
                              ("C", "phy1", "alone", 1000), ("C", "phy1", "beside", 2500)):
        write(nd, g, f"{cfg}-{when}", fio_json(100.0, p99 * 500, p99 * 500, p99 * 1000))
    noisy = report.collect_noisy(str(nd))
    assert noisy["guests"]["B"]["phy"]["p99_ratio"] == 3.0
    assert noisy["guests"]["C"]["phy1"]["p99_ratio"] == 2.5
    assert noisy["worst_p99_ratio"] == {"phy": 3.0, "phy1": 2.5}
    assert noisy["phy1_no_worse_than_phy"] is True
    md = report.noisy_table(noisy, emulated=True)
    assert "| B | phy1 | 1 | 400.0 | 800.0 | 800.0 | 1,600.0 | 2.00x |" in md
    assert noisy["rounds"] == 1 and "Round by round" not in md
    assert "phy 3.00x, phy1 2.50x; target (phy1 no worse than phy): met" in md
    # A guest without both runs of a configuration is left out.
    (nd / "C" / "phy1-beside.json").unlink()
    noisy = report.collect_noisy(str(nd))
    assert "phy1" not in noisy["guests"]["C"]
    assert noisy["worst_p99_ratio"]["phy1"] == 2.0


def test_noisy_neighbour_rounds(tmp_path):
    """Several rounds (r<N>.<cfg>-<when>.json): each guest's ratio is the
    median over its rounds, not the worst, and every round is listed."""
    nd = tmp_path / "noisy"
    ratios = {"phy": (1.2, 1.0, 3.0), "phy1": (1.1, 1.5, 1.0)}
    for g in ("B", "C"):
        for cfg, rs in ratios.items():
            for n, ratio in enumerate(rs, 1):
                alone = 1000 if g == "B" else 2000
                write(nd, g, f"r{n}.{cfg}-alone", fio_json(100.0, alone * 500, alone * 500, alone * 1000))
                beside = int(alone * ratio)
                write(nd, g, f"r{n}.{cfg}-beside", fio_json(100.0, beside * 500, beside * 500, beside * 1000))
    # A round with only one of its phases is left out.
    write(nd, "B", "r4.phy1-alone", fio_json(100.0, 500000, 500000, 1000000))
    noisy = report.collect_noisy(str(nd))
    assert noisy["rounds"] == 3
    assert [r["p99_ratio"] for r in noisy["guests"]["B"]["phy"]["rounds"]] == [1.2, 1.0, 3.0]
    assert noisy["guests"]["B"]["phy"]["p99_ratio"] == 1.2
    assert noisy["guests"]["C"]["phy1"]["p99_ratio"] == 1.1
    assert noisy["worst_p99_ratio"] == {"phy": 1.2, "phy1": 1.1}
    assert noisy["phy1_no_worse_than_phy"] is True
    assert noisy["rounds_compared"] == 3 and noisy["rounds_phy1_no_worse"] == 2
    md = report.noisy_table(noisy, emulated=True)
    assert "| C | phy | 3 | 1,000.0 | 2,000.0 | 3,000.0 | 6,000.0 | 3.00x |" in md
    assert "(each guest's median over 3 rounds): phy 1.20x, phy1 1.10x; " \
        "target (phy1 no worse than phy): met" in md
    assert "2: phy 1.00x, phy1 1.50x" in md
    assert "phy1 no worse in 2 of 3 rounds." in md
    # The worst guest moved 2.0 (phy) and 0.5 (phy1) between rounds; the
    # medians differ by 0.1: noise, and the report says so.
    assert noisy["round_spread"] == {"phy": 2.0, "phy1": 0.5}
    assert noisy["within_round_spread"] is True
    assert "phy and phy1 differ by 0.10, less than their worst quiet guest " \
        "moved between rounds (phy 2.00, phy1 0.50): the rounds do not tell " \
        "them apart." in md


def test_noisy_neighbour_difference_beyond_spread(tmp_path):
    """A difference larger than either configuration moved between rounds
    is reported as one; a single round gives no such statement."""
    nd = tmp_path / "noisy"
    ratios = {"phy": (2.0, 2.1), "phy1": (1.0, 1.05)}
    for g in ("B", "C"):
        for cfg, rs in ratios.items():
            for n, ratio in enumerate(rs, 1):
                write(nd, g, f"r{n}.{cfg}-alone", fio_json(100.0, 500000, 500000, 1000000))
                beside = int(1000 * ratio)
                write(nd, g, f"r{n}.{cfg}-beside", fio_json(100.0, 500000, 500000, beside * 1000))
    noisy = report.collect_noisy(str(nd))
    assert noisy["within_round_spread"] is False
    md = report.noisy_table(noisy, emulated=True)
    assert "phy and phy1 differ by 1.03, more than their worst quiet guest moved " \
        "between rounds (phy 0.10, phy1 0.05): a difference the rounds' noise " \
        "does not explain, in this boot; emulated boots have differed by more " \
        "(docs/benchmarks.md, run AY), so one boot does not settle the target." in md
    # On a real host the boot's own rounds are the evidence.
    assert "between rounds (phy 0.10, phy1 0.05): a difference the rounds' noise " \
        "does not explain.\n" in report.noisy_table(noisy, emulated=False)
    for g in ("B", "C"):
        for cfg in ratios:
            for when in ("alone", "beside"):
                (nd / g / f"r2.{cfg}-{when}.json").unlink()
    noisy = report.collect_noisy(str(nd))
    assert noisy["round_spread"] == {} and noisy["within_round_spread"] is None
    assert "differ by" not in report.noisy_table(noisy, emulated=True)


def test_noisy_neighbour_verdict_unrounded(tmp_path):
    """The verdict compares the ratios before rounding: phy1 1.004x is
    worse than phy 0.996x though both show as 1.00x."""
    nd = tmp_path / "noisy"
    for g in ("B", "C"):
        for cfg, beside in (("phy", 996), ("phy1", 1004)):
            write(nd, g, f"{cfg}-alone", fio_json(100.0, 500000, 500000, 1000000))
            write(nd, g, f"{cfg}-beside", fio_json(100.0, 500000, 500000, beside * 1000))
    noisy = report.collect_noisy(str(nd))
    assert noisy["worst_p99_ratio"] == {"phy": 1.0, "phy1": 1.0}
    assert noisy["phy1_no_worse_than_phy"] is False
    assert "target (phy1 no worse than phy): not met" in report.noisy_table(noisy, emulated=True)


def test_main_with_noisy(tmp_path):
    write(tmp_path / "r", "phy", "lat-4k-read", fio_json(1000.0, 1000000, 1, 2))
    nd = tmp_path / "noisy"
    for g in ("B", "C"):
        for cfg in ("phy", "phy1"):
            for when in ("alone", "beside"):
                write(nd, g, f"{cfg}-{when}", fio_json(100.0, 1000, 1000, 2000))
    out = tmp_path / "out"
    subprocess.run([sys.executable, os.path.join(TOP, "bench", "fio", "report.py"),
                    str(tmp_path / "r"), "--out", str(out), "--noisy", str(nd)],
                   check=True, capture_output=True)
    doc = json.loads((out / "fio.json").read_text())
    assert doc["noisy"]["worst_p99_ratio"] == {"phy": 1.0, "phy1": 1.0}
    assert "### Noisy neighbour" in (out / "fio.md").read_text()
    # An empty noisy directory is an error, not a silent omission.
    (nd / "empty").mkdir()
    r = subprocess.run([sys.executable, os.path.join(TOP, "bench", "fio", "report.py"),
                        str(tmp_path / "r"), "--out", str(out), "--noisy", str(nd / "empty")],
                       capture_output=True)
    assert r.returncode == 1


def test_pvh_configs_beside_pv_ones(tmp_path):
    # make bench-pvh: the PVH guests' configurations come after the PV
    # ones, each with its own column in the per I/O cost table.
    for cfg in ("phy1-memshare-pvh", "phy1-grant-pvh", "phy-pvh",
                "phy1-memshare", "phy1-grant", "phy", "dom0"):
        write(tmp_path, cfg, "lat-4k-read", fio_json(10.0, 1, 1, 2, ios=100))
    for cfg, grants in (("phy1-grant", 0), ("phy1-memshare", 0),
                        ("phy1-grant-pvh", 300), ("phy1-memshare-pvh", 0)):
        with open(tmp_path / cfg / "counters.json", "w") as f:
            json.dump({"back_grant_ops": grants, "ios": 100}, f)
    res = report.collect(str(tmp_path))
    lines = report.tables(res, emulated=True).splitlines()
    head = [ln for ln in lines if ln.startswith("| per I/O |")][0]
    assert head == ("| per I/O | dom0 | phy | phy1-grant | phy1-memshare | phy-pvh"
                    " | phy1-grant-pvh | phy1-memshare-pvh |")
    assert "| back_grant_ops | - | - | 0.000 | 0.000 | - | 3.000 | 0.000 |" in lines


def test_desktop_profiles_table(tmp_path):
    """fipc bench's desktop profiles: IOPS, MB/s and mean latency, and
    their IOPS as a share of the host's and against classic."""
    write(tmp_path, "dom0", "desk-rand4k-q1-write",
          fio_json(4000.0, 250000, 1, 2, rw="write"))
    write(tmp_path, "phy", "desk-rand4k-q1-write",
          fio_json(1000.0, 1000000, 1, 2, rw="write"))
    write(tmp_path, "phy1-grant", "desk-rand4k-q1-write",
          fio_json(3000.0, 333000, 1, 2, rw="write"))
    md = report.tables(report.collect(str(tmp_path)), emulated=False)
    assert "### Desktop profiles" in md
    rows = [ln for ln in md.splitlines() if ln.startswith("| desk-rand4k-q1-write |")]
    assert "4,000 (16.4 MB/s, 250.0 us)" in rows[0]
    assert "25.0%" in rows[1] and "75.0%" in rows[1] and "3.00x" in rows[1]
