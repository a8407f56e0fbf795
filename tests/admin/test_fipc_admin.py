"""tools/admin/fipc.py (fipc status, fipc diagnose) on made-up backend
domains: a fake /sys and an "xenstore-ls -f /" dump, one disk per case,
shaped as xen-fipc-back and libxl leave them (docs/admin-guide.md,
section 9).  The testbed runs the same commands on real disks
(tests/testbed/scenarios/phy1-xl, fipc-hostile)."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "admin", "fipc.py")
spec = importlib.util.spec_from_file_location("fipc_admin", TOOL)
fipc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fipc)

POLLERS = ("poller 0 cpu 1 channels 2 loops 10 empty 4 sleeps 3 timed_sleeps 0 "
           "contended_sleeps 1 steal_sleeps 0 steal_pct 0 short_sleeps 0 wait sleep "
           "wakeups 2 slept_us 5 sleep_max_us 3 irqs 1 irqs_awake 0 rx_waits 0 "
           "gap_us 0 gap_dev_us 0 gap_tail_us 0 window_us 50 wake_us 0 load_pct 7 "
           "moved_in 0 moved_out 0\n  dev_us<100,<1k,<4k,<16k,<64k,more 1 0 0 0 0 0\n"
           "autoscale on pollers_at_work 1 scale_ups 0 scale_downs 0 rebalances 0\n")


class Dom0:
    """A backend domain (0) with guests and their disks."""

    def __init__(self, tmp, loaded=True):
        self.tmp = tmp
        self.sys = tmp / "sys"
        self.nodes = {}
        self.loaded = loaded
        if loaded:
            par = self.sys / "module/xen_fipc_back/parameters"
            par.mkdir(parents=True)
            (self.sys / "module/xen_fipc_back/version").write_text("0.400+gabcdef\n")
            for k, v in (("memshare", "Y"), ("memshare_max_mib", "512"),
                         ("max_guest_grants", "8192"),
                         ("grant_staging", "Y"), ("poller_cpus", POLLERS)):
                (par / k).write_text(v + "\n")
        (self.sys / "bus/xen-backend/devices").mkdir(parents=True)

    def guest(self, domid, name):
        if name is not None:
            self.nodes["/local/domain/%d/name" % domid] = name

    def disk(self, domid, vdev=51728, bstate=4, fstate=4, path="grant", memshare=False,
             berr=None, ferr=None, stats=None, sysfs=True, protocol="3", limits=None):
        b = "/local/domain/0/backend/fipcblk/%d/%d" % (domid, vdev)
        f = "/local/domain/%d/device/fipcblk/%d" % (domid, vdev)
        self.nodes.update({
            b + "/frontend": f, b + "/frontend-id": str(domid), b + "/dev": "xvdb",
            b + "/params": "/dev/nullb0", b + "/mode": "w", b + "/state": str(bstate),
            b + "/fipc-data-paths": "grant memshare",
            b + "/fipc-memshare-allowed": "1" if memshare else "0",
            f + "/backend": b, f + "/backend-id": "0", f + "/state": str(fstate),
            f + "/fipc-memshare": "1" if memshare else "0",
        })
        if fstate is None:
            del self.nodes[f + "/state"]
        if fstate in (3, 4, 5):
            self.nodes[f + "/fipc-protocol"] = protocol
            self.nodes[f + "/fipc-data-path"] = path
        if berr:
            self.nodes["/local/domain/0/error/backend/fipcblk/%d/%d/error" % (domid, vdev)] = berr
        if ferr:
            self.nodes["/local/domain/%d/error/device/fipcblk/%d/error" % (domid, vdev)] = ferr
        if not sysfs:
            return
        d = self.sys / ("bus/xen-backend/devices/fipcblk-%d-%d/statistics" % (domid, vdev))
        d.mkdir(parents=True)
        connected = bstate == 4
        vals = {k: 0 for k in fipc.COUNTERS + fipc.GAUGES}
        vals.update({"queues": 1 if connected else 0, "weight": 256, "rd_req": 10, "wr_req": 20,
                     "data_path": path if connected else "none"})
        vals.update(stats or {})
        for k, v in vals.items():
            (d / k).write_text("%s\n" % v)
        if limits is None:
            return
        d = d.parent / "limits"
        d.mkdir()
        vals = {k: "none" for k in fipc.LIMITS}
        vals.update(burst_ms="100", guest_burst_ms="100")
        vals.update(limits)
        for k, v in vals.items():
            (d / k).write_text("%s\n" % v)

    def run(self, *args):
        dump = self.tmp / "xenstore.txt"
        dump.write_text("".join('%s = "%s"\n' % (p, v.replace("\\", "\\\\").replace('"', '\\"'))
                                for p, v in sorted(self.nodes.items())))
        env = dict(os.environ, FIPC_ADMIN_XENSTORE=str(dump), FIPC_ADMIN_SYSFS=str(self.sys))
        return subprocess.run([sys.executable, TOOL] + list(args), env=env,
                              capture_output=True, text=True, check=False)

    def status(self):
        r = self.run("status", "--json")
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)


def only_disk(dom0):
    disks = dom0.status()["disks"]
    assert len(disks) == 1
    return disks[0]


def one_disk(tmp_path, domid, name, **disk):
    """A backend domain with one guest of one disk: the domain and the
    disk as fipc status --json shows it."""
    d0 = Dom0(tmp_path)
    d0.guest(domid, name)
    d0.disk(domid, **disk)
    return d0, only_disk(d0)


def texts(disk, level=None):
    return " | ".join(p["what"] for p in disk["problems"] if level in (None, p["level"]))


def test_healthy_memshare_disk(tmp_path):
    d0 = Dom0(tmp_path)
    d0.guest(5, "web")
    d0.disk(5, path="memshare", memshare=True,
            stats={"memshare_pages": 65536, "staging_pages": 256})
    d0.disk(5, vdev=51744, path="memshare", memshare=True,
            stats={"memshare_pages": 65536, "staging_pages": 128})
    s = d0.status()
    d = s["disks"][0]
    assert len(s["disks"]) == 2
    assert (d["guest"], d["domid"], d["disk"], d["vdev"]) == ("web", 5, "xvdb", 51728)
    assert d["state"] == "connected" and d["problems"] == []
    assert (d["protocol"], d["data_path"]) == ("duplex", "memshare")
    # The guest's memory once for its two disks, each disk's staging pages.
    assert s["backend"]["memshare_mapped_pages"] == 65536
    assert s["backend"]["staging_mapped_pages"] == 384
    assert s["backend"]["memshare_budget_pages"] == 512 * 256
    assert s["backend"]["pollers"][0]["load_pct"] == 7
    r = d0.run("diagnose", "web")
    assert r.returncode == 0
    assert "verdict: connected, healthy" in r.stdout
    text = d0.run("status").stdout
    assert "web (5)  xvdb  /dev/nullb0  connected  memshare" in text
    assert "poller 0: cpu 1, 2 channel(s), load 7 %" in text
    assert "memshare budget: 65920 of 131072 pages in use (guest memory 65536, staging 384;" in text


def test_guest_without_frontend_is_waiting(tmp_path):
    d0, d = one_disk(tmp_path, 6, "nofront", bstate=2, fstate=1)
    assert d["state"] == "waiting"
    assert "has not started its fipcblk frontend" in texts(d, "error")
    r = d0.run("diagnose", "6:xvdb")
    assert r.returncode == 1
    assert "modprobe xen-fipc-front in the guest" in r.stdout
    assert "frontend /local/domain/6/device/fipcblk/51728: state Initialising" in r.stdout


def test_refused_values_name_the_error_node(tmp_path):
    d0, d = one_disk(tmp_path, 6, "g", bstate=2, fstate=1, berr='-22 bad fipc-ring-order "9" (want 0 to 4)')
    assert d["state"] == "waiting"
    assert 'refused the frontend\'s values: -22 bad fipc-ring-order "9"' in texts(d, "error")


def test_memshare_fallback_is_degraded(tmp_path):
    d0, d = one_disk(tmp_path, 7, "big", path="grant", memshare=True,
                     berr="-28 memshare: 262144 pages would pass the backend's budget of 512 MiB "
                          "(131072 pages mapped for all guests; memshare_max_mib); using grants")
    assert d["state"] == "degraded"
    w = texts(d, "warning")
    assert "fell back to grants from memshare" in w and "budget of 512 MiB" in w
    assert any("raise memshare_max_mib" in x["fix"] for x in d["problems"])
    assert d0.run("diagnose", "big").returncode == 1


def test_memshare_fallback_the_guest_chose_asks_nothing_of_dom0(tmp_path):
    d0, d = one_disk(tmp_path, 7, "picky", path="grant", memshare=True)
    assert d["state"] == "degraded"
    assert "the guest chose grants" in texts(d, "warning")
    fixes = " ".join(x["fix"] for x in d["problems"])
    assert "nothing to change in dom0" in fixes and "memshare_max_mib" not in fixes


def test_grant_disk_without_consent_is_not_a_fallback(tmp_path):
    d0, d = one_disk(tmp_path, 7, "plain", path="grant", memshare=False)
    assert d["state"] == "connected" and d["problems"] == []


def test_hostile_guest_closed(tmp_path):
    d0 = Dom0(tmp_path)
    d0.guest(8, "attacker")
    d0.guest(9, "honest")
    d0.disk(8, bstate=5, fstate=4, berr="-71 frontend broke the ring protocol",
            stats={"proto_errors": 1})
    d0.disk(9)
    disks = {d["guest"]: d for d in d0.status()["disks"]}
    a = disks["attacker"]
    assert a["state"] == "closed"
    assert "broke the ring protocol; the backend closed the disk (proto_errors 1;" in texts(a, "error")
    assert disks["honest"]["state"] == "connected" and disks["honest"]["problems"] == []
    assert d0.run("diagnose", "attacker").returncode == 1
    assert d0.run("diagnose", "honest").returncode == 0


def test_protocol_error_then_back_in_initwait(tmp_path):
    """After the backend closed a hostile channel and the guest closed its
    end, the backend waits in InitWait: still the guest's fault, not a
    refused value."""
    d0, d = one_disk(tmp_path, 8, "attacker", bstate=2, fstate=6, berr="-71 frontend broke the ring protocol",
                     stats={"proto_errors": 10})
    assert d["state"] == "closed"
    assert "broke the ring protocol" in texts(d, "error") and "refused" not in texts(d)


def test_reconnected_after_protocol_error_is_noted(tmp_path):
    d0, d = one_disk(tmp_path, 8, "flaky", berr="-71 frontend broke the ring protocol", stats={"proto_errors": 2})
    assert d["state"] == "connected"
    assert "broke the ring protocol 2 time(s) before and reconnected" in texts(d, "note")


def test_backend_not_loaded(tmp_path):
    d0 = Dom0(tmp_path, loaded=False)
    d0.guest(5, "g")
    d0.disk(5, bstate=1, fstate=1, sysfs=False)
    s = d0.status()
    assert s["backend"]["loaded"] is False
    d = s["disks"][0]
    assert d["state"] == "down"
    assert "(xen-fipc-back) is not loaded" in texts(d, "error")
    assert "xen-fipc-back is not loaded" in d0.run("status").stdout


def test_backend_device_name_too_long(tmp_path):
    """An extended vdev of a guest with a two-digit domid: Linux never
    makes fipcblk-19-268439552 (20 characters), diagnose says so; the
    same disk of domain 9 is only not taken yet."""
    d0, d = one_disk(tmp_path, 19, "many", vdev=268439552, bstate=1, fstate=1, sysfs=False)
    assert d["state"] == "down"
    assert "its name fipcblk-19-268439552 is longer than the 19 characters" in texts(d, "error")
    r = d0.run("diagnose", "many")
    assert r.returncode == 1 and "vdev of xvdb to xvdp" in r.stdout
    d0, d = one_disk(tmp_path / "9", 9, "few", vdev=268439552, bstate=1, fstate=1, sysfs=False)
    assert "the backend has not taken the device" in texts(d, "error")
    assert "longer than" not in texts(d)


def test_guest_let_go_of_its_disk(tmp_path):
    d0, d = one_disk(tmp_path, 5, "g", bstate=2, fstate=6)
    assert d["state"] == "closed"
    assert "the guest closed its end of the disk (frontend Closed)" in texts(d, "error")
    assert "g (5) xvdb: error: the guest closed its end" in d0.run("status").stdout


def test_guest_gone_nodes_left(tmp_path):
    d0 = Dom0(tmp_path)
    d0.disk(12, bstate=6, fstate=None)
    d = only_disk(d0)
    assert d["guest"] is None and d["state"] == "closed"
    assert "domain 12 is gone" in texts(d, "warning")


def test_counters_that_must_stay_zero(tmp_path):
    d0, d = one_disk(tmp_path, 5, "g", stats={"io_errors": 3, "recycled_held": 1})
    assert d["state"] == "degraded"
    assert "io_errors: 3" in texts(d, "warning")
    assert "recycled_held: 1" in texts(d, "error")


def test_diagnose_selects_and_refuses(tmp_path):
    d0 = Dom0(tmp_path)
    d0.guest(5, "g")
    d0.disk(5)
    d0.disk(5, vdev=51744)
    assert len(json.loads(d0.run("diagnose", "g", "--json").stdout)["disks"]) == 2
    one = json.loads(d0.run("diagnose", "5:51744", "--json").stdout)["disks"]
    assert [d["vdev"] for d in one] == [51744]
    r = d0.run("diagnose", "nosuch")
    assert r.returncode == 2 and "no fipc disk of nosuch" in r.stderr
    assert d0.run("bogus").returncode == 2
    assert d0.run("diagnose").returncode == 2


def test_xenstore_unreachable(tmp_path):
    """Without a test dump it asks xenstore-read; one that fails (no
    xenstored, not root) is an error, not an empty list."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "xenstore-read"
    fake.write_text("#!/bin/sh\necho 'could not connect to xenstored' >&2\nexit 1\n")
    fake.chmod(0o755)
    env = dict(os.environ, PATH="%s:%s" % (bin_dir, os.environ["PATH"]))
    env.pop("FIPC_ADMIN_XENSTORE", None)
    r = subprocess.run([sys.executable, TOOL, "status"], env=env, capture_output=True,
                       text=True, check=False)
    assert r.returncode == 2
    assert "cannot read xenstore: could not connect to xenstored" in r.stderr


def test_no_disks(tmp_path):
    d0 = Dom0(tmp_path)
    assert d0.status()["disks"] == []
    assert "no fipc (phy1:) disks" in d0.run("status").stdout


@pytest.mark.parametrize("vdev,name", [(51712, "xvda"), (51728, "xvdb"), (51920, "xvdn"),
                                       ((1 << 28) | (27 << 8), "xvdab"), (768, "768")])
def test_vdev_names(vdev, name):
    assert fipc.vdev_name(vdev) == name


def test_unescape():
    assert fipc.unescape(r'a\\b\"c\x41\nZ') == 'a\\b"cA\nZ'


FAKE_XS = r'''#!/usr/bin/env python3
"""xenstore-ls -f PATH / xenstore-read PATH from a dump; logs each call."""
import os, re, sys
with open(os.environ["FAKE_XS_LOG"], "a") as log:
    log.write(" ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]) + "\n")
path = sys.argv[-1]
nodes = {}
for line in open(os.environ["FAKE_XS_DUMP"]):
    m = re.match(r'^(/\S*) = "(.*)"$', line.rstrip("\n"))
    if m:
        nodes[m.group(1)] = m.group(2)
if os.path.basename(sys.argv[0]) == "xenstore-read":
    if path == "domid":
        print("0")
        sys.exit(0)
    sys.exit(0 if path in nodes and print(nodes[path]) is None else 1)
out = [p for p in sorted(nodes) if p == path or p.startswith(path.rstrip("/") + "/")]
for p in out:
    print('%s = "%s"' % (p, nodes[p]))
sys.exit(0 if out else 1)
'''


def test_status_reads_xenstore_once_per_guest(tmp_path):
    """Through the real commands (faked here): one xenstore-ls for the
    backend directory, one for the backend's error nodes, one per guest,
    whatever the number of disks (it was five calls per disk)."""
    d0 = Dom0(tmp_path)
    for domid, name in ((5, "web"), (6, "db")):
        d0.guest(domid, name)
        d0.disk(domid, vdev=51728, berr="-22 bad fipc-ring-order" if domid == 6 else None)
        d0.disk(domid, vdev=51744, ferr="-19 no disk" if domid == 5 else None)
    dump = tmp_path / "xenstore.txt"
    dump.write_text("".join('%s = "%s"\n' % (p, v) for p, v in sorted(d0.nodes.items())))
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for cmd in ("xenstore-ls", "xenstore-read"):
        (bindir / cmd).write_text(FAKE_XS)
        (bindir / cmd).chmod(0o755)
    log = tmp_path / "calls.txt"
    env = dict(os.environ, FIPC_ADMIN_SYSFS=str(d0.sys), FAKE_XS_DUMP=str(dump),
               FAKE_XS_LOG=str(log), PATH="%s:%s" % (bindir, os.environ["PATH"]))
    env.pop("FIPC_ADMIN_XENSTORE", None)
    r = subprocess.run([sys.executable, TOOL, "status", "--json"], env=env,
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    disks = {(x["guest"], x["disk"], x["vdev"]): x for x in json.loads(r.stdout)["disks"]}
    assert len(disks) == 4
    assert disks[("db", "xvdb", 51728)]["backend_error"] == "-22 bad fipc-ring-order"
    assert disks[("web", "xvdb", 51744)]["frontend_error"] == "-19 no disk"
    calls = log.read_text().splitlines()
    ls = [c for c in calls if c.startswith("xenstore-ls")]
    assert len(ls) == 4, calls
    assert len(calls) - len(ls) <= 1, calls


def test_status_shows_limits_and_throttled(tmp_path):
    d0 = Dom0(tmp_path)
    d0.guest(5, "web")
    d0.disk(5, stats={"throttled_req": 1200, "throttled_us": 2500000},
            limits={"iops_read": "441", "guest_bps": "1048576", "guest_burst_ms": "250"})
    d0.disk(5, vdev=51744, limits={})
    s = d0.status()
    a, b = s["disks"]
    assert a["limits"]["iops_read"] == "441" and a["limits"]["iops"] == "none"
    assert a["statistics"]["throttled_req"] == 1200
    text = d0.run("status").stdout
    head, row_a, row_b = text.splitlines()[-3:]
    assert head.split()[-2:] == ["THROTTLED", "LIMITS"]
    assert row_a.endswith("1200 (2.5 s)  iops_read=441,guest_bps=1048576,guest_burst_ms=250")
    assert row_b.split()[-2:] == ["0", "-"]
    r = d0.run("diagnose", "web")
    assert "I/O limits: iops_read=441,guest_bps=1048576,guest_burst_ms=250 " \
        "(burst_ms 100; guest total: burst_ms 250)" in r.stdout
    assert "I/O limits: none (burst_ms 100; guest total: burst_ms 100)" in r.stdout
    assert "throttled_req 1200 throttled_us 2500000" in r.stdout


def test_status_without_limits_dir(tmp_path):
    """A backend from before limits/: no limits, no THROTTLED counters."""
    d0, d = one_disk(tmp_path, 5, "web")
    assert d["limits"] is None
    assert d0.run("status").stdout.splitlines()[-1].split()[-1] == "-"
    assert "I/O limits" not in d0.run("diagnose", "web").stdout
