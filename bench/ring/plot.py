#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plot build/bench/ring.json (from ring-bench -j) into a PNG.

Run with Debian's /usr/bin/python3, which has python3-matplotlib.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RINGS = ["duplex", "xen_ring", "packed", "ptr_ring", "cursors", "floor64",
         "virtio_pk", "nvme_sqcq"]
BURSTS = ["1", "2", "4", "8", "16", "32", "64"]


def main(src, dst):
    with open(src) as f:
        d = json.load(f)
    names = ["floor"] + [r for r in RINGS if r in d]
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.8))

    p50 = [d[n]["rtt_cycles"]["p50"] for n in names]
    lo = [p - d[n]["rtt_cycles"]["min"] for n, p in zip(names, p50)]
    hi = [d[n]["rtt_cycles"]["p99"] - p for n, p in zip(names, p50)]
    ax[0].bar(names, p50, yerr=[lo, hi], capsize=4,
              color=["grey"] + ["C%d" % i for i in range(len(names) - 1)])
    ax[0].set_title("round trip, 1 outstanding (p50; bars: min..p99)")
    ax[0].set_ylabel("TSC cycles")

    for i, n in enumerate(names[1:]):
        y = [d[n]["burst_cycles_per_msg"][b] for b in BURSTS]
        ax[1].plot([int(b) for b in BURSTS], y, marker="o", label=n,
                   color="C%d" % i)
    ax[1].set_xscale("log", base=2)
    ax[1].set_yscale("log")
    ax[1].set_xticks([int(b) for b in BURSTS], BURSTS)
    ax[1].set_xlabel("burst size (messages)")
    ax[1].set_ylabel("TSC cycles per message (p50 batch / N)")
    ax[1].set_title("bursts: N requests, then N replies")
    ax[1].legend()

    streamed = [(i, n) for i, n in enumerate(names[1:])
                if d[n]["oneway_msgs_per_s"]]
    rate = [d[n]["oneway_msgs_per_s"]["median_chunk"] / 1e6
            for _, n in streamed]
    ax[2].bar([n for _, n in streamed], rate,
              color=["C%d" % i for i, _ in streamed])
    ax[2].set_title("one-way streaming (median 4096-msg chunk)")
    ax[2].set_ylabel("million messages / s")

    m = d["machine"]
    fig.suptitle("fipc ring micro-benchmark - %s, %s, CPUs %s, TSC %.2f GHz"
                 " - %s %s - loadavg %s / %s"
                 % (m["cpu_model"], m["kernel"], d["cpus"],
                    d["tsc_hz"] / 1e9, d["date"], d["git_commit"],
                    d["loadavg_start"].split()[0],
                    d["loadavg_end"].split()[0]), fontsize=9)
    fig.tight_layout()
    fig.savefig(dst, dpi=90)
    print("wrote", dst)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
