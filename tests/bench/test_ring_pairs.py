"""Tests of the ring benchmark's CPU-pair runner and summary (bench/ring/pairs.sh, pairs.py)."""
import getopt
import json
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench", "ring"))
import pairs  # noqa: E402

BURSTS = (1, 2, 4, 8, 16, 32, 64)


def run_json(build, cpus, floor, duplex, packed, bursts):
    """One run as ring-bench writes it, with the fields pairs.py reads."""
    def ring(p50):
        return {"rtt_cycles": {"min": p50 - 10, "p50": p50, "p99": p50 * 2}}
    return {"benchmark": "ring", "git_commit": build, "cpus": list(cpus),
            "floor": ring(floor), "duplex": ring(duplex),
            "packed": ring(packed),
            "summary": {"duplex_rtt_p50_over_packed": round(duplex / packed, 3),
                        "duplex_burst_over_packed":
                            {str(b): r for b, r in zip(BURSTS, bursts)}}}


def write(tmp_path, name, data):
    (tmp_path / name).write_text(json.dumps(data))


def rows_by_key(tmp_path):
    return {(r["build"], tuple(r["cpus"])): r
            for r in pairs.summarise(pairs.load_runs(str(tmp_path)))}


def test_targets_met_and_not_met(tmp_path):
    level = [0.99] * 7
    write(tmp_path, "a-0_1-1.json",
          run_json("a", (0, 1), 600, 620, 640, level))
    # Round trip 1.10 x the floor, over packed, and 8 % over at 16.
    over = [0.99, 0.99, 0.99, 1.0, 1.08, 0.95, 0.9]
    write(tmp_path, "a-2_9-1.json",
          run_json("a", (2, 9), 600, 660, 650, over))
    rows = rows_by_key(tmp_path)
    good = rows[("a", (0, 1))]["targets"]
    assert good == {"rtt": True, "burst": True, "burst_over": []}
    bad = rows[("a", (2, 9))]["targets"]
    assert bad == {"rtt": False, "burst": False, "burst_over": [16]}
    text = pairs.tally(pairs.summarise(pairs.load_runs(str(tmp_path))))
    assert "round trip met on 1 of 2 pairs" in text
    assert "bursts met on 1 of 2 pairs" in text


def test_medians_over_runs_not_means(tmp_path):
    level = [1.0] * 7
    for k, duplex in enumerate((620, 630, 900)):
        write(tmp_path, "b-0_1-%d.json" % k,
              run_json("b", (0, 1), 600, duplex, 640, level))
    row = rows_by_key(tmp_path)[("b", (0, 1))]
    assert row["runs"] == 3
    assert row["median"]["duplex_p50"] == 630
    assert abs(row["median"]["duplex_over_floor"] - 1.05) < 1e-9
    # 1.05 x the floor is within the target; one slow run does not count.
    assert row["targets"]["rtt"] is True


def test_builds_and_pairs_kept_apart_and_other_json_skipped(tmp_path):
    level = [1.0] * 7
    write(tmp_path, "x-0_1-1.json",
          run_json("x", (0, 1), 600, 600, 600, level))
    write(tmp_path, "y-0_1-1.json",
          run_json("y", (0, 1), 600, 700, 600, level))
    write(tmp_path, "fio.json", {"benchmark": "fio"})
    (tmp_path / "broken.json").write_text("{")
    rows = rows_by_key(tmp_path)
    assert set(rows) == {("x", (0, 1)), ("y", (0, 1))}
    assert rows[("x", (0, 1))]["targets"]["rtt"] is True
    assert rows[("y", (0, 1))]["targets"]["rtt"] is False


def test_missing_figures_are_not_judged(tmp_path):
    d = run_json("old", (0, 1), 600, 620, 640, [1.0] * 7)
    del d["packed"]
    d["summary"]["duplex_rtt_p50_over_packed"] = None
    write(tmp_path, "old-0_1-1.json", d)
    row = rows_by_key(tmp_path)[("old", (0, 1))]
    assert row["targets"]["rtt"] is None
    assert "n/a" in pairs.table([row])


def fake_bench_main(argv):
    """Stand in for ring-bench: log the build, CPUs and rounds it is
    given, write its run's JSON as run_json() makes it."""
    opts = dict(getopt.getopt(argv, "c:g:j:r:")[0])
    build, cpus = opts["-g"], opts["-c"]
    with open(os.environ["LOG"], "a") as log:
        log.write("%s %s %s\n" % (build, cpus, opts.get("-r", "")))
    data = run_json(build, [int(c) for c in cpus.split(",")], 500, 510, 520,
                    [0.99] * 6 + [0.9])
    with open(opts["-j"], "w") as out:
        json.dump(data, out)


def fake_bench(tmp_path, name):
    """An executable that runs fake_bench_main(), for pairs.sh to run."""
    path = tmp_path / name
    path.write_text('#!/bin/sh\nexec "%s" "%s" "$@"\n'
                    % (sys.executable, os.path.abspath(__file__)))
    path.chmod(0o755)
    return str(path)


def pairs_sh(tmp_path, *args):
    env = dict(os.environ, LOG=str(tmp_path / "log"))
    return subprocess.run(["sh", os.path.join(TOP, "bench/ring/pairs.sh")]
                          + list(args), env=env, capture_output=True,
                          text=True, timeout=60)


def test_pairs_sh_interleaves_builds_and_summarises(tmp_path):
    a, b = fake_bench(tmp_path, "a"), fake_bench(tmp_path, "b")
    out = tmp_path / "out"
    r = pairs_sh(tmp_path, "-p", "0,1 1,0", "-k", "2", "-a", "-r 7",
                 "-o", str(out), "new=" + a, "old=" + b)
    assert r.returncode == 0, r.stderr
    # Run by run and pair by pair, each build in turn, with the arguments
    # passed through.
    one_run = ["new 0,1 7", "old 0,1 7", "new 1,0 7", "old 1,0 7"]
    assert (tmp_path / "log").read_text().split("\n")[:-1] == one_run * 2
    assert sorted(p.name for p in out.glob("*.json")) == \
        sorted("%s-%s-%d.json" % (b, p, k) for b in ("new", "old")
               for p in ("0_1", "1_0") for k in (1, 2))
    assert "build: new=" in (out / "machine.txt").read_text()
    s = subprocess.run([sys.executable, os.path.join(TOP, "bench/ring/pairs.py"),
                        str(out)], capture_output=True, text=True, timeout=60)
    assert s.returncode == 0, s.stderr
    assert "- new: round trip met on 2 of 2 pairs" in s.stdout


def test_pairs_sh_refuses_bad_arguments(tmp_path):
    a = fake_bench(tmp_path, "a")
    for args, message in ((["nolabel"], "is not LABEL=BINARY"),
                          (["x=" + str(tmp_path / "none")], "not an executable"),
                          (["-p", "0-1", "x=" + a], "is not CPU,CPU"),
                          (["-p", "0,4096", "x=" + a], "online"),
                          (["-k", "0", "x=" + a], "positive number"),
                          (["bad/label=" + a], "letters, digits")):
        r = pairs_sh(tmp_path, "-o", str(tmp_path / "o"), *args)
        assert r.returncode == 2, (args, r.stdout)
        assert message in r.stderr, (args, r.stderr)
    assert not (tmp_path / "log").exists()


def with_rounds(data, rounds):
    """Add each ring's p50 per round, as ring-bench records it."""
    for ring, p50s in rounds.items():
        data.setdefault(ring, {})["rtt_p50_cycles_by_round"] = p50s
    return data


def test_round_trip_judged_paired_by_round(tmp_path):
    level = [1.0] * 7
    # Over all rounds the floor's p50 is low (two of five rounds sat on
    # near CPUs), so duplex looks 1.20 x it; round by round it is 1.02.
    data = run_json("p", (0, 1), 500, 600, 600, level)
    write(tmp_path, "p-0_1-1.json", with_rounds(data, {
        "floor": [500, 590, 480, 590, 590],
        "duplex": [510, 602, 490, 600, 602],
        "packed": [512, 602, 492, 601, 603]}))
    row = rows_by_key(tmp_path)[("p", (0, 1))]
    assert abs(row["median"]["duplex_over_floor"] - 1.2) < 1e-9
    assert abs(row["median"]["duplex_over_floor_paired"] - 1.02) < 0.005
    assert row["median"]["duplex_over_packed_paired"] < 1.0
    assert row["targets"]["rtt"] is True
    # Paired by round and over 1.05 in most rounds: not met.
    data = run_json("q", (0, 1), 500, 600, 600, level)
    write(tmp_path, "q-0_1-1.json", with_rounds(data, {
        "floor": [500, 500, 500, 500, 500],
        "duplex": [540, 540, 500, 540, 540],
        "packed": [600, 600, 600, 600, 600]}))
    assert rows_by_key(tmp_path)[("q", (0, 1))]["targets"]["rtt"] is False


def test_reference_rings_table(tmp_path):
    level = [1.0] * 7
    data = run_json("r", (2, 9), 600, 600, 600, level)
    data = with_rounds(data, {"duplex": [600, 700, 600],
                              "virtio_pk": [1200, 1400, 1260],
                              "nvme_sqcq": [1500, 1750, 1320]})
    data["virtio_pk"]["lines_per_exchange"] = 3
    data["nvme_sqcq"]["lines_per_exchange"] = 4
    write(tmp_path, "r-2_9-1.json", data)
    rows = pairs.summarise(pairs.load_runs(str(tmp_path)))
    text = pairs.reference_table(rows)
    assert "virtio_pk / duplex (lines 3)" in text
    assert "nvme_sqcq / duplex (lines 4)" in text
    assert "floor64" not in text
    assert "| r | 2,9 | 2.00 | 2.50 |" in text
    # A build without reference rings gets no table.
    other = tmp_path / "old"
    other.mkdir()
    write(other, "o-0_1-1.json",
          run_json("o", (0, 1), 600, 600, 600, level))
    assert pairs.reference_table(
        pairs.summarise(pairs.load_runs(str(other)))) == ""


if __name__ == "__main__":
    fake_bench_main(sys.argv[1:])
