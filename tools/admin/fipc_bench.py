"""fipc bench: phy: against phy1: on a device and in a guest the admin names.

  fipc bench --guest NAME --device DEV [--exec CMD] [--out DIR]
             [--configs LIST] [--jobs LIST] [--runtime S] [--ramp S]
             [--vdev xvdN] [--destroy-data]

Runs the fio jobs of `make demo` (bench/fio/run-fio.sh; by default also
the four desktop profiles: sequential 1 MiB at QD 8 and QD 1, random
4 KiB at QD 32 and QD 1, read and write) on DEV:
  dom0           in this domain, natively
  phy            attached to the guest as a classic disk (xen-blkback)
  phy1-grant     attached as phy1: (xen-fipc-back, grants)
  phy1-memshare  attached as phy1: with memshare=on
one configuration at a time under the spare name --vdev (default: the
highest free one of xvdb to xvdp), detached after its jobs.  The guest's
own disks are never touched; at the end (also after an error or Ctrl-C)
the bench disk is detached and the guest's disk list is checked against
the one it had.  Results: one
directory per configuration, bench.json (what ran, and the data path
each phy1 configuration really got: a memshare refusal is reported, not
hidden) and report/ (fio.json and fio.md, the tables of `make demo`).

THE JOBS WRITE TO DEV.  A device that holds a filesystem, a partition
table, an LVM or RAID signature (blkid -p) is refused unless
--destroy-data is given; a device that is mounted, has holders or
partitions, or is attached to any domain is always refused.

Commands reach the guest through --exec CMD (default "ssh root@NAME"):
CMD gets a POSIX shell script on its standard input, must run it as root
in the guest and pass its standard output back (binary: a tar) and its
exit status.  The guest needs fio and tar.
"""
import json
import os
import re
import shlex
import signal
import stat
import subprocess
import sys
import tarfile
import tempfile
import time

DEMO_JOBS = ("iops-4k-read iops-4k-write iops-512-read iops-512-write "
             "lat-4k-read lat-4k-write lat-512-read lat-512-write").split()
DESK_JOBS = ["desk-%s-%s" % (p, rw) for p in
             ("seq1m-q8", "seq1m-q1", "rand4k-q32", "rand4k-q1")
             for rw in ("read", "write")]
CONFIGS = ("dom0", "phy", "phy1-grant", "phy1-memshare")
# Linux's xenbus names a backend device "fipcblk-<domid>-<devid>" in at
# most this many characters and leaves out a longer one: an extended vdev
# (xvdq on) of a guest whose domid has two digits never connects.
BUS_ID_MAX = 19
ATTACH = {"phy": "phy:%s,%s,w", "phy1-grant": "phy1:%s,%s,w",
          "phy1-memshare": "phy1:%s,%s,w,memshare=on"}


class BenchError(Exception):
    """A refusal or failure, said in words; exit status 2 or 1."""

    def __init__(self, msg, code=1):
        super().__init__(msg)
        self.code = code


def say(msg):
    sys.stderr.write("fipc bench: %s\n" % msg)
    sys.stderr.flush()


def run(argv, **kw):
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=False, **kw)
    except FileNotFoundError:
        raise BenchError("%s not found: run fipc bench in a Xen backend domain" % argv[0], 2)


def share_dir():
    """Where run-fio.sh and report.py are: the repository, or the package's."""
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (os.path.join(here, "..", "..", "bench", "fio"), "/usr/share/fipc/bench"):
        if os.path.exists(os.path.join(d, "run-fio.sh")):
            return os.path.normpath(d)
    raise BenchError("run-fio.sh not found (package fipc-xen-tools, /usr/share/fipc/bench)")


# --- the device ---------------------------------------------------------

def dev_numbers(path):
    try:
        st = os.stat(path)
    except OSError as e:
        raise BenchError("%s: %s" % (path, e.strerror), 2)
    if not stat.S_ISBLK(st.st_mode):
        raise BenchError("%s is not a block device" % path, 2)
    return os.major(st.st_rdev), os.minor(st.st_rdev)


def signatures(path):
    """What blkid's low-level probe finds on PATH: ["TYPE=ext4", ...]."""
    r = run(["blkid", "-p", "-o", "export", path])
    if r.returncode == 2:
        return []
    if r.returncode != 0:
        raise BenchError("blkid -p %s failed: %s" % (path, r.stderr.strip()), 2)
    found = [ln for ln in r.stdout.splitlines()
             if ln.split("=", 1)[0] in ("TYPE", "PTTYPE")]
    return found or ["unknown signature (blkid -p -o export %s)" % path]


def xen_users(host, numbers, path):
    """Every backend node in xenstore whose disk is NUMBERS or PATH."""
    want = "%x:%x" % numbers
    real = os.path.realpath(path)
    users = []
    for node, value in host.tree("/local/domain").items():
        m = re.match(r"(/local/domain/\d+/backend/[^/]+/(\d+)/(\d+))/(physical-device|params)$",
                     node)
        if not m:
            continue
        if m.group(4) == "physical-device":
            hit = value.lower() == want
        else:   # a path, or a name under /dev (as block-fipc takes it)
            hit = value and os.path.realpath(
                value if value.startswith("/") else "/dev/" + value) == real
        if hit:
            users.append("domain %s's disk %s (%s)" % (m.group(2), m.group(3), m.group(1)))
    return sorted(set(users))


def device_in_use(host, path, numbers):
    sysdir = "/sys/dev/block/%d:%d" % numbers
    why = []
    with open("/proc/mounts", encoding="utf-8") as f:
        for line in f:
            src = line.split()[0]
            if src.startswith("/") and os.path.exists(src) and \
                    os.path.realpath(src) == os.path.realpath(path):
                why.append("mounted on %s" % line.split()[1])
    try:
        holders = os.listdir(sysdir + "/holders")
    except OSError:
        holders = []
    if holders:
        why.append("held by %s" % ", ".join(holders))
    parts = [n for n in os.listdir(sysdir) if os.path.exists(os.path.join(sysdir, n, "partition"))] \
        if os.path.isdir(sysdir) else []
    if parts:
        why.append("has partitions %s" % ", ".join(sorted(parts)))
    why += ["attached as " + u for u in xen_users(host, numbers, path)]
    return why


def check_device(host, path, destroy):
    numbers = dev_numbers(path)
    busy = device_in_use(host, path, numbers)
    if busy:
        raise BenchError("refusing %s: it is in use (%s)" % (path, "; ".join(busy)), 2)
    sigs = signatures(path)
    if sigs and not destroy:
        raise BenchError("refusing %s: it holds data (%s); the jobs would overwrite it. "
                         "Name a scratch device, or give --destroy-data"
                         % (path, ", ".join(sigs)), 2)
    if sigs:
        say("%s holds %s: overwriting it (--destroy-data)" % (path, ", ".join(sigs)))
    return sigs


# --- the guest ----------------------------------------------------------

def vdev_devid(vdev):
    """The devid libxl gives a whole xvd disk (xvda to xvdzz)."""
    disk = 0
    for ch in vdev[3:]:
        disk = disk * 26 + ord(ch) - ord("a") + 1
    disk -= 1
    return (202 << 8) | (disk << 4) if disk < 16 else (1 << 28) | (disk << 8)


def backend_name_fits(domid, devid):
    """Can Linux make the backend device of domain DOMID's disk DEVID?
    (fipc status and diagnose ask too.)"""
    return len("fipcblk-%d-%d" % (domid, devid)) <= BUS_ID_MAX


def vdev_fits(domid, vdev):
    """Can a phy1: disk of domain DOMID be VDEV (its backend device's name)?"""
    return backend_name_fits(domid, vdev_devid(vdev))


def pick_vdev(used):
    """The highest name of xvdb to xvdp that the guest does not use."""
    for i in range(15, 0, -1):
        name = "xvd" + chr(ord("a") + i)
        if name not in used:
            return name
    raise BenchError("the guest has disks xvdb to xvdp: name a free one with --vdev", 2)


def guest_domid(name):
    r = run(["xl", "domid", name])
    if r.returncode != 0 or not r.stdout.strip().isdigit():
        raise BenchError("no running guest %s (xl domid: %s)"
                         % (name, (r.stderr or r.stdout).strip()), 2)
    return int(r.stdout.strip())


def guest_disks(host, domid):
    """The guest's disks as {its name (xvda): backend path}, every kind."""
    out = {}
    for node, value in host.tree("/local/domain").items():
        m = re.match(r"(/local/domain/\d+/backend/[^/]+/%d/\d+)/dev$" % domid, node)
        if m:
            out[value] = m.group(1)
    return out


def in_guest(args, script, what):
    """Run SCRIPT in the guest through --exec; its stdout (bytes)."""
    argv = shlex.split(args.exec_cmd)
    try:
        r = subprocess.run(argv, input=script.encode(), stdout=subprocess.PIPE,
                           check=False, timeout=args.guest_timeout)
    except FileNotFoundError:
        raise BenchError("--exec %r: %s not found" % (args.exec_cmd, argv[0]), 2)
    except subprocess.TimeoutExpired:
        raise BenchError("%s: no answer from the guest within %d s (--exec %r)"
                         % (what, args.guest_timeout, args.exec_cmd))
    if r.returncode != 0:
        raise BenchError("%s failed in the guest (exit %d, --exec %r)"
                         % (what, r.returncode, args.exec_cmd))
    return r.stdout


def probe_guest(args):
    out = in_guest(args, "command -v fio >/dev/null || { echo 'no fio' >&2; exit 3; }\n"
                   "command -v tar >/dev/null || { echo 'no tar' >&2; exit 3; }\n"
                   "echo fipc-bench-ready\n", "the guest check (fio and tar)")
    if b"fipc-bench-ready" not in out:
        raise BenchError("--exec %r did not pass the guest's output back" % args.exec_cmd, 2)


def guest_script(args, jobs):
    with open(os.path.join(share_dir(), "run-fio.sh"), encoding="utf-8") as f:
        runner = f.read()
    return """set -u
d=$(mktemp -d) || exit 1
cat > "$d/run-fio.sh" <<'FIPC_BENCH_EOF'
%s
FIPC_BENCH_EOF
i=0
while [ ! -e /sys/block/%s/dev ]; do
	i=$((i + 1))
	[ $i -le 600 ] || { echo "fipc bench: no %s in the guest after 60 s" >&2; exit 4; }
	sleep 0.1
done
# A node of our own: a guest without udev has none in /dev.
mm=$(cat /sys/block/%s/dev)
mknod "$d/disk" b "${mm%%%%:*}" "${mm##*:}" || exit 1
FIO_RUNTIME=%d FIO_RAMP=%d FIO_JOBS=%s sh "$d/run-fio.sh" "$d/disk" "$d/out" >&2
rc=$?
tar cf - -C "$d/out" .
rm -rf "$d"
exit $rc
""" % (runner, args.vdev, args.vdev, args.vdev, args.runtime, args.ramp,
       shlex.quote(" ".join(jobs)))


# --- one configuration --------------------------------------------------

def backend_node(host, domid, vdev):
    host.cache.clear()
    return guest_disks(host, domid).get(vdev)


def wait_for(what, cond, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.5)
    raise BenchError("%s: not within %d s" % (what, timeout))


def attach(args, host, domid, cfg):
    spec = ATTACH[cfg] % (args.device, args.vdev)
    r = run(["xl", "block-attach", args.guest, spec])
    if r.returncode != 0:
        raise BenchError("xl block-attach %s '%s' failed: %s"
                         % (args.guest, spec, (r.stderr or r.stdout).strip()))

    def connected():
        node = backend_node(host, domid, args.vdev)
        return node and host.tree(node).get(node + "/state") == "4" and node
    return wait_for("%s: %s connected" % (cfg, args.vdev), connected, 120)


def detach(args, host, domid):
    if not backend_node(host, domid, args.vdev):
        return
    r = run(["xl", "block-detach", args.guest, args.vdev])
    if r.returncode != 0:
        say("xl block-detach %s %s: %s" % (args.guest, args.vdev, (r.stderr or r.stdout).strip()))
    wait_for("%s detached" % args.vdev, lambda: not backend_node(host, domid, args.vdev), 120)


def phy1_facts(gather, host, domid, vdev):
    """The data path a phy1: disk got, and why not memshare if not."""
    host.cache.clear()
    for d in gather(host)["disks"]:
        if d["domid"] == domid and d["disk"] == vdev:
            why = [p["what"] for p in d["problems"]]
            for k in ("backend_error", "frontend_error"):
                if d.get(k):
                    why.append(d[k])
            return {"data_path": d["data_path"], "protocol": d["protocol"],
                    "memshare_wanted": d["memshare_wanted"], "notes": why}
    return {"data_path": None, "notes": ["not in fipc status"]}


def unpack(blob, dest):
    os.makedirs(dest, exist_ok=True)
    with tempfile.TemporaryFile() as f:
        f.write(blob)
        f.seek(0)
        with tarfile.open(fileobj=f) as t:
            for m in t.getmembers():
                name = os.path.normpath(m.name)
                if not m.isfile() or name.startswith(("..", "/")) or "/" in name:
                    continue
                t.extract(m, dest, set_attrs=False)


def run_config(args, host, gather, domid, cfg, jobs):
    dest = os.path.join(args.out, cfg)
    env = dict(os.environ, FIO_RUNTIME=str(args.runtime), FIO_RAMP=str(args.ramp),
               FIO_JOBS=" ".join(jobs))
    if cfg == "dom0":
        r = subprocess.run(["sh", os.path.join(share_dir(), "run-fio.sh"), args.device, dest],
                           env=env, stdout=sys.stderr, check=False)
        if r.returncode != 0:
            raise BenchError("dom0: run-fio.sh on %s failed (exit %d)" % (args.device, r.returncode))
        return {"config": cfg}
    attach(args, host, domid, cfg)
    try:
        facts = {"config": cfg}
        if cfg.startswith("phy1"):
            facts.update(phy1_facts(gather, host, domid, args.vdev))
            want = "memshare" if cfg == "phy1-memshare" else "grant"
            if facts["data_path"] != want:
                say("%s: the disk got data path %s, not %s: %s"
                    % (cfg, facts["data_path"], want, "; ".join(facts["notes"]) or "no reason given"))
        unpack(in_guest(args, guest_script(args, jobs), "%s: the jobs" % cfg), dest)
    finally:
        detach(args, host, domid)
    return facts


# --- the command --------------------------------------------------------

def parse(argv):
    import argparse
    head, _, rest = __doc__.partition("\n\n")
    ap = argparse.ArgumentParser(prog="fipc bench", description=head, epilog=rest,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--guest", required=True, help="a running guest's name")
    ap.add_argument("--device", required=True, help="the scratch block device in this domain")
    ap.add_argument("--exec", dest="exec_cmd",
                    help="command that runs a script (stdin) in the guest (ssh root@GUEST)")
    ap.add_argument("--out", help="results directory (./fipc-bench-<date>)")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="of %s" % ",".join(CONFIGS))
    ap.add_argument("--jobs", default=",".join(DEMO_JOBS + DESK_JOBS), help="run-fio.sh's job names")
    ap.add_argument("--runtime", type=int, default=30, help="seconds per job (30)")
    ap.add_argument("--ramp", type=int, default=2, help="ramp-up seconds per job (2)")
    ap.add_argument("--vdev", help="the name the disk gets in the guest (the highest free one "
                                   "of xvdb to xvdp)")
    ap.add_argument("--guest-timeout", type=int, default=0,
                    help="seconds the guest may take for one configuration (default: from the jobs)")
    ap.add_argument("--destroy-data", action="store_true",
                    help="overwrite a device that holds a filesystem, partition table or LVM")
    ap.add_argument("--emulated", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.exec_cmd = args.exec_cmd or "ssh root@%s" % args.guest
    args.out = args.out or time.strftime("fipc-bench-%Y%m%d-%H%M%S")
    cfgs = [c for c in args.configs.split(",") if c]
    bad = [c for c in cfgs if c not in CONFIGS]
    if bad or not cfgs:
        ap.error("unknown configuration %s (use %s)" % (",".join(bad), ",".join(CONFIGS)))
    jobs = [j for j in args.jobs.split(",") if j]
    bad = [j for j in jobs if j not in DEMO_JOBS + DESK_JOBS]
    if bad or not jobs:
        ap.error("unknown job %s (use %s)" % (",".join(bad), ",".join(DEMO_JOBS + DESK_JOBS)))
    if args.vdev and not re.fullmatch(r"xvd[a-z]{1,2}", args.vdev):
        ap.error("--vdev %s: use a name like xvdq" % args.vdev)
    if args.runtime < 1 or args.ramp < 0:
        ap.error("--runtime must be at least 1 and --ramp at least 0")
    if not args.guest_timeout:
        args.guest_timeout = 300 + len(jobs) * (args.runtime + args.ramp + 60)
    return args, cfgs, jobs


def report(args, meta):
    path = os.path.join(args.out, "bench.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
    argv = [sys.executable, os.path.join(share_dir(), "report.py"), args.out,
            "--out", os.path.join(args.out, "report"), "--meta", path]
    if args.emulated:
        argv.append("--emulated")
    r = subprocess.run(argv, check=False)
    if r.returncode != 0:
        raise BenchError("report.py failed (exit %d)" % r.returncode)


def bench(argv, host, gather):
    """The bench command; returns the exit status."""
    args, cfgs, jobs = parse(argv)
    if os.geteuid() != 0:
        say("run it as root")
        return 2

    def interrupted(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupted)
    domid = None
    before = None
    rc = 0
    try:
        sigs = check_device(host, args.device, args.destroy_data)
        domid = guest_domid(args.guest)
        if not args.vdev:
            args.vdev = pick_vdev(guest_disks(host, domid))
        if any(c.startswith("phy1") for c in cfgs) and not vdev_fits(domid, args.vdev):
            raise BenchError("--vdev %s: a phy1: disk %s of domain %d would have the backend "
                             "device fipcblk-%d-%d, a longer name than Linux allows (%d "
                             "characters): name one of xvdb to xvdp"
                             % (args.vdev, args.vdev, domid, domid, vdev_devid(args.vdev),
                                BUS_ID_MAX), 2)
        if backend_node(host, domid, args.vdev):
            raise BenchError("%s already has a disk %s: name a free one with --vdev"
                             % (args.guest, args.vdev), 2)
        before = guest_disks(host, domid)
        if any(c != "dom0" for c in cfgs):
            probe_guest(args)
        meta = {"guest": args.guest, "domid": domid, "device": args.device,
                "signatures_overwritten": sigs, "runtime_s": args.runtime,
                "ramp_s": args.ramp, "jobs": jobs, "vdev": args.vdev,
                "exec": args.exec_cmd, "configs": {},
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        os.makedirs(args.out, exist_ok=True)
        for cfg in cfgs:
            say("%s: %d jobs of %d s on %s" % (cfg, len(jobs), args.runtime, args.device))
            meta["configs"][cfg] = run_config(args, host, gather, domid, cfg, jobs)
        meta["ended"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        report(args, meta)
        say("results in %s (report/fio.md, report/fio.json, bench.json)" % args.out)
    except BenchError as e:
        say(str(e))
        rc = e.code
    except KeyboardInterrupt:
        say("interrupted")
        rc = 130
    finally:
        if domid is not None and before is not None:
            try:
                detach(args, host, domid)
            except BenchError as e:
                say("cleanup: %s" % e)
                rc = rc or 1
            host.cache.clear()
            after = guest_disks(host, domid)
            if after != before:
                say("the guest's disks changed: before %s, after %s" % (before, after))
                rc = rc or 1
    return rc
