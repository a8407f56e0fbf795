"""tools/admin/fipc_bench.py (fipc bench) without Xen: its arguments,
the device checks (blkid's low-level probe on real images, xenstore
users from a made-up tree), the guest's script and results, and what it
leaves behind when a configuration fails.  The testbed runs the command
from the package on a real guest (tests/testbed/scenarios/boot-autostart)."""
import importlib.util
import io
import os
import subprocess
import sys
import tarfile

import pytest

ADMIN = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "admin")
sys.path.insert(0, ADMIN)
spec = importlib.util.spec_from_file_location("fipc_bench", os.path.join(ADMIN, "fipc_bench.py"))
fb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fb)


class Tree:
    """A backend domain's xenstore, as fipc.py's Host gives it."""

    def __init__(self, nodes):
        self.nodes = nodes
        self.cache = {}

    def tree(self, path):
        return {p: v for p, v in self.nodes.items() if p == path or p.startswith(path + "/")}


def test_parse_defaults_and_refusals():
    args, cfgs, jobs = fb.parse(["--guest", "web", "--device", "/dev/sdx"])
    assert args.exec_cmd == "ssh root@web"
    assert cfgs == list(fb.CONFIGS)
    assert jobs == fb.DEMO_JOBS + fb.DESK_JOBS and len(fb.DESK_JOBS) == 8
    assert args.guest_timeout > len(jobs) * args.runtime
    for bad in (["--jobs", "iops-4k-read,rm-rf"], ["--configs", "phy,phy2"],
                ["--vdev", "sda"], ["--runtime", "0"]):
        with pytest.raises(SystemExit) as e:
            fb.parse(["--guest", "web", "--device", "/dev/sdx"] + bad)
        assert e.value.code == 2


def blkid_or_skip():
    if subprocess.run(["sh", "-c", "command -v blkid"], capture_output=True).returncode:
        pytest.skip("no blkid on this machine")


def test_signatures_on_real_images(tmp_path):
    blkid_or_skip()
    blank = tmp_path / "blank.img"
    blank.write_bytes(bytes(1 << 20))
    assert fb.signatures(str(blank)) == []
    # An MBR with one Linux partition: a partition table.
    mbr = bytearray(1 << 20)
    mbr[446:462] = bytes([0, 0, 2, 0, 0x83, 0, 0, 0]) + (1).to_bytes(4, "little") + \
        (100).to_bytes(4, "little")
    mbr[510:512] = b"\x55\xaa"
    (tmp_path / "mbr.img").write_bytes(bytes(mbr))
    assert "PTTYPE=dos" in fb.signatures(str(tmp_path / "mbr.img"))
    swap = tmp_path / "swap.img"
    swap.write_bytes(bytes(1 << 20))
    if subprocess.run(["mkswap", str(swap)], capture_output=True).returncode == 0:
        assert "TYPE=swap" in fb.signatures(str(swap))


def test_device_with_data_refused_unless_destroy(monkeypatch):
    monkeypatch.setattr(fb, "dev_numbers", lambda p: (7, 3))
    monkeypatch.setattr(fb, "device_in_use", lambda h, p, n: [])
    monkeypatch.setattr(fb, "signatures", lambda p: ["TYPE=LVM2_member"])
    with pytest.raises(fb.BenchError) as e:
        fb.check_device(None, "/dev/loop3", False)
    assert e.value.code == 2
    assert "refusing /dev/loop3: it holds data (TYPE=LVM2_member)" in str(e.value)
    assert "--destroy-data" in str(e.value)
    assert fb.check_device(None, "/dev/loop3", True) == ["TYPE=LVM2_member"]


def test_device_in_use_refused_even_with_destroy(monkeypatch):
    monkeypatch.setattr(fb, "dev_numbers", lambda p: (7, 3))
    monkeypatch.setattr(fb, "device_in_use", lambda h, p, n: ["mounted on /srv"])
    monkeypatch.setattr(fb, "signatures", lambda p: [])
    with pytest.raises(fb.BenchError) as e:
        fb.check_device(None, "/dev/loop3", True)
    assert e.value.code == 2 and "in use (mounted on /srv)" in str(e.value)


def test_xen_users_by_numbers_and_path(tmp_path):
    dev = tmp_path / "disk"
    dev.write_text("")
    tree = Tree({
        "/local/domain/0/backend/vbd/5/51712/physical-device": "fd:10",
        "/local/domain/0/backend/vbd/5/51712/params": "/dev/other",
        "/local/domain/0/backend/fipcblk/6/51728/params": str(dev),
        "/local/domain/0/backend/vbd/7/51712/physical-device": "8:0",
    })
    users = fb.xen_users(tree, (0xfd, 0x10), str(dev))
    assert len(users) == 2
    assert any("domain 5's disk 51712" in u for u in users)
    assert any("domain 6's disk 51728" in u for u in users)
    assert fb.xen_users(tree, (8, 1), "/dev/nothing") == []


def test_guest_disks():
    tree = Tree({
        "/local/domain/0/backend/vbd/5/51712/dev": "xvda",
        "/local/domain/0/backend/fipcblk/5/51728/dev": "xvdb",
        "/local/domain/0/backend/fipcblk/6/51728/dev": "xvdb",
    })
    assert fb.guest_disks(tree, 5) == {
        "xvda": "/local/domain/0/backend/vbd/5/51712",
        "xvdb": "/local/domain/0/backend/fipcblk/5/51728"}


def test_guest_script_runs_the_named_jobs(tmp_path):
    class A:
        vdev, runtime, ramp = "xvdq", 7, 1
    s = fb.guest_script(A, ["iops-4k-read", "desk-rand4k-q1-write"])
    assert "FIO_RUNTIME=7 FIO_RAMP=1 FIO_JOBS='iops-4k-read desk-rand4k-q1-write'" in s
    assert "/sys/block/xvdq/dev" in s and "tar cf - -C" in s
    # The runner goes in whole, and the script is valid sh.
    with open(os.path.join(fb.share_dir(), "run-fio.sh"), encoding="utf-8") as f:
        assert f.read() in s
    assert subprocess.run(["sh", "-n"], input=s.encode()).returncode == 0


def test_unpack_keeps_plain_files_only(tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for name, data in (("./iops-4k-read.json", b"{}"), ("../evil", b"x"),
                           ("/etc/evil", b"x"), ("sub/evil", b"x")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    fb.unpack(buf.getvalue(), str(tmp_path / "out"))
    assert sorted(os.listdir(tmp_path / "out")) == ["iops-4k-read.json"]
    assert not (tmp_path / "evil").exists()


def test_failure_detaches_and_checks_the_guest(monkeypatch, tmp_path, capsys):
    """A configuration that fails: exit 1, the bench disk detached, the
    guest's disk list compared; the later configurations do not run."""
    ran, detached = [], []
    disks = {"xvda": "/local/domain/0/backend/vbd/5/51712"}
    monkeypatch.setattr(fb.os, "geteuid", lambda: 0)
    monkeypatch.setattr(fb, "check_device", lambda h, p, d: [])
    monkeypatch.setattr(fb, "guest_domid", lambda n: 5)
    monkeypatch.setattr(fb, "backend_node", lambda h, d, v: None)
    monkeypatch.setattr(fb, "guest_disks", lambda h, d: dict(disks))
    monkeypatch.setattr(fb, "probe_guest", lambda a: None)
    monkeypatch.setattr(fb, "detach", lambda a, h, d: detached.append(d))

    def run_config(args, host, gather, domid, cfg, jobs):
        ran.append(cfg)
        if cfg == "phy1-grant":
            disks["xvdq"] = "/local/domain/0/backend/fipcblk/5/51968"
            raise fb.BenchError("phy1-grant: the jobs failed in the guest (exit 1)")
        return {"config": cfg}
    monkeypatch.setattr(fb, "run_config", run_config)
    rc = fb.bench(["--guest", "web", "--device", "/dev/x", "--out", str(tmp_path / "r")],
                  Tree({}), None)
    assert rc == 1
    assert ran == ["dom0", "phy", "phy1-grant"]
    assert detached == [5]
    assert not (tmp_path / "r" / "bench.json").exists()
    err = capsys.readouterr().err
    assert "the jobs failed in the guest" in err
    assert "the guest's disks changed" in err and "xvdq" in err


def test_vdev_devid_as_libxl():
    assert fb.vdev_devid("xvdb") == 51728
    assert fb.vdev_devid("xvdp") == 51952
    assert fb.vdev_devid("xvdq") == 268439552
    assert fb.vdev_devid("xvdaa") == (1 << 28) | (26 << 8)


def test_vdev_fits_linux_device_names():
    """fipcblk-<domid>-<devid> in at most 19 characters."""
    assert fb.vdev_fits(9, "xvdq")          # fipcblk-9-268439552
    assert not fb.vdev_fits(19, "xvdq")     # fipcblk-19-268439552
    assert fb.vdev_fits(32000, "xvdp")      # fipcblk-32000-51952


def test_pick_vdev_takes_the_highest_free_short_name():
    assert fb.pick_vdev({"xvda": 1, "xvdb": 1}) == "xvdp"
    assert fb.pick_vdev({"xvdp": 1, "xvdo": 1}) == "xvdn"
    used = {"xvd" + chr(ord("a") + i): 1 for i in range(16)}
    with pytest.raises(fb.BenchError) as e:
        fb.pick_vdev(used)
    assert e.value.code == 2 and "--vdev" in str(e.value)


def test_extended_vdev_refused_for_a_two_digit_domid(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(fb.os, "geteuid", lambda: 0)
    monkeypatch.setattr(fb, "check_device", lambda h, p, d: [])
    monkeypatch.setattr(fb, "guest_domid", lambda n: 19)
    monkeypatch.setattr(fb, "guest_disks", lambda h, d: {})
    ran = []
    monkeypatch.setattr(fb, "run_config", lambda *a: ran.append(a))
    rc = fb.bench(["--guest", "web", "--device", "/dev/x", "--vdev", "xvdq",
                   "--out", str(tmp_path / "r")], Tree({}), None)
    assert rc == 2 and not ran
    assert "fipcblk-19-268439552" in capsys.readouterr().err
