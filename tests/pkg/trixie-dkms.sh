#!/bin/bash
# fipc-dkms (scripts/make-deb.sh) in Debian 13: installed with dpkg in the
# trixie userland (scripts/trixie-root.sh), built and installed by
# trixie's DKMS for Debian 13's 6.12 and trixie-backports' mainline
# kernel (their headers are installed there), each module's vermagic
# that kernel's; then removed, leaving nothing.  The package is the same
# architecture-independent one as on Debian 12 (tests/pkg/run.sh).
# Last line: "N passed, N failed".
set -u
# shellcheck source=tests/pkg/lib.sh
. "$(dirname "$0")/lib.sh"

v=0.0.3+trixie
deb=$(FIPC_DEB_VERSION=$v "$top/scripts/make-deb.sh" | tail -n 1)
[ -f "$deb" ] || { bad "make deb builds fipc-dkms $v"; finish; }
debdir=$(dirname "$deb")
log=$top/build/trixie-dkms.log
: >"$log"
in_trixie() {
	"$top/scripts/trixie-root.sh" --bind "$debdir" --run "$@" >>"$log" 2>&1
}
# Nothing of an earlier run.
in_trixie sh -c 'dpkg -r fipc-dkms || true'

check "dpkg -i fipc-dkms $v in trixie" in_trixie dpkg -i "$deb"
check "trixie's dkms knows fipc $v" in_trixie sh -c "dkms status fipc | grep -q '$v'"
for t in 6.12 mainline; do
	where=$("$top/scripts/ktarget.sh" "$t") || { bad "$t: headers"; continue; }
	kver=${where##*/linux-headers-}
	if in_trixie sh -c "dkms build -m fipc -v $v -k $kver && dkms install -m fipc -v $v -k $kver --force"; then
		ok "$t: dkms build + install for $kver"
	else
		bad "$t: dkms build + install for $kver (build/trixie-dkms.log)"
		tail -n 20 "$log" | sed 's/^/    /'
		continue
	fi
	for m in fipc xen-fipc-front xen-fipc-back; do
		vm=$("$top/scripts/trixie-root.sh" --run sh -c \
			"modinfo -F vermagic /lib/modules/$kver/updates/dkms/$m.ko* | cut -d' ' -f1" 2>>"$log")
		check "$t: $m for $kver (vermagic ${vm:-none})" [ "$vm" = "$kver" ]
	done
done
check "dpkg -r fipc-dkms in trixie" in_trixie dpkg -r fipc-dkms
check "removed: no sources, no dkms entry, no modules" in_trixie sh -c \
	'! ls -d /usr/src/fipc-* 2>/dev/null && [ -z "$(dkms status fipc)" ] &&
	 ! ls /lib/modules/*/updates/dkms/*fipc* 2>/dev/null'
finish
