"""Tests of the testbed's verdict on fio verify jobs (tests/testbed/lib/summarize.py)."""
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests", "testbed", "lib"))
import summarize  # noqa: E402


def job(opts, read_bytes, write_bytes, error=0):
    """One job of fio's JSON output, with the fields job_entry reads."""
    def sec(b):
        return {"io_bytes": b, "iops": 10.0, "bw": 1, "lat_ns": {"mean": 1000}}
    return {"jobname": "j", "job options": dict(opts), "error": error,
            "read": sec(read_bytes), "write": sec(write_bytes)}


def verdict(opts, read_bytes, write_bytes, error=0):
    e = summarize.job_entry(job(opts, read_bytes, write_bytes, error), {}, "g", "g/j.json", 0)
    return e["verify"]


def test_write_then_verify_in_one_job():
    opts = {"verify": "crc32c", "rw": "randwrite"}
    assert verdict(opts, 4096, 4096) == "pass"
    # The verify phase must read back all that was written.
    assert verdict(opts, 0, 4096) == "fail"
    assert verdict(opts, 4096, 4096, error=84) == "fail"


def test_split_check_writer_must_write():
    opts = {"verify": "crc32c", "rw": "write", "do_verify": "0"}
    assert verdict(opts, 0, 1 << 20) == "pass"
    assert verdict(opts, 0, 0) == "fail"
    assert verdict(opts, 0, 1 << 20, error=5) == "fail"


def test_split_check_reader_must_read():
    opts = {"verify": "crc32c", "rw": "read", "verify_only": "1"}
    assert verdict(opts, 1 << 20, 0) == "pass"
    assert verdict(opts, 0, 0) == "fail"
    # A crc32c mismatch makes fio report an error (EILSEQ).
    assert verdict(opts, 1 << 20, 0, error=84) == "fail"


def test_perf_job_has_no_verdict():
    assert verdict({"rw": "randread"}, 4096, 0) is None


def shared_boot_results(tmp_path, rcs):
    """Results of a shared boot (fipc-testbed run A+B): a directory per
    scenario, each with its scenario.rc and one fio job of a guest."""
    import json
    for name, rc in rcs.items():
        g = tmp_path / name / "guest1"
        g.mkdir(parents=True)
        (tmp_path / name / "scenario.rc").write_text("%d\n" % rc)
        doc = {"fio version": "fio-3.33", "global options": {},
               "jobs": [job({"rw": "randread"}, 4096, 0)]}
        (g / "perf.json").write_text(json.dumps(doc))
        (g / "perf.rc").write_text("0\n")
    (tmp_path / "scenario.rc").write_text("%d\n" % max(rcs.values()))


def test_shared_boot_scenario_rc_is_not_a_fio_job(tmp_path):
    shared_boot_results(tmp_path, {"a": 0, "b": 0})
    r = summarize.summarize(str(tmp_path), "a+b", {})
    assert r["pass"], r["failures"]
    assert len(r["jobs"]) == 2


def test_shared_boot_names_the_scenario_that_failed(tmp_path):
    shared_boot_results(tmp_path, {"a": 0, "b": 3})
    r = summarize.summarize(str(tmp_path), "a+b", {})
    assert not r["pass"]
    assert "scenario b exited 3" in r["failures"]
    assert not any("no JSON output" in f for f in r["failures"])
    # Each scenario on its own, as fipc-testbed writes its result.json.
    assert summarize.summarize(str(tmp_path / "a"), "a", {})["pass"]
    assert not summarize.summarize(str(tmp_path / "b"), "b", {})["pass"]
