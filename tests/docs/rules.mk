# docs/sysfs-abi.md against the code: every sysfs file (device
# attributes, module parameters) and debugfs file the fipc modules
# create, documented, and nothing documented that they do not create.
# The xenstore keys of fipcblk.h and the admin guide's parameter table
# against the code.
.PHONY: check-docs
check-docs:
	@tests/docs/check-sysfs-abi.sh
	@tests/docs/check-xenstore-keys.sh

CHECK_DEPS += check-docs
