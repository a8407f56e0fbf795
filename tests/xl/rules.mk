# xl phy1 parser and hotplug-script tests (host only; builds the patched
# libxl/libxlutil once, cached in $(FIPC_CACHE)/xl-phy1).
.PHONY: check-xl
check-xl:
	@tests/xl/run-tests.sh

CHECK_DEPS += check-xl
