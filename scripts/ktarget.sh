#!/bin/sh
# The kernels fipc builds for, by target name:
#   6.1       Debian 12's kernel (the host's linux-headers-amd64)
#   6.12      Debian 13's kernel (trixie's linux-headers-amd64)
#   mainline  trixie-backports' kernel (7.3 now)
# The trixie targets build in the trixie userland (scripts/trixie-root.sh:
# their kbuild calls gcc-14 and needs trixie's glibc).
#
# usage: ktarget.sh TARGET   prints "KDIR" (host) or "trixie KDIR" (the
#                            header tree's path inside the trixie userland)
#        ktarget.sh --list   prints the target names
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-} in
--list)
	echo "6.1 6.12 mainline"
	;;
6.1)
	"$top/scripts/kdir.sh"
	;;
6.12 | mainline)
	root=$("$top/scripts/trixie-root.sh")
	if [ "$1" = 6.12 ]; then
		kdir=$(cd "$root/usr/src" && ls -d linux-headers-6.12.*-amd64)
	else
		# The newest series trixie-backports installed, not 6.12.
		kdir=$(cd "$root/usr/src" && ls -d linux-headers-*-amd64 |
			grep -v '^linux-headers-6\.12\.')
	fi
	kdir=$(echo "$kdir" | sort -V | tail -n 1)
	if [ -z "$kdir" ] || [ ! -d "$root/usr/src/$kdir" ]; then
		echo "ktarget: no $1 headers in $root" >&2
		exit 1
	fi
	echo "trixie /usr/src/$kdir"
	;;
*)
	echo "ktarget: unknown target '${1:-}' (targets: 6.1 6.12 mainline)" >&2
	exit 2
	;;
esac
