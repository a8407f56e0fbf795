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
