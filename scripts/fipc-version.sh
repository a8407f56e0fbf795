#!/bin/bash
# The version of this tree, for packages and module builds:
#   0.<commits on HEAD>+g<8-hex hash>   (a later commit sorts higher)
# with +dirty when PATH... (default: the whole tree) has uncommitted
# changes, and 0.0+nogit outside git.  FIPC_DEB_VERSION overrides it.
#   scripts/fipc-version.sh lib linux xen packaging
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${FIPC_DEB_VERSION:-}" ]; then
	version=$FIPC_DEB_VERSION
elif git -C "$top" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	version=0.$(git -C "$top" rev-list --count HEAD)+g$(git -C "$top" rev-parse --short=8 HEAD)
	git -C "$top" diff --quiet HEAD -- "${@:-.}" 2>/dev/null || version=$version+dirty
else
	version=0.0+nogit
fi
case $version in
[0-9]*) ;;
*) echo "fipc-version: version '$version' must start with a digit" >&2; exit 1 ;;
esac
echo "$version"
