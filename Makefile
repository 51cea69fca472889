# SPDX-License-Identifier: GPL-2.0
#
# MetaRoCE: build the kernel module and the userspace parts, run the tests.
#
#   make                 module (against KDIR), userspace and the conformance
#                        suite (tests/conformance: mr-conform, its DUT agent)
#   make install         install both (module + depmod, provider + .driver)
#   make test            every tier below; ends with "N passed, N failed"
#   make test-host       core unit/model tests, fuzz corpus replay, gates
#   make test-kunit      KUnit suites in the self-built test kernel (QEMU)
#   make test-e2e        end-to-end scenarios in two VMs (stock kernel)
#   make test-e2e-debug  the hostile-input scenarios on the test kernel
#   make check           quality gates: W=1, sparse, checkpatch on kernel/
#   make fuzz            libFuzzer harnesses for FUZZ_SECONDS each
#   make demo            two VMs, ib_write_bw over the link, result shown
#   make bench           MetaRoCE vs rxe vs TCP under loss (BENCH_QUICK=1)
#   make traceability    regenerate Documentation/metaroce/traceability.rst

# The kernel to build against: the running kernel's build tree if there is
# one, else the newest installed Debian linux-headers for amd64.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64))))
KSRC ?= /usr/src/linux-source-6.1
FUZZ_SECONDS ?= 30
RESULTS ?= $(CURDIR)/results

export KDIR KSRC RESULTS

.PHONY: all modules userspace conformance install clean check test test-host \
	test-kunit test-e2e fuzz demo bench soak traceability

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
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $(notdir $(patsubst %/build,%,$(KDIR:/=)))
	@if [ -f userspace/Makefile ]; then $(MAKE) -C userspace install; fi

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C tests/host clean
	-@if [ -f tests/fuzz/Makefile ]; then $(MAKE) -C tests/fuzz clean; fi
	-@if [ -f userspace/Makefile ]; then $(MAKE) -C userspace clean; fi
	-$(MAKE) -C tests/conformance clean

check:
	@scripts/check-kernel.sh

test:
	@scripts/run-tests.sh host kunit e2e e2e-debug

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

fuzz:
	$(MAKE) -C tests/fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)

demo:
	@scripts/demo.sh

traceability:
	@python3 tests/conformance/traceability.py

# MetaRoCE vs rxe vs TCP in two VMs; BENCH_QUICK=1 for a few minutes, other
# BENCH_* variables in scripts/bench/bench.sh. Results: results/bench/<date>/.
bench:
	@scripts/bench/bench.sh

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
