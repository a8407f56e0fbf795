#!/bin/bash
# make linux-patches: the library and both drivers as a patch series for
# a Debian kernel source, in the shape a kernel maintainer reviews
# (build/linux-patches/0000-cover-letter.patch, 0001-...): Debian 12's
# linux-source-6.1, or with FIPC_KTARGET=6.12 or mainline Debian 13's
# linux-source-6.12 or trixie-backports' (7.3 now), in
# build/linux-patches-<target>/.
#
#   0001 lib: fipc            lib/fipc/, include/fipc/, the KUnit suites
#   0002 xen: fipcblk.h       include/xen/interface/io/fipcblk.h
#   0003 xen: mem-reservation a notifier of the frames a guest gives back
#                             to Xen and takes from it (xen-fipc-front's
#                             memshare in PVH/HVM guests; a stock kernel
#                             gets kprobes instead, front_gfn_watch.c)
#   0004 xen-fipc-front       drivers/block/xen-fipc-front/
#   0005 xen-fipc-back        drivers/block/xen-fipc-back/, its KUnit suites
#
# Each patch also hooks its directory into the parent's Kconfig and
# Makefile.  The files are the repository's as they are, except where a
# Linux tree puts them: the library's headers move from lib/fipc/include/
# to include/fipc/ (so lib/fipc/Kbuild loses the -I line the out-of-tree
# build needs), the KUnit suites come with their directories (lib/fipc/
# tests/, xen-fipc-back/tests/), and include/fipc/fipc_version.h names
# this tree's version.  The series is made with git format-patch in a
# scratch repository whose first commit is the pristine files it changes;
# it applies with "patch -p1" or "git am" (tests/linux-patches/check.sh).
#
# usage: linux-patches.sh [OUTDIR]   (default build/linux-patches[-<target>])
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
target=${FIPC_KTARGET:-6.1}
suffix=
[ "$target" = 6.1 ] || suffix=-$target
out=${1:-$top/build/linux-patches$suffix}
src=$("$top/scripts/linux-src.sh" "$target")
srcname=$(basename "$src")
work=$top/build/linux-patches-work$suffix
version=$("$top/scripts/fipc-version.sh" lib linux xen)
ident=$(git -C "$top" log -1 --format='%an <%ae>' 2>/dev/null ||
	echo "fipc developers <fipc@localhost>")
date=$(git -C "$top" log -1 --format='%ad' --date=rfc 2>/dev/null || date -R)

rm -rf "$work" "$out"
mkdir -p "$work" "$out"
cd "$work"
git init -q
git config user.name "${ident% <*}"
git config user.email "$(echo "$ident" | sed 's/.*<\(.*\)>/\1/')"
export GIT_AUTHOR_DATE="$date" GIT_COMMITTER_DATE="$date"

# commit SUBJECT BODY: one patch, signed off.
commit() {
	git add -A
	git commit -q -s -m "$1" -m "$2"
}

# The pristine files the series changes, as the base.
for f in lib/Kconfig lib/Makefile drivers/block/Kconfig drivers/block/Makefile \
	drivers/xen/mem-reservation.c include/xen/mem-reservation.h; do
	mkdir -p "$(dirname "$f")"
	cp "$src/$f" "$f"
done
git add -A
git commit -q -m "$srcname (Debian), the files the series changes"

# repo_files DIR: the files of DIR the repository tracks (or would).
repo_files() {
	(cd "$top" && git ls-files -co --exclude-standard -- "$1") |
		while read -r f; do [ -f "$top/$f" ] && echo "$f"; done
}

# The target's compile probes (scripts/kcompat-probe.sh, against the
# headers of the same kernel series): scripts/kcompat-native.sh makes
# each file this kernel's native code with them.
probes=$top/build/linux-patches-kcompat$suffix
"$top/scripts/kcompat-probe.sh" --target "$target" "$probes"

# 0001: the library.
mkdir -p lib/fipc include/fipc
repo_files lib/fipc | while read -r f; do
	case $f in
	lib/fipc/include/fipc/*) cp "$top/$f" "include/fipc/${f##*/}" ;;
	lib/fipc/ring/*.[ch] | lib/fipc/poller/*.[ch] | lib/fipc/*.c | \
	lib/fipc/Kconfig | lib/fipc/Kbuild | lib/fipc/tests/*)
		mkdir -p "${f%/*}" && cp "$top/$f" "$f" ;;
	*) echo "linux-patches: unexpected $f" >&2; exit 1 ;;
	esac
done
grep -v '^ccflags-y += -I$(src)/include$' "$top/lib/fipc/Kbuild" > lib/fipc/Kbuild
"$top/scripts/fipc-version-header.sh" "$version" > include/fipc/fipc_version.h
# In a tree the library is kernel code only: its userspace branches go.
for f in lib/fipc/*.[ch] lib/fipc/*/*.[ch] include/fipc/*.h; do
	rc=0
	unifdef -D__KERNEL__ -o "$f" "$f" || rc=$?
	cat -s "$f" >"$f.new" && mv "$f.new" "$f"
	[ "$rc" -le 1 ] || { echo "linux-patches: unifdef failed on $f" >&2; exit 1; }
done
"$top/scripts/kcompat-native.sh" "$probes/fipc_kcompat_probes.h" \
	"$probes/lib_kcompat.h" lib/fipc/*.[ch] lib/fipc/*/*.[ch] \
	include/fipc/*.h
rm -f "$probes/lib_kcompat.h"
printf '\nsource "lib/fipc/Kconfig"\n' >> lib/Kconfig
printf '\nobj-$(CONFIG_FIPC) += fipc/\n' >> lib/Makefile
commit "lib: add fipc, rings of cache-line slots for cross-domain IPC" \
"A channel is one duplex ring of 64-byte slots in shared memory that
carries requests and their replies.  Each slot carries 60 bytes of
payload and its own flag in its last four bytes, so there is no shared
producer or consumer counter and a request and its reply cost the
transfers of one cache line there and back.  Each side copies a slot
once into private memory and checks every flag against the values it
may have, so a hostile peer (the other side may be another virtual
machine) can only stop the flow.

Also the pinned polling threads that serve many channels, sleep when
idle after a learnt idle window and scale with load.  The rings are in
lib/fipc/ring/, the threads in lib/fipc/poller/; lib/fipc/fipc_stats.c
keeps the block drivers' per-channel counters.

KUnit suites, in lib/fipc/tests/: the ring (fipc_duplex), the pollers
(fipc) and the counters (fipc_stats)."

# 0002: the public header.
mkdir -p include/xen/interface/io
cp "$top/xen/include/public/io/fipcblk.h" include/xen/interface/io/
commit "xen: add the fipcblk para-virtual block I/O interface" \
"The public interface of the fipc block device (xenbus device type
\"fipcblk\"): the ring of 64-byte slots it runs on, every xenstore key
with its writer, type, default and meaning, the states, the request
and response messages with their limits, the memshare and staging
data paths, and the helpers both ends use to lay out a request.  It
is complete on its own: a frontend or backend for another OS can be
written from it."

# 0003: the mem-reservation notifier.  The header gains the events, the
# change they carry and the (un)register calls before its last #endif;
# the C file the chain and the calls, each before its hypercall.
hdr=include/xen/mem-reservation.h
grep -qx '#endif' "$hdr" || { echo "linux-patches: no #endif in $hdr" >&2; exit 1; }
head -n -1 "$hdr" > "$hdr.new"
cat >> "$hdr.new" <<'EOF_H'
/*
 * Listeners hear of the frames this domain gives back to Xen
 * (XENMEM_RESERVATION_DECREASE) and takes from it
 * (XENMEM_RESERVATION_INCREASE) before the hypercall, with a
 * struct xenmem_reservation_change as data: gfns, or machine frames in a
 * PV domain.  They run in the caller's context and must not sleep; a
 * driver that shares guest memory with another domain learns which gfns
 * no longer hold the frame it shared.
 */
#define XENMEM_RESERVATION_DECREASE	1
#define XENMEM_RESERVATION_INCREASE	2

struct xenmem_reservation_change {
	int count;
	const xen_pfn_t *frames;
};

struct notifier_block;

int xenmem_reservation_register_notifier(struct notifier_block *nb);
int xenmem_reservation_unregister_notifier(struct notifier_block *nb);

#endif
EOF_H
mv "$hdr.new" "$hdr"
cfile=drivers/xen/mem-reservation.c
notify=$(mktemp)
cat > "$notify" <<'EOF_C'
static ATOMIC_NOTIFIER_HEAD(xenmem_reservation_chain);

/**
 * xenmem_reservation_register_notifier() - hear of frames given and taken
 * @nb: called with XENMEM_RESERVATION_DECREASE or _INCREASE and a
 *      struct xenmem_reservation_change, before each hypercall; must
 *      not sleep
 *
 * Return: 0, or -EEXIST if @nb is registered already.
 */
int xenmem_reservation_register_notifier(struct notifier_block *nb)
{
	return atomic_notifier_chain_register(&xenmem_reservation_chain, nb);
}
EXPORT_SYMBOL_GPL(xenmem_reservation_register_notifier);

/**
 * xenmem_reservation_unregister_notifier() - stop hearing of them
 * @nb: a notifier registered before
 *
 * Waits until no call of @nb is running.
 *
 * Return: 0, or -ENOENT if @nb was not registered.
 */
int xenmem_reservation_unregister_notifier(struct notifier_block *nb)
{
	return atomic_notifier_chain_unregister(&xenmem_reservation_chain, nb);
}
EXPORT_SYMBOL_GPL(xenmem_reservation_unregister_notifier);

static void xenmem_reservation_notify(unsigned long action, int count,
				      const xen_pfn_t *frames)
{
	struct xenmem_reservation_change change = {
		.count = count,
		.frames = frames,
	};

	atomic_notifier_call_chain(&xenmem_reservation_chain, action, &change);
}

EOF_C
awk -v notify="$notify" '
	/^#include <linux\/moduleparam.h>$/ { print; print "#include <linux/notifier.h>"; next }
	/^\/\* @frames is an array of PFNs \*\/$/ && !done {
		while ((getline line < notify) > 0) print line
		done = 1
	}
	/^int xenmem_reservation_increase\(/ { ev = "XENMEM_RESERVATION_INCREASE" }
	/^int xenmem_reservation_decrease\(/ { ev = "XENMEM_RESERVATION_DECREASE" }
	/^\treturn HYPERVISOR_memory_op\(XENMEM_/ && ev != "" {
		print "\txenmem_reservation_notify(" ev ", count, frames);"
		calls++
		ev = ""
	}
	{ print }
	END { if (!done || calls != 2) exit 1 }
' "$cfile" > "$cfile.new" ||
	{ echo "linux-patches: $cfile is not laid out as expected" >&2; exit 1; }
mv "$cfile.new" "$cfile"
rm -f "$notify"
commit "xen: mem-reservation: notify listeners of frames given and taken" \
"A driver that shares a guest's memory with another domain once, at
connect, must know when a gfn stops holding the frame it shared: after
XENMEM_decrease_reservation (the balloon, the grant table's DMA
buffers) the backend's mapping still names the old frame, and after
XENMEM_populate_physmap a new one sits behind the same gfn.  An
auto-translated guest has no p2m of its own to compare, so
xenmem_reservation_decrease() and xenmem_reservation_increase() now
call an atomic notifier chain with the frames before the hypercall.

xen-fipc-front's memshare uses it to stop naming such gfns (without it
the driver falls back to kprobes on these two functions)."

# 0004, 0005: the drivers, hooked in after xen-blkback, and a driver's
# KUnit suites (its tests/, which builds without Xen) after it.  What 6.1
# lacks beyond native rewrites comes in include/fipc/fipc_kcompat.h,
# forced into the drivers' files.
driver() {
	local d=$1 sym=$2 compat=include/fipc/fipc_kcompat.h
	mkdir -p "drivers/block/$d"
	repo_files "linux/drivers/block/$d" | while read -r f; do
		f=${f#linux/}
		mkdir -p "${f%/*}" && cp "$top/linux/$f" "$f"
	done
	# shellcheck disable=SC2046
	"$top/scripts/kcompat-native.sh" "$probes/fipc_kcompat_probes.h" \
		"$probes/fipc_kcompat.h" $(find "drivers/block/$d" -name '*.[ch]')
	if [ -f "$probes/fipc_kcompat.h" ]; then
		mv "$probes/fipc_kcompat.h" "$compat"
		printf '%s\n' '# What the drivers use of later kernels'"'"' API.' \
			"ccflags-y += -include \$(srctree)/$compat" \
			>>"drivers/block/$d/Kbuild"
	fi
	local tests=
	[ ! -f "drivers/block/$d/tests/Kbuild" ] ||
		tests="obj-\$(CONFIG_${sym}_KUNIT_TEST)	+= $d/tests/"
	awk -v line="obj-\$(CONFIG_$sym)	+= $d/" -v tests="$tests" '
		{ print }
		/^obj-\$\(CONFIG_XEN_BLKDEV_BACKEND\)/ {
			print line
			if (tests != "") print tests
		}
	' drivers/block/Makefile > drivers/block/Makefile.new
	mv drivers/block/Makefile.new drivers/block/Makefile
	awk -v line="source \"drivers/block/$d/Kconfig\"" '
		/^endif # BLK_DEV/ { print line; print "" }
		{ print }
	' drivers/block/Kconfig > drivers/block/Kconfig.new
	mv drivers/block/Kconfig.new drivers/block/Kconfig
}
driver xen-fipc-front XEN_FIPC_FRONT
commit "xen-fipc-front: para-virtual block frontend on fipc channels" \
"A blk-mq driver for Xen guests with one fipc channel per hardware
queue.  Responses are taken by pinned polling threads shared by all
disks; the backend is notified only when its poller sleeps.  Data
travels by per-request grants, or (memshare) by guest frame numbers
once the guest's memory is shared with the backend at connect, so a
steady-state request needs no hypercall and no grant operation.
Supports flush, FUA, discard, resize, reconnection, save/restore and
migration.  XEN_FIPC_FRONT_INJECT adds a debugfs request injector for
hostile-peer tests."
driver xen-fipc-back XEN_FIPC_BACK
commit "xen-fipc-back: para-virtual block backend on fipc channels" \
"The backend of the fipcblk interface, for dom0 or a driver domain.
A few pinned polling threads serve the channels of every guest with a
per-channel budget and per-disk weights, never sleeping on one guest's
behalf (non-blocking submission, parked channels).  Each request is
copied once and validated before use; a malformed one is answered
with an error, a broken ring closes the channel.  Grant mappings,
in-flight requests and mapped guest memory are bounded per guest.

KUnit suites, in drivers/block/xen-fipc-back/tests/ (built without
Xen, from drivers/block/Makefile): request validation
(fipcblk_validate), the I/O limits (fipcblk_limit) and the queue of
requests taken from a ring (fipcblk_rxq)."

git format-patch -q --cover-letter -o "$out" HEAD~5 >/dev/null
# The cover letter's placeholders, filled in.
sed -i -e "s/\*\*\* SUBJECT HERE \*\*\*/fipc: para-virtual block I\/O over cache-line slot rings ($version)/" \
	-e "/\*\*\* BLURB HERE \*\*\*/{
r /dev/stdin
d
}" "$out/0000-cover-letter.patch" <<EOF
fipc ("Fip-see") makes Xen guests do block I/O at near-native speed:
channels of 64-byte slots that carry their own ready flag, served by
polling threads, replace blkif's shared ring and its event per batch;
with memshare a request carries guest frame numbers and needs no
hypercall.

Generated by "make linux-patches" from fipc $version,
for Debian's $srcname.  The series builds in the tree with
CONFIG_FIPC, CONFIG_XEN_FIPC_FRONT, CONFIG_XEN_FIPC_BACK and their
KUnit and test options on (tests/linux-patches/check.sh).
EOF
ls "$out"/*.patch
