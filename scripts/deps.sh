#!/bin/sh
# Install the Debian packages every part of the project lists in an
# apt-packages.txt file.  Idempotent: apt runs only if something is missing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
pkgs=$(find "$top" -name apt-packages.txt -not -path '*/build/*' \
	-exec cat {} + | sed 's/#.*//' | tr -s ' \t' '\n' | sort -u)
missing=""
for p in $pkgs; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "deps: all $(echo "$pkgs" | wc -w) packages present"
	exit 0
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt="apt-get -q -o DPkg::Lock::Timeout=900"
$apt update
# shellcheck disable=SC2086
$apt install -y --no-install-recommends $missing
