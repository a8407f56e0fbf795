#!/bin/bash
# Run a testbed scenario on the trixie flavour (Xen 4.20, Debian 13's
# 6.12 dom0 and guests), as the test command does:
#
#   tests/testbed/run-trixie.sh SCENARIO [fipc-testbed run options]
#
# Makes what the flavour boots with first: our modules for 6.12
# (build/kmod-6.12; the kbuild suite made them at W=1 already) and our
# toolstack for Xen 4.20 (FIPC_XEN_SERIES=4.20 scripts/dom0-overlay.sh:
# build/dom0-packages-4.20/, cached by its inputs).  The toolstack is built
# from Xen 4.20's source: where neither Debian's source package nor a
# release tarball in $FIPC_CACHE/xen-src/ can be had (tools/build-xl-phy1.sh
# exits 3), the run cannot happen and is reported skipped, with the reason.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 SCENARIO [options]" >&2; exit 2; }

if [ ! -f "$top/build/kmod-6.12/fipc/fipc.ko" ]; then
	FIPC_KTARGET=6.12 "$top/scripts/build-modules.sh" ||
		{ echo "run-trixie: the modules for 6.12 did not build"; exit 1; }
fi
FIPC_XEN_SERIES=4.20 "$top/scripts/dom0-overlay.sh"
rc=$?
if [ $rc = 3 ]; then
	echo "run-trixie: $1 skipped: no source of Xen 4.20 to build our toolstack from (see above)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 77
fi
[ $rc = 0 ] || { echo "run-trixie: the Xen 4.20 toolstack package did not build (exit $rc)"; exit 1; }
exec "$top/tests/testbed/fipc-testbed" --flavour trixie run "$@"
