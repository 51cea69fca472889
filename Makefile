# SPDX-License-Identifier: GPL-2.0
#
# MetaRoCE: build the kernel module and the userspace parts, run the tests.
#
#   make                 module (against KDIR), userspace and the conformance
#                        suite (tests/conformance: mr-conform, its DUT agent)
#   make install         install both (module + depmod, provider + .driver);
#                        DESTDIR, INSTALL_MOD_PATH, PREFIX as below
#   make uninstall       remove exactly what make install put there
#   make test            every tier below; ends with "N passed, N failed"
#   make test-host       core unit/model tests, fuzz corpus replay, gates
#   make test-kunit      KUnit suites in the self-built test kernel (QEMU)
#   make test-e2e        end-to-end scenarios in two VMs (stock kernel)
#   make test-e2e-debug  the hostile-input scenarios on the test kernel
#   make test-e2e-bpo    lifecycle, perftest, rdma_cm on bookworm-backports'
#                        stock kernel (6.12)
#   make check           quality gates: W=1, sparse, checkpatch on kernel/
#   make fuzz            libFuzzer harnesses for FUZZ_SECONDS each
#   make demo            two VMs, ib_write_bw over the link, result shown
#   make bench           MetaRoCE vs rxe vs TCP under loss (BENCH_QUICK=1),
#                        the fabric's long variants, the scaling run
#   make bench-scaling   QPs and vCPUs over a multiqueue link (root)
#   make traceability    regenerate Documentation/metaroce/traceability.rst

# The kernel to build against: the running kernel's build tree (or its
# headers under /usr/src), else the newest installed Debian linux-headers
# of the generic amd64 flavour by version (not -cloud/-rt, and 6.1.0-57
# above 6.1.0-9).
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build \
	/usr/src/linux-headers-$(shell uname -r)) \
	$(shell ls -d /usr/src/linux-headers-*[0-9]-amd64 2>/dev/null | sort -V | tail -1))
# The release the module is built for (its vermagic): where it is
# installed and what depmod is run for.
KVER ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)

# Installation: DESTDIR stages everything (packaging: nothing outside it is
# written, depmod is left to the package); INSTALL_MOD_PATH prefixes the
# module tree as in kbuild; PREFIX is the userspace prefix (provider
# library, tools). depmod runs only for an install into the live system.
DESTDIR ?=
INSTALL_MOD_PATH ?=
INSTALL_MOD_DIR ?= updates
PREFIX ?= /usr/local
MODDIR = $(DESTDIR)$(INSTALL_MOD_PATH)/lib/modules/$(KVER)/$(INSTALL_MOD_DIR)
KSRC ?= /usr/src/linux-source-6.1
FUZZ_SECONDS ?= 30
RESULTS ?= $(CURDIR)/results

export KDIR KSRC RESULTS PREFIX DESTDIR

.PHONY: all modules userspace conformance install uninstall clean check \
	test test-host \
	test-kunit test-e2e fuzz demo bench bench-fabric bench-scaling soak traceability

all: modules userspace conformance

modules:
	@test -n "$(KDIR)" || { echo "no kernel headers: set KDIR or run scripts/install-deps.sh"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	@if [ -f userspace/Makefile ]; then $(MAKE) -C userspace; fi

# The conformance suite's tester and DUT agent (tests/conformance).
conformance:
	$(MAKE) -C tests/conformance

install: all
	@test -n "$(KVER)" || { echo "no kernel release in $(KDIR)"; exit 1; }
	install -d $(MODDIR)
	install -m 0644 kernel/metaroce.ko $(MODDIR)/
	$(if $(DESTDIR),,depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KVER))
	@if [ -f userspace/Makefile ]; then $(MAKE) -C userspace install; fi

uninstall:
	@test -n "$(KVER)" || { echo "no kernel release in $(KDIR)"; exit 1; }
	rm -f $(MODDIR)/metaroce.ko
	scripts/rmdir-staged.sh "$(DESTDIR)" $(INSTALL_MOD_PATH)/lib/modules/$(KVER)/$(INSTALL_MOD_DIR)
	$(if $(DESTDIR),,depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KVER))
	@if [ -f userspace/Makefile ]; then $(MAKE) -C userspace uninstall; fi

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C tests/host clean
	-@if [ -f tests/fuzz/Makefile ]; then $(MAKE) -C tests/fuzz clean; fi
	-@if [ -f userspace/Makefile ]; then $(MAKE) -C userspace clean; fi
	-$(MAKE) -C tests/conformance clean

check:
	@scripts/check-kernel.sh

test:
	@scripts/run-tests.sh host kunit e2e e2e-debug e2e-bpo

test-host:
	@scripts/run-tests.sh host

test-kunit:
	@scripts/run-tests.sh kunit

test-e2e:
	@scripts/run-tests.sh e2e

# tests/e2e's hostile-input scenarios in VMs booting the KUnit test kernel
# (KASAN, lockdep, kmemleak): tests/vm/e2e.sh with MR_E2E_KERNEL=test.
.PHONY: test-e2e-debug
test-e2e-debug:
	@scripts/run-tests.sh e2e-debug

# The same harness booting bookworm-backports' stock kernel (6.12),
# fetched from the Debian archive (tests/vm/e2e.sh, MR_E2E_KERNEL=backports).
.PHONY: test-e2e-bpo
test-e2e-bpo:
	@scripts/run-tests.sh e2e-bpo

fuzz:
	$(MAKE) -C tests/fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)

demo:
	@scripts/demo.sh

traceability:
	@python3 tests/conformance/traceability.py

# MetaRoCE vs rxe vs TCP in two VMs; BENCH_QUICK=1 for a few minutes, other
# BENCH_* variables in scripts/bench/bench.sh. Results: results/bench/<date>/;
# then the fabric's long variants and the scaling run (below).
bench:
	@scripts/bench/bench.sh; b=$$?; scripts/bench/fabric.sh; f=$$?; \
		BENCH_SCALING=1 scripts/bench/bench.sh; s=$$?; \
		[ $$b -eq 0 ] && [ $$f -eq 0 ] && [ $$s -eq 0 ]

# Only the scaling run: two vCPUs per VM over a multiqueue link, one
# QP on one vCPU against eight on two. Results:
# results/bench/<date>-scaling/.
bench-scaling:
	@BENCH_SCALING=1 scripts/bench/bench.sh

# Only the multipath fabric's long variants (scripts/bench/fabric.sh):
# spraying, black holes, a slow spine, incast. Results:
# results/bench/fabric-<date>/.
bench-fabric:
	@scripts/bench/fabric.sh

# The mixed-fault soak (tests/e2e/metaroce-soak.sh) and the hostile-peer
# test (tests/e2e/metaroce-hostile.sh), each for SOAK_SECONDS (default 600;
# make test-e2e runs them for 60 and 40).
soak:
	@s=$(or $(SOAK_SECONDS),600); MR_GUEST_ENV="SOAK_SECONDS HOSTILE_SECONDS $${MR_GUEST_ENV:-}" \
		SOAK_SECONDS=$$s HOSTILE_SECONDS=$$s E2E_TIMEOUT_ADD=$$s \
		E2E_FILTER='^metaroce-(soak|hostile)$$' scripts/run-tests.sh e2e

# Only the random-verbs scenario (tests/e2e/metaroce-verbfuzz.sh), for
# SOAK_SECONDS (default 600) of fuzzing on each VM; results in
# $(RESULTS)/soak-verbfuzz. MR_E2E_KERNEL=test runs it on the test kernel.
.PHONY: soak-verbfuzz
soak-verbfuzz:
	@s=$(or $(SOAK_SECONDS),600); MR_GUEST_ENV="VERBFUZZ_SECONDS $${MR_GUEST_ENV:-}" \
		VERBFUZZ_SECONDS=$$s E2E_TIMEOUT_ADD=$$s E2E_FILTER='^metaroce-verbfuzz$$' \
		RESULTS=$(RESULTS)/soak-verbfuzz scripts/run-tests.sh e2e
