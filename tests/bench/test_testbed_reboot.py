"""Tests of fipc-testbed's reboot of dom0 (scenario.conf REBOOT=1): the
persistent root disk it gives the machine, the shared-boot rule, and the
runner following a second boot after dom0 said @@FIPC-REBOOT."""
import os
import shutil
import subprocess

import pytest

from test_testbed_nvme import machine as nvme_machine
from test_testbed_nvme import tb


def test_shared_conf_reboot_one_a_boot():
    plain = {"TIMEOUT": "100"}
    rebooting = {"TIMEOUT": "200", "REBOOT": "1"}
    conf, why = tb.shared_conf([("a", plain), ("b", rebooting), ("c", plain)])
    assert why is None and conf["REBOOT"] == "1" and conf["TIMEOUT"] == "400"
    conf, why = tb.shared_conf([("a", plain), ("c", plain)])
    assert why is None and "REBOOT" not in conf
    conf, why = tb.shared_conf([("a", rebooting), ("b", dict(rebooting))])
    assert conf is None and "reboot" in why


@pytest.mark.skipif(not shutil.which("mkfs.ext4") or not shutil.which("dumpe2fs"),
                    reason="e2fsprogs is not installed")
def test_persist_image_is_empty_ext4(tmp_path):
    d, image = tb.persist_image_create(tmpdir=str(tmp_path))
    assert os.path.dirname(image) == d and os.path.dirname(d) == str(tmp_path)
    st = os.stat(image)
    assert st.st_size == tb.PERSIST_MIB << 20
    assert st.st_blocks * 512 < 128 << 20
    out = subprocess.run(["dumpe2fs", "-h", image], capture_output=True, text=True, check=True)
    assert "Filesystem volume name:   %s" % tb.PERSIST_SERIAL in out.stdout


def machine(persist=None):
    """A Machine as test_testbed_nvme makes it, with a root disk."""
    m = nvme_machine(None)
    m.a.verbose = False
    m.persist_image = persist
    return m


def test_qemu_cmd_has_the_root_disk_only_when_asked():
    assert not [c for c in machine().qemu_cmd(False) if "virtio-blk" in c]
    cmd = machine("/var/tmp/p/root.ext4").qemu_cmd(False)
    i = cmd.index("file=/var/tmp/p/root.ext4,if=none,format=raw,id=root0")
    assert cmd[i - 1] == "-drive"
    assert cmd[i + 1:i + 3] == ["-device", "virtio-blk-pci,serial=fipcroot,drive=root0"]


def fake_qemu(m, tmp_path, boots):
    """QEMU stand-in: the Nth start prints boots[N] (console lines) and
    exits."""
    count = tmp_path / "count"
    count.write_text("0")
    scripts = []
    for i, lines in enumerate(boots):
        scripts.append("[ \"$n\" = %d ] && printf '%%s\\n' %s" % (
            i, " ".join("'%s'" % l for l in lines)))
    sh = ("n=$(cat %s); echo $((n + 1)) > %s; %s; exit 0"
          % (count, count, "; ".join(scripts)))
    m.qemu_cmd = lambda interactive: ["sh", "-c", sh]
    m.log = str(tmp_path / "serial.log")
    return count


def test_run_follows_one_reboot(tmp_path):
    m = machine("/unused")
    count = fake_qemu(m, tmp_path, [
        ["@@FIPC-INIT uptime=1", "@@FIPC-PHASE start scenario 60", "@@FIPC-PHASE end scenario 0",
         "@@FIPC-REBOOT rc=0"],
        ["@@FIPC-INIT uptime=1", "second boot", "@@FIPC-DONE rc=0"]])
    assert m.run(30, 60) == 0
    assert m.boots == 2 and count.read_text().strip() == "2"
    assert "second boot" in open(m.log).read()
    assert [p["name"] for p in m.phases].count("boot") == 2


def test_run_keeps_the_first_boots_failure(tmp_path):
    m = machine("/unused")
    fake_qemu(m, tmp_path, [["@@FIPC-INIT uptime=1", "@@FIPC-REBOOT rc=1"],
                            ["@@FIPC-INIT uptime=1", "@@FIPC-DONE rc=0"]])
    assert m.run(30, 60) == 1


def test_run_without_reboot_marker_fails_when_qemu_exits(tmp_path):
    m = machine("/unused")
    fake_qemu(m, tmp_path, [["@@FIPC-INIT uptime=1", "no marker"],
                            ["@@FIPC-DONE rc=0"]])
    with pytest.raises(tb.Failure):
        m.run(30, 60)
    assert m.boots == 1


def test_run_follows_no_second_reboot(tmp_path):
    m = machine("/unused")
    fake_qemu(m, tmp_path, [["@@FIPC-REBOOT rc=0"], ["@@FIPC-REBOOT rc=0"],
                            ["@@FIPC-DONE rc=0"]])
    with pytest.raises(tb.Failure):
        m.run(30, 60)
    assert m.boots == 2
