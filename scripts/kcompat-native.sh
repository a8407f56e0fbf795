#!/bin/bash
# Turn copies of fipc's sources into native code for one target kernel,
# for its in-tree series (scripts/linux-patches.sh): the compile probes'
# results (PROBES, as scripts/kcompat-probe.sh writes them) decide every
# "#if[n]def FIPC_HAVE_*" (unifdef); <linux/unaligned.h> becomes
# <asm/unaligned.h>, xenbus_read_driver_state(dev, path) loses its
# device and k[mz]alloc_obj(P, gfp) is k[mz]alloc(sizeof(P), gfp) where
# the target has only those.  What the drivers
# use of mainline's API and the target lacks comes from the headers of
# linux/compat/include/, cut down to what the target needs, as one
# header: OUT (written only if the target needs any of it; the caller
# forces it into the drivers' files).  On mainline nothing is left.
#
# usage: kcompat-native.sh PROBES OUT FILE...
# Exit 0; OUT exists afterwards iff it is needed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
probes=$1
out=$2
shift 2
args=$(sed -n -e 's/^#define \(FIPC_HAVE_[A-Z0-9_]*\) 1$/-D\1/p' \
	-e 's|^/\* #undef \(FIPC_HAVE_[A-Z0-9_]*\) \*/$|-U\1|p' "$probes" | xargs)
[ -n "$args" ] || { echo "kcompat-native: no results in $probes" >&2; exit 1; }

# unifdef exits 0 (unchanged), 1 (changed) or 2 (trouble).
strip() {
	local rc=0
	unifdef $args -o "$1" "$1" || rc=$?
	[ "$rc" -le 1 ] || { echo "kcompat-native: unifdef failed on $1" >&2; exit 1; }
}

for f in "$@"; do
	strip "$f"
	if ! grep -q '^#define FIPC_HAVE_LINUX_UNALIGNED_H ' "$probes"; then
		sed -i 's|^#include <linux/unaligned.h>$|#include <asm/unaligned.h>|' "$f"
	fi
	if ! grep -q '^#define FIPC_HAVE_XENBUS_STATE_DEV ' "$probes"; then
		sed -i 's/xenbus_read_driver_state([^,()]*, /xenbus_read_driver_state(/g' "$f"
	fi
	if ! grep -q '^#define FIPC_HAVE_KZALLOC_OBJ ' "$probes"; then
		sed -i 's/\bk\([mz]\)alloc_obj(\([^,()]*\), /k\1alloc(sizeof(\2), /g' "$f"
	fi
done

# The compat headers' sections: each kernel header, then what it lacks
# (xen/xenbus.h's and linux/slab.h's items are the calls rewritten above).
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.one"' EXIT
for h in linux/blkdev.h linux/blk-mq.h; do
	sed -e '1,/^#include_next/d' -e '/^#include "fipc_kcompat_probes.h"$/d' \
		"$top/linux/compat/include/$h" >"$tmp.one"
	strip "$tmp.one"
	# Anything but the section's guard and blank lines: needed.
	if grep -v -e '^#ifndef _FIPC_KCOMPAT_' -e '^#define _FIPC_KCOMPAT_' \
		-e '^#endif /\* _FIPC_KCOMPAT_' -e '^$' "$tmp.one" | grep -q .; then
		{ echo; echo "#include <$h>"; cat -s "$tmp.one"; } >>"$tmp"
	fi
done
rm -f "$out"
if [ -s "$tmp" ]; then
	{
		echo '/* SPDX-License-Identifier: GPL-2.0 */'
		echo '/*'
		echo ' * What fipc uses of mainline'"'"'s kernel API and this kernel lacks'
		echo ' * (from fipc'"'"'s linux/compat/include/, cut down to this kernel).'
		echo ' */'
		cat "$tmp"
	} >"$out"
fi
