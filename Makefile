# fipc top-level build.  See README.md for the two commands that do
# everything; the targets below are the stable building blocks.

TOP := $(CURDIR)
BUILD := $(TOP)/build
export FIPC_CACHE ?= /var/cache/fipc

CC ?= cc
USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
	-I$(TOP)/lib/fipc/include
# The portable ring core, lib/fipc/ring/ (the pollers are kernel only).
FIPC_SRCS := $(wildcard lib/fipc/ring/*.c)
FIPC_HDRS := $(wildcard lib/fipc/ring/*.h lib/fipc/include/fipc/*.h)
LIBFIPC := $(BUILD)/user/libfipc.a

.PHONY: all deps lib modules check checkpatch kunit bench-ring bench-scaling bench-steal testbed \
	testbed-smoke e2e e2e-trixie e2e-debug e2e-kasan demo bench-pvh test clean dom0-overlay deb \
	linux-patches check-linux-patches

# Extra options for the testbed runs of `e2e` and `demo`, e.g.
# TESTBED_ARGS="--timeout-scale 2" on a slow or loaded host.
TESTBED_ARGS ?=
# The demo's fio run time per job (seconds) and scenario options.
DEMO_RUNTIME ?= 5
DEMO_ARGS ?= -o FIO_RUNTIME=$(DEMO_RUNTIME)
# The demo's timed device: null_blk (default) or nvme, QEMU's emulated NVMe
# controller given to dom0 (a sparse image of DEMO_NVME_MIB MiB, removed
# after the run), e.g. `make demo DEMO_BACKING=nvme` or `./fipc demo --nvme`.
DEMO_BACKING ?= null_blk
DEMO_NVME_MIB ?= 1024
ifeq ($(DEMO_BACKING),nvme)
DEMO_BACKING_ARGS := --nvme $(DEMO_NVME_MIB) -o BACKING=nvme
else
DEMO_BACKING_ARGS := -o BACKING=$(DEMO_BACKING)
endif

all: deps lib modules

deps:
	@scripts/deps.sh

# The userspace build of the ring library.
lib: $(LIBFIPC)

$(BUILD)/user/%.o: lib/fipc/ring/%.c $(FIPC_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -c $< -o $@

$(LIBFIPC): $(patsubst lib/fipc/ring/%.c,$(BUILD)/user/%.o,$(FIPC_SRCS))
	ar rcs $@ $^

# Out-of-tree kernel modules against Debian's 6.1 headers, W=1, no warnings.
modules:
	@scripts/build-modules.sh

# The packages (build/deb/): fipc-dkms (the modules' sources under DKMS,
# rebuilt for every installed kernel), fipc-modules-<kernel> (the modules
# of `make modules`, prebuilt for that kernel) and fipc-xen-tools (the
# patched toolstack, diverting Debian's files); docs/packaging.md.
# FIPC_DIST=trixie makes them for Debian 13: fipc-modules for trixie's
# 6.12, fipc-xen-tools for Xen 4.20 (fipc-dkms is the same for both).
FIPC_DIST ?= bookworm
DEB_ENV_bookworm :=
DEB_ENV_trixie := FIPC_KTARGET=6.12 FIPC_XEN_SERIES=4.20
deb:
	@case "$(FIPC_DIST)" in bookworm|trixie) ;; \
	*) echo "make deb: FIPC_DIST is bookworm or trixie, not '$(FIPC_DIST)'" >&2; exit 2;; esac
	@scripts/make-deb.sh
	@$(DEB_ENV_$(FIPC_DIST)) scripts/make-deb-modules.sh
	@$(DEB_ENV_$(FIPC_DIST)) scripts/make-deb-xen-tools.sh

checkpatch:
	@scripts/checkpatch.sh

kunit:
	@tests/kunit/run.sh

# The library and both drivers as a patch series for Debian's
# linux-source-6.1 (build/linux-patches/), and its check: checkpatch,
# applies, Kconfig, in-tree build at W=1 (in make test).
linux-patches:
	@scripts/linux-patches.sh

check-linux-patches:
	@tests/linux-patches/check.sh

testbed:
	@tests/testbed/fipc-testbed build

# The patched toolstack (phy1: disks) for the testbed's dom0, see
# scripts/dom0-overlay.sh; every testbed run below boots with it.
dom0-overlay:
	@scripts/dom0-overlay.sh

testbed-smoke: modules dom0-overlay
	@tests/testbed/fipc-testbed run classic

# Every testbed scenario, one boot each, on both flavours: Debian 12
# (Xen 4.17, 6.1), then Debian 13 (e2e-trixie: Xen 4.20, 6.12); then
# once more each of E2E_VARIANTS (SCENARIO:KEY=VALUE, a boot each; the
# results directory is the scenario's, so the variant's replaces its
# default run's): fipc-hostile with its backend in a driver domain.
E2E_VARIANTS ?= fipc-hostile:BACKEND=dd
e2e: modules dom0-overlay
	@set -e; for s in $$(tests/testbed/fipc-testbed list | cut -d' ' -f1) $(E2E_VARIANTS); do \
		echo "=== e2e: $$s"; \
		tests/testbed/fipc-testbed run $${s%%:*} $$(case $$s in *:*) echo "-o $${s#*:}";; esac) $(TESTBED_ARGS); \
	done
	@$(MAKE) -s e2e-trixie

# Every scenario on the trixie flavour (tests/testbed/run-trixie.sh makes
# the 6.12 modules and the Xen 4.20 toolstack first), E2E_VARIANTS too.
e2e-trixie:
	@set -e; for s in $$(tests/testbed/fipc-testbed list | cut -d' ' -f1) $(E2E_VARIANTS); do \
		echo "=== e2e (trixie): $$s"; \
		tests/testbed/run-trixie.sh $${s%%:*} $$(case $$s in *:*) echo "-o $${s#*:}";; esac) $(TESTBED_ARGS); \
	done

# The hostile-peer scenarios on the testbed's debug kernel (lockdep, KFENCE,
# SLUB/page poisoning, debug objects; see scripts/e2e-debug.sh).  Not in
# `make test`: a cold debug kernel build takes about an hour on 2 cores.
e2e-debug: dom0-overlay
	@scripts/e2e-debug.sh

# fipc's drivers under KASAN, in PVH domUs (KASAN cannot run in a Xen PV
# domain on 6.1): a hostile guest against xen-fipc-back in a KASAN driver
# domain, and a hostile backend against xen-fipc-front in a KASAN guest
# (see scripts/e2e-kasan.sh).  Not in `make test`: the KASAN kernel is
# compiled from linux-source-6.1 (about an hour cold).
e2e-kasan: modules dom0-overlay
	@scripts/e2e-kasan.sh

# The main job: build, boot the emulated testbed, run the fio harness on
# every configuration, the noisy-neighbour and the dom0 responsiveness
# benchmarks, print the tables (labelled emulated).
demo: all dom0-overlay
	@echo "=== demo: fio harness on the emulated Xen testbed, $(DEMO_BACKING) (figures are emulated)"
	tests/testbed/fipc-testbed run bench $(DEMO_ARGS) $(DEMO_BACKING_ARGS) $(TESTBED_ARGS)
	@echo "=== demo: noisy neighbour (guest A saturates a slow disk; B and C read at QD 1)"
	tests/testbed/fipc-testbed run noisy $(TESTBED_ARGS)
	@echo "=== demo: dom0 responsiveness (dom0's wake-up latency while a guest bursts I/O)"
	tests/testbed/fipc-testbed run dom0-latency $(TESTBED_ARGS)
	@/usr/bin/python3 bench/fio/report.py $(BUILD)/testbed/results/bench \
		--noisy $(BUILD)/testbed/results/noisy \
		--dom0-latency $(BUILD)/testbed/results/dom0-latency --out $(BUILD)/bench --emulated
	@echo "=== demo: tables in build/bench/fio.md, data in build/bench/fio.json"

# The fio harness with PVH guests beside the PV ones (issue 14): phy and
# phy1-grant in a PVH guest too (memshare is for PV guests), on an emulated
# CPU with AMD-V and nested paging; per-I/O costs side by side
# (build/bench-pvh/fio.md, emulated).  Not part of `demo`: the PVH guests
# add about as much time again as the PV ones.
bench-pvh: all dom0-overlay
	tests/testbed/fipc-testbed run bench --cpu-model qemu64,+svm,+npt -o PVH=1 \
		$(DEMO_ARGS) $(DEMO_BACKING_ARGS) $(TESTBED_ARGS)
	@/usr/bin/python3 bench/fio/report.py $(BUILD)/testbed/results/bench \
		--out $(BUILD)/bench-pvh --emulated
	@echo "=== bench-pvh: tables in build/bench-pvh/fio.md, data in build/bench-pvh/fio.json"

# The poller scaling benchmark (issue 13): 1-8 channels on fixed pollers
# and auto-scaling (dom0's, then a 2-vCPU guest's), and the weights' share of a saturated poller (emulated;
# build/testbed/results/scaling/scaling.md and scaling.json).
bench-scaling: modules dom0-overlay
	tests/testbed/fipc-testbed run scaling $(TESTBED_ARGS)
	@cat $(BUILD)/testbed/results/scaling/scaling.md

# The stolen-time benchmark (issue 13): a busy guest on the physical CPU
# of dom0's one vCPU and its backend poller, with poll_steal_sleep on and
# off (emulated; build/testbed/results/steal/steal.md and steal.json).
bench-steal: modules dom0-overlay
	tests/testbed/fipc-testbed run steal $(TESTBED_ARGS)
	@cat $(BUILD)/testbed/results/steal/steal.md

test:
	@scripts/test-all.sh

clean:
	rm -rf $(BUILD)

# Each area adds its own targets (check-*, bench-*, e2e scenarios).
-include $(wildcard tests/*/rules.mk bench/*/rules.mk)

# `check`: fast host-only tests; areas add prerequisites via CHECK_DEPS.
check: checkpatch $(CHECK_DEPS)
