#!/usr/bin/env python3
"""fipc: the administrator's view of a backend domain's fipc disks.

  fipc status [--json]                 every phy1: disk this domain serves
  fipc diagnose DOMAIN[:DISK] [--json] one guest's disks, node by node,
                                       and what is wrong, in words
  fipc bench --guest NAME --device DEV phy: against phy1: on a scratch
                                       device, in a guest (fipc bench -h)

Installed as /usr/sbin/fipc by the fipc-xen-tools package; run it as
root in the backend domain (dom0 or a driver domain).  status and
diagnose read, and never write: xenstore (through xenstore-ls), the backend's sysfs
(/sys/bus/xen-backend/devices/fipcblk-<domid>-<devid>/statistics/) and
xen-fipc-back's module parameters.  docs/admin-guide.md, sections 8 and
9, explains the fields and the fixes it names.

Exit status: status 0, or 2 when it cannot read xenstore; diagnose 0 when
every disk is healthy, 1 when it found a problem, 2 when the domain or
disk is unknown.  For tests, FIPC_ADMIN_XENSTORE names a file in the
format of "xenstore-ls -f /" to read instead of xenstore, and
FIPC_ADMIN_SYSFS a directory that stands for /sys.
"""
import json
import os
import re
import subprocess
import sys

STATES = {1: "Initialising", 2: "InitWait", 3: "Initialised", 4: "Connected",
          5: "Closing", 6: "Closed", 7: "Reconfiguring", 8: "Reconfigured"}

# Backend counters shown by diagnose, and those that must stay 0.
COUNTERS = ("rd_req", "wr_req", "f_req", "ds_req", "oo_req", "rd_sect",
            "wr_sect", "invalid_req", "proto_errors", "grant_errors",
            "io_errors", "recycled_held", "grant_waits", "staged_grant_req",
            "guest_grants_peak", "throttled_req", "throttled_us")
GAUGES = ("queues", "inflight", "memshare_pages", "staging_pages", "weight")
# The disk's I/O limits and its guest's total (limits/, "none" or a number).
LIMITS = tuple(p + k for p in ("", "guest_") for k in (
    "iops", "iops_read", "iops_write", "bps", "bps_read", "bps_write", "burst_ms"))
TEXT = ("data_path",)
# fipc-protocol: 3 is the only one served; 1 and 2 are refused, by name.
PROTOCOLS = {"1": "two-rings (retired)", "2": "position-stamped (retired)",
             "3": "duplex"}


class Host:
    """Where the facts come from: xenstore and sysfs, or test files."""

    def __init__(self):
        self.sysfs = os.environ.get("FIPC_ADMIN_SYSFS", "/sys")
        self.dump = os.environ.get("FIPC_ADMIN_XENSTORE")
        self.dump_text = None
        self.cache = {}

    def tree(self, path):
        """Every node below PATH, as {full path: value}: one xenstore-ls,
        unless a tree read before holds PATH."""
        if path in self.cache:
            return self.cache[path]
        for top, nodes in list(self.cache.items()):
            if path.startswith(top.rstrip("/") + "/"):
                self.cache[path] = {p: v for p, v in nodes.items()
                                    if p == path or p.startswith(path.rstrip("/") + "/")}
                return self.cache[path]
        if self.dump:
            if self.dump_text is None:
                with open(self.dump, encoding="utf-8", errors="replace") as f:
                    self.dump_text = f.read()
            text = self.dump_text
        else:
            try:
                run = subprocess.run(["xenstore-ls", "-f", path],
                                     capture_output=True, text=True,
                                     errors="replace", check=False)
            except FileNotFoundError:
                die("xenstore-ls not found (package xenstore-utils)")
            # A missing path is an empty tree, not an error.
            text = run.stdout if run.returncode == 0 else ""
        nodes = {}
        for line in text.splitlines():
            m = re.match(r'^(/\S*) = "(.*)"$', line)
            if not m:
                continue
            p = m.group(1)
            if p == path or p.startswith(path.rstrip("/") + "/"):
                nodes[p] = unescape(m.group(2))
        self.cache[path] = nodes
        return nodes

    def sys(self, rel):
        """A sysfs file's content (stripped), or None."""
        try:
            with open(os.path.join(self.sysfs, rel), encoding="utf-8",
                      errors="replace") as f:
                return f.read().strip()
        except OSError:
            return None

    def sys_ls(self, rel):
        try:
            return sorted(os.listdir(os.path.join(self.sysfs, rel)))
        except OSError:
            return []


def die(msg):
    """Cannot read what it needs: say why, exit 2."""
    sys.stderr.write("fipc: %s\n" % msg)
    sys.exit(2)


ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


def unescape(v):
    """Undo xenstore-ls' escapes: \\\\, \\", \\n, \\t, \\r and \\xNN."""
    def one(m):
        e = m.group(1)
        if len(e) == 3:
            return chr(int(e[1:], 16))
        return ESCAPES.get(e, e)
    return re.sub(r'\\(x[0-9a-fA-F]{2}|.)', one, v)


def sub(nodes, base):
    """The nodes of NODES under BASE, keyed by their path relative to it."""
    n = len(base) + 1
    return {p[n:]: v for p, v in nodes.items() if p.startswith(base + "/")}


def to_int(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def state_name(v):
    s = to_int(v)
    if s is None:
        return "absent"
    return STATES.get(s, "unknown %s" % v)


def vdev_name(vdev):
    """A Xen virtual-device number as xvd<letters> (xvdb for 51728)."""
    n = to_int(vdev)
    if n is None:
        return str(vdev)
    if n & (1 << 28):
        disk = (n >> 8) & 0xfffff
    elif n >> 8 == 202:
        disk = (n >> 4) & 15
    else:
        return str(vdev)
    name = ""
    disk += 1
    while disk:
        disk, r = divmod(disk - 1, 26)
        name = chr(ord("a") + r) + name
    return "xvd" + name


def parse_pollers(text):
    """poller_cpus' "poller <i> cpu <c> channels <n> ... load_pct <n>" lines."""
    pollers = []
    for line in (text or "").splitlines():
        f = line.split()
        if len(f) < 2 or f[0] != "poller":
            continue
        p = {"poller": to_int(f[1])}
        for k, v in zip(f[2::2], f[3::2]):
            p[k] = to_int(v) if to_int(v) is not None else v
        pollers.append(p)
    return pollers


def backend_info(host, domid):
    param = "module/xen_fipc_back/parameters/"
    loaded = host.sys("module/xen_fipc_back/version") is not None or \
        bool(host.sys_ls("module/xen_fipc_back"))
    info = {"domid": domid, "loaded": loaded,
            "version": host.sys("module/xen_fipc_back/version"),
            "pollers": parse_pollers(host.sys(param + "poller_cpus"))}
    for p in ("memshare", "memshare_max_mib", "max_guest_grants",
              "grant_staging"):
        v = host.sys(param + p)
        info[p] = to_int(v) if to_int(v) is not None else v
    return info


def disk_facts(host, be, domid, vdev, loaded):
    """Everything known of one disk, from xenstore and sysfs."""
    bpath = "/local/domain/%d/backend/fipcblk/%s/%s" % (be, domid, vdev)
    b = sub(host.tree(bpath), bpath)
    # The guest's directory once (its name, frontends and error nodes)
    # and the backend domain's error nodes once, for all disks.
    gpath = "/local/domain/%s" % domid
    guest = host.tree(gpath)
    fpath = b.get("frontend") or gpath + "/device/fipcblk/%s" % vdev
    f = sub(host.tree(fpath), fpath)
    berr = host.tree("/local/domain/%d/error" % be).get(
        "/local/domain/%d/error/backend/fipcblk/%s/%s/error" % (be, domid, vdev))
    ferr = guest.get(gpath + "/error/device/fipcblk/%s/error" % vdev)
    sdir = "bus/xen-backend/devices/fipcblk-%s-%s" % (domid, vdev)
    stats = None
    if host.sys_ls(sdir + "/statistics"):
        stats = {}
        for k in COUNTERS + GAUGES:
            stats[k] = to_int(host.sys(sdir + "/statistics/" + k))
        for k in TEXT:
            stats[k] = host.sys(sdir + "/statistics/" + k)
    limits = None
    if host.sys_ls(sdir + "/limits"):
        limits = {k: host.sys(sdir + "/limits/" + k) for k in LIMITS}
    d = {
        "domid": to_int(domid),
        "guest": guest.get(gpath + "/name"),
        "vdev": to_int(vdev),
        "disk": b.get("dev") or vdev_name(vdev),
        "target": b.get("params"),
        "mode": b.get("mode"),
        "backend_path": bpath,
        "frontend_path": fpath,
        "backend_state": state_name(b.get("state")),
        "frontend_state": state_name(f.get("state")),
        "protocol": PROTOCOLS.get(f.get("fipc-protocol"), f.get("fipc-protocol")),
        "data_path": (stats or {}).get("data_path") or f.get("fipc-data-path"),
        "memshare_wanted": b.get("fipc-memshare-allowed") == "1" and
        f.get("fipc-memshare") == "1",
        "memshare_offered": "memshare" in b.get("fipc-data-paths", "").split(),
        "backend_error": berr,
        "frontend_error": ferr,
        "hotplug_error": b.get("hotplug-error"),
        "statistics": stats,
        "limits": limits,
        "xenstore": {"backend": b, "frontend": f},
    }
    d["state"], d["problems"] = judge(d, loaded)
    return d


def problem(level, what, fix=None):
    return {"level": level, "what": what, "fix": fix}


def judge(d, loaded):
    """The disk's state in one word, and its problems in words."""
    p = []
    st = d["statistics"] or {}
    bs, fs = d["backend_state"], d["frontend_state"]
    berr, ferr = d["backend_error"], d["frontend_error"]
    if d["hotplug_error"]:
        p.append(problem("error", "the hotplug script failed: %s" % d["hotplug_error"],
                         "see /var/log/xen/xen-hotplug.log; the target must be a block device"))
    if d["guest"] is None:
        p.append(problem("warning", "domain %s is gone but its disk's backend nodes remain" % d["domid"],
                         "xenstore-rm %s (after checking no toolstack still works on it)" % d["backend_path"]))
    if not loaded:
        p.append(problem("error", "the fipcblk backend driver (xen-fipc-back) is not loaded",
                         "modprobe xen-fipc-back; the disk then connects"))
        return "down", p
    if d["statistics"] is None and bs in ("absent", "Initialising"):
        fb = bench_module()
        if not fb.backend_name_fits(d["domid"], d["vdev"]):
            p.append(problem("error", "Linux cannot create the disk's backend device: its name "
                             "fipcblk-%s-%s is longer than the %d characters Linux allows (an "
                             "extended vdev, xvdq on, of a guest whose domid has two digits)"
                             % (d["domid"], d["vdev"], fb.BUS_ID_MAX),
                             "give the disk a vdev of xvdb to xvdp (xl refuses such a disk;"
                             " another toolstack may not)"))
        else:
            p.append(problem("error", "the backend has not taken the device (state %s)" % bs,
                             "check dmesg for fipcblk; detach and attach the disk again"))
        return "down", p
    if bs == "Connected" and fs == "Connected":
        state = "connected"
        if d["memshare_wanted"] and d["memshare_offered"] and d["data_path"] == "grant":
            refused = bool(berr and "memshare" in berr)
            why = berr if refused else ferr
            p.append(problem("warning", "fell back to grants from memshare" +
                             (": %s" % why if why else
                              " (the guest chose grants: its memshare parameter or its own limits; see its kernel log)"),
                             "raise memshare_max_mib within Xen's maptrack room, then attach the disk again"
                             " (docs/admin-guide.md, section 6)" if refused else
                             "nothing to change in dom0: the guest's kernel log says why ('memshare:' lines),"
                             " and its xen-fipc-front memshare parameter turns it on or off"))
            state = "degraded"
        elif berr:
            p.append(problem("note", "an earlier error, since recovered: %s" % berr))
        if (st.get("proto_errors") or 0) > 0:
            p.append(problem("note", "the guest broke the ring protocol %d time(s) before and reconnected"
                             % st["proto_errors"]))
    elif berr and "broke the ring protocol" in berr:
        state = "closed"
        p.append(problem("error", "the guest broke the ring protocol; the backend closed the disk "
                         "(proto_errors %s; backend %s, frontend %s)" % (st.get("proto_errors"), bs, fs),
                         "a guest that keeps doing this is buggy or hostile: detach its disk or destroy it"))
    elif bs in ("Closing", "Closed") or fs in ("Closing", "Closed"):
        state = "closed"
        if ferr:
            p.append(problem("error", "the guest's frontend closed the disk: %s" % ferr,
                             "see the guest's kernel log"))
        elif berr:
            p.append(problem("error", "the backend closed the disk: %s" % berr,
                             "see dmesg in this domain"))
        elif bs == "InitWait":
            p.append(problem("error", "the guest closed its end of the disk (frontend %s); "
                             "the backend waits for it to connect again" % fs,
                             "in the guest, bind the fipcblk device again or reload xen-fipc-front;"
                             " or xl block-detach and block-attach the disk"))
        else:
            p.append(problem("error", "the disk is closing or closed (backend %s, frontend %s)" % (bs, fs),
                             "xl block-detach, then block-attach, or restart the guest"))
    elif bs == "InitWait" and berr:
        state = "waiting"
        p.append(problem("error", "the backend refused the frontend's values: %s (frontend %s)" % (berr, fs),
                         "compare both modules' version files; see dmesg here and in the guest"))
    elif bs == "InitWait" and fs in ("absent", "Initialising"):
        state = "waiting"
        p.append(problem("error", "the guest has not started its fipcblk frontend (frontend state %s)" % fs,
                         "modprobe xen-fipc-front in the guest (docs/admin-guide.md, section 9)"))
    else:
        state = "connecting"
        msg = "the disk is between states (backend %s, frontend %s)" % (bs, fs)
        if berr or ferr:
            msg += ": %s" % (berr or ferr)
        p.append(problem("error" if berr or ferr else "warning", msg,
                         "wait a few seconds and look again; see dmesg here and in the guest"))
    for k, level, what in (("recycled_held", "error", "pages reused while a lower layer held them"),
                           ("invalid_req", "warning", "malformed requests refused"),
                           ("grant_errors", "warning", "grant maps that failed (Xen's maptrack room?)"),
                           ("io_errors", "warning", "I/O errors from the backing device")):
        if (st.get(k) or 0) > 0:
            p.append(problem(level, "%s: %d %s" % (k, st[k], what)))
    if state == "connected" and any(x["level"] in ("error", "warning") for x in p):
        state = "degraded"
    return state, p


def own_domid(host):
    """This (the backend) domain's id: 0 in dom0."""
    own = os.environ.get("FIPC_ADMIN_DOMID")
    if own is None and not host.dump:
        try:
            run = subprocess.run(["xenstore-read", "domid"], capture_output=True,
                                 text=True, check=False)
        except FileNotFoundError:
            die("xenstore-read not found (package xenstore-utils)")
        if run.returncode != 0:
            die("cannot read xenstore: %s (run as root in dom0 or a driver domain,"
                " with xenstored running)" % run.stderr.strip())
        own = run.stdout.strip()
    return to_int(own) or 0


def gather(host):
    """The backend and every disk it has, in xenstore or in sysfs."""
    be = own_domid(host)
    info = backend_info(host, be)
    root = "/local/domain/%d/backend/fipcblk" % be
    keys = set()
    for p in host.tree(root):
        m = re.match(re.escape(root) + r"/(\d+)/(\d+)(/|$)", p)
        if m:
            keys.add((int(m.group(1)), int(m.group(2))))
    for name in host.sys_ls("bus/xen-backend/devices"):
        m = re.match(r"fipcblk-(\d+)-(\d+)$", name)
        if m:
            keys.add((int(m.group(1)), int(m.group(2))))
    disks = []
    for domid, vdev in sorted(keys):
        disks.append(disk_facts(host, be, domid, vdev, info["loaded"]))
    # memshare_max_mib counts each guest's mapped memory (the same figure
    # on all its disks) and the staging pages channels keep mapped.
    pages = {}
    for d in disks:
        mp = (d["statistics"] or {}).get("memshare_pages") or 0
        pages[d["domid"]] = max(pages.get(d["domid"], 0), mp)
    info["memshare_mapped_pages"] = sum(pages.values())
    info["staging_mapped_pages"] = sum((d["statistics"] or {}).get("staging_pages") or 0
                                       for d in disks)
    if isinstance(info.get("memshare_max_mib"), int):
        info["memshare_budget_pages"] = info["memshare_max_mib"] * 256
    return {"backend": info, "disks": disks}




def who(d):
    return "%s (%s) %s" % (d["guest"] or "domain", d["domid"], d["disk"])


def num(v):
    return "-" if v is None else str(v)


def print_backend(info):
    if not info["loaded"]:
        print("backend: xen-fipc-back is not loaded in domain %d" % info["domid"])
        return
    print("backend: xen-fipc-back %s in domain %d; memshare %s"
          % (info.get("version") or "?", info["domid"], num(info.get("memshare"))))
    if "memshare_budget_pages" in info:
        print("memshare budget: %d of %d pages in use (guest memory %d, staging %d;"
              " memshare_max_mib %d)"
              % (info["memshare_mapped_pages"] + info["staging_mapped_pages"],
                 info["memshare_budget_pages"], info["memshare_mapped_pages"],
                 info["staging_mapped_pages"], info["memshare_max_mib"]))
    for p in info["pollers"]:
        print("poller %s: cpu %s, %s channel(s), load %s %%, %s sleeps (%s contended, %s stolen)"
              % (num(p.get("poller")), num(p.get("cpu")), num(p.get("channels")),
                 num(p.get("load_pct")), num(p.get("sleeps")),
                 num(p.get("contended_sleeps")), num(p.get("steal_sleeps"))))


def throttled(st):
    """Requests that waited for a limit, and their wait in all."""
    n, us = st.get("throttled_req"), st.get("throttled_us")
    if n is None:
        return "-"
    return "%d (%.1f s)" % (n, (us or 0) / 1e6) if n else "0"


def limits_set(limits):
    """The limits that are set, "name=value,..."; "-" if none."""
    if not limits:
        return "-"
    on = ["%s=%s" % (k, limits[k]) for k in LIMITS
          if limits.get(k) not in (None, "none") and not k.endswith("burst_ms")]
    if not on:
        return "-"
    # A burst only where it is not the default 100 ms.
    on += ["%s=%s" % (k, limits[k]) for k in ("burst_ms", "guest_burst_ms")
           if limits.get(k) not in (None, "100")]
    return ",".join(on)


def print_status(data):
    print_backend(data["backend"])
    disks = data["disks"]
    if not disks:
        print("no fipc (phy1:) disks")
        return
    rows = [("GUEST", "DISK", "TARGET", "STATE", "PATH", "QUEUES",
             "INFLIGHT", "READS", "WRITES", "ERRORS", "THROTTLED", "LIMITS")]
    for d in disks:
        st = d["statistics"] or {}
        errs = sum(st.get(k) or 0 for k in ("invalid_req", "proto_errors",
                                             "grant_errors", "io_errors"))
        rows.append(("%s (%s)" % (d["guest"] or "-", d["domid"]), d["disk"],
                     d["target"] or "-", d["state"], d["data_path"] or "-", num(st.get("queues")),
                     num(st.get("inflight")), num(st.get("rd_req")),
                     num(st.get("wr_req")), str(errs), throttled(st),
                     limits_set(d["limits"])))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    for d in disks:
        for p in d["problems"]:
            print("%s: %s: %s" % (who(d), p["level"], p["what"]))


def print_diagnose(disks):
    for d in disks:
        print("== %s" % who(d))
        print("target %s, mode %s" % (d["target"] or "-", d["mode"] or "-"))
        print("backend  %s: state %s" % (d["backend_path"], d["backend_state"]))
        for k, v in sorted(d["xenstore"]["backend"].items()):
            print("  %s = %s" % (k, v))
        print("frontend %s: state %s" % (d["frontend_path"], d["frontend_state"]))
        for k, v in sorted(d["xenstore"]["frontend"].items()):
            print("  %s = %s" % (k, v))
        print("backend error node: %s" % (d["backend_error"] or "none"))
        print("frontend error node: %s" % (d["frontend_error"] or "none"))
        st = d["statistics"]
        if st is None:
            print("backend statistics: none (no backend device in sysfs)")
        else:
            print("backend statistics: " + " ".join("%s %s" % (k, num(st[k])) for k in
                                                     TEXT + GAUGES + COUNTERS))
        if d["limits"] is not None:
            print("I/O limits: %s (burst_ms %s; guest total: burst_ms %s)"
                  % (limits_set(d["limits"]) if limits_set(d["limits"]) != "-" else "none",
                     d["limits"].get("burst_ms"), d["limits"].get("guest_burst_ms")))
        if not d["problems"]:
            print("verdict: %s, healthy" % d["state"])
        for p in d["problems"]:
            print("verdict: %s: %s" % (p["level"], p["what"]))
            if p["fix"]:
                print("   fix: %s" % p["fix"])


def select(disks, spec):
    """The disks of DOMAIN[:DISK] (a name or an id; xvdb or 51728)."""
    dom, _, dev = spec.partition(":")
    out = []
    for d in disks:
        if dom not in (str(d["domid"]), d["guest"]):
            continue
        if dev and dev not in (d["disk"], str(d["vdev"])):
            continue
        out.append(d)
    return out


def usage():
    sys.stderr.write(__doc__.split("\n\n")[0] + "\n")
    return 2


def bench_module():
    """fipc_bench (tools/admin/fipc_bench.py; /usr/share/fipc when installed)."""
    here = os.path.dirname(os.path.realpath(__file__))
    if "fipc_bench" not in sys.modules:
        sys.path[:0] = [here, "/usr/share/fipc"]
    import fipc_bench  # pylint: disable=import-outside-toplevel
    return fipc_bench


def bench(argv):
    """fipc bench."""
    return bench_module().bench(argv, Host(), gather)


def main(argv):
    if argv and argv[0] == "bench":
        return bench(argv[1:])
    as_json = "--json" in argv
    args = [a for a in argv if a != "--json"]
    if not args or args[0] in ("-h", "--help", "help"):
        return usage() if not args else (print(__doc__) or 0)
    cmd = args[0]
    if cmd not in ("status", "diagnose") or (cmd == "status" and len(args) != 1) or \
            (cmd == "diagnose" and len(args) != 2):
        return usage()
    host = Host()
    data = gather(host)
    for d in data["disks"]:
        d.pop("_loaded", None)
    if cmd == "status":
        if as_json:
            print(json.dumps(data, indent=2, sort_keys=True))
        else:
            print_status(data)
        return 0
    disks = select(data["disks"], args[1])
    if not disks:
        sys.stderr.write("fipc: no fipc disk of %s in this backend domain (%d)\n"
                         % (args[1], data["backend"]["domid"]))
        return 2
    if as_json:
        print(json.dumps({"backend": data["backend"], "disks": disks}, indent=2,
                         sort_keys=True))
    else:
        print_diagnose(disks)
    bad = any(p["level"] in ("error", "warning") for d in disks for p in d["problems"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
