"""Tests of the bench's testbed plumbing: fipc-testbed's --nvme (the QEMU
NVMe controller given to dom0) and the poller CPU probe of the scenario."""
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import types

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(TOP, "tests", "testbed", "fipc-testbed")
IRQS = os.path.join(TOP, "tests", "testbed", "scenarios", "bench", "irqs.sh")


def load_runner():
    loader = importlib.machinery.SourceFileLoader("fipc_testbed", RUNNER)
    spec = importlib.util.spec_from_loader("fipc_testbed", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


tb = load_runner()


def test_nvme_qemu_args():
    assert tb.nvme_qemu_args("/var/tmp/x/nvme0.raw") == [
        "-drive", "file=/var/tmp/x/nvme0.raw,if=none,format=raw,id=nvm0",
        "-device", "nvme,serial=fipcnvme0,drive=nvm0"]
    # QEMU would split the option at the comma.
    with pytest.raises(tb.Failure):
        tb.nvme_qemu_args("/tmp/a,b/nvme0.raw")


def test_nvme_image_is_sparse_and_private(tmp_path):
    d, image = tb.nvme_image_create(64, tmpdir=str(tmp_path))
    assert os.path.dirname(image) == d and os.path.dirname(d) == str(tmp_path)
    st = os.stat(image)
    assert st.st_size == 64 << 20
    assert st.st_blocks * 512 < 1 << 20
    d2, _ = tb.nvme_image_create(1, tmpdir=str(tmp_path))
    assert d2 != d
    with pytest.raises(tb.Failure):
        tb.nvme_image_create(0, tmpdir=str(tmp_path))


def machine(nvme_image, kernel="debian"):
    a = types.SimpleNamespace(cpu_model="qemu64", cpus=2, mem=3072, dom0_mem=2048,
                              dom0_vcpus=1, pin=True, xen_cmdline="", dom0_cmdline="",
                              kernel=kernel)
    art = types.SimpleNamespace(paths={"xen": "/c/xen", "kernel": "/c/k", "dom0": "/c/d"},
                                cache="/c")
    m = tb.Machine(a, art, "run", "bench", "/s", "/r", "/l")
    m.nvme_image = nvme_image
    return m


def test_qemu_cmd_has_nvme_only_when_asked():
    cmd = machine(None).qemu_cmd(False)
    assert not [c for c in cmd if "nvme" in c]
    cmd = machine("/var/tmp/d/nvme0.raw").qemu_cmd(False)
    i = cmd.index("-device", cmd.index("file=/var/tmp/d/nvme0.raw,if=none,format=raw,id=nvm0") - 1)
    assert cmd[i + 1] == "nvme,serial=fipcnvme0,drive=nvm0"


def test_debug_kernel_cmdline():
    """The debug kernel's dom0 gets its checkers' options; Debian's does not."""
    assert "page_poison=1" not in machine(None).dom0_cmdline()
    m = machine(None, kernel="debug")
    assert "page_poison=1" in m.dom0_cmdline().split()
    assert "log_buf_len=4M" in m.dom0_cmdline().split()
    # (the dom0 command line may not contain a comma: qemu_cmd checks)
    assert any("page_poison=1" in c for c in m.qemu_cmd(False))


def test_run_help_offers_nvme():
    out = subprocess.run([RUNNER, "run", "--help"], capture_output=True, text=True, check=True)
    assert "--nvme MIB" in out.stdout


@pytest.mark.parametrize("shell", ["bash", "busybox"])
def test_poller_ticks(shell):
    """poller_ticks sums /proc/PID/stat utime+stime of NAME/N threads and
    prints nothing when there is none (ksoftirqd/N exist on any Linux)."""
    if shutil.which(shell) is None:
        pytest.skip(shell + " not installed")
    sh = [shell, "sh"] if shell == "busybox" else [shell]
    out = subprocess.run(sh + ["-c", '. "$0"; echo "[$(poller_ticks ksoftirqd)]"; '
                               'echo "[$(poller_ticks no-such-poller)]"', IRQS],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out[0][1:-1].isdigit(), out
    assert out[1] == "[]"
