# docs/sysfs-abi.md against the code: every sysfs file (device
# attributes, module parameters) and debugfs file the fipc modules
# create, documented, and nothing documented that they do not create.
.PHONY: check-docs
check-docs:
	@tests/docs/check-sysfs-abi.sh

CHECK_DEPS += check-docs
