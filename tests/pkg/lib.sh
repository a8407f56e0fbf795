# shellcheck shell=bash
# The counters and verdicts the package tests share (run.sh,
# trixie-dkms.sh, xen-tools.sh), sourced after "set -u": ok and bad
# count a result, check runs a command and counts its exit status,
# finish prints the last line, "N passed, N failed", and exits 0 only
# with no failure.  A test with something to undo at the end defines
# its own finish after sourcing this.
# shellcheck disable=SC2034 # top is the sourcing test's
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pass=0 fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; exit $?; }
