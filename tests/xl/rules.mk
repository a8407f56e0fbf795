# xl phy1 parser and hotplug-script tests (host only; builds the patched
# libxl/libxlutil once, cached in $(FIPC_CACHE)/xl-phy1).
.PHONY: check-xl
check-xl:
	@tests/xl/run-tests.sh

# The per-series fix-ups of the toolstack patch stay small, change only
# what tests/xl/patch-drift.sh allows, and every series' patches apply.
.PHONY: check-xl-drift
check-xl-drift:
	@tests/xl/patch-drift.sh

CHECK_DEPS += check-xl check-xl-drift

# The same for Xen 4.20 (Debian 13), built in the trixie chroot.  Without a
# Xen 4.20 source the script says "skipped: ..." and exits 77; make has no
# skip, so that is success here (its "0 passed, 0 failed, 1 skipped" line
# tells scripts/test-all.sh).
.PHONY: check-xl-4.20
check-xl-4.20:
	@FIPC_XEN_SERIES=4.20 tests/xl/run-tests.sh; rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]
