#!/bin/sh
# Print the build directory of Debian's linux-headers-amd64 kernel, the
# kernel our modules target (not the running one: this may be a container).
set -eu
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
	sed -n 's/.*\(linux-headers-[0-9][^ ,]*-amd64\).*/\1/p')
if [ -z "$dep" ] || [ ! -d "/usr/src/$dep" ]; then
	echo "kdir: linux-headers-amd64 is not installed (run scripts/deps.sh)" >&2
	exit 1
fi
echo "/usr/src/$dep"
