# xl phy1 parser and hotplug-script tests (host only; builds the patched
# libxl/libxlutil once, cached in $(FIPC_CACHE)/xl-phy1).
.PHONY: check-xl
check-xl:
	@tests/xl/run-tests.sh

# The Debian and upstream toolstack patches differ only as documented.
.PHONY: check-xl-drift
check-xl-drift:
	@tests/xl/patch-drift.sh

CHECK_DEPS += check-xl check-xl-drift
