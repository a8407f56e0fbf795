# shellcheck shell=bash
# Suites run by scripts/test-all.sh after checkpatch and modules, cheap
# host tests first, then KUnit, then the emulated Xen testbed.
suites+=(
	"pkg-dkms|tests/pkg/run.sh"
	"sysfs-abi-doc|tests/docs/check-sysfs-abi.sh"
	"user-unit|make -s check-user-unit"
	"user-stress|make -s check-user-stress"
	"user-tsan|make -s check-user-tsan"
	"fuzz|make -s check-fuzz"
	"bench-ring-selftest|make -s check-bench-ring"
	"fio-report|python3 -m pytest -q tests/bench"
	"xl-parser|make -s check-xl"
	"xl-patch-drift|tests/xl/patch-drift.sh"
	"pkg-xen-tools|tests/pkg/xen-tools.sh"
	"kunit|tests/kunit/run.sh"
	"linux-patches|tests/linux-patches/check.sh"
	"testbed-smoke|make -s testbed-smoke"
	"e2e-fipc-loopback|tests/testbed/fipc-testbed run fipc-loopback"
	"e2e-fipc-basic|tests/testbed/fipc-testbed run fipc-basic"
	"e2e-phy1-xl|tests/testbed/fipc-testbed run phy1-xl"
	"e2e-phy1-driver-domain|tests/testbed/fipc-testbed run phy1-driver-domain"
	"e2e-fipc-destroy|tests/testbed/fipc-testbed run fipc-destroy"
	# The PVH guest's save/restore only in make e2e (about 1 min): its
	# migration takes the same resume path; see the scenario's run.sh.
	"e2e-fipc-migrate|tests/testbed/fipc-testbed run fipc-migrate -o PVH_SAVE=0"
	# The PVH guest's phase only in make e2e: in the clean-clone test run
	# of 2026-11-26 its guest crashed once (a recursive page fault on the
	# entry stack after the balloon and page-cache steps; three earlier
	# runs passed), not understood yet (issue 14).
	"e2e-fipc-memshare|tests/testbed/fipc-testbed run fipc-memshare -o PVH=0"
	"e2e-fipc-hostile|tests/testbed/fipc-testbed run fipc-hostile"
	"e2e-fipc-hostile-backend|tests/testbed/fipc-testbed run fipc-hostile-backend"
)
