# Thin wrapper over CMake/CTest. `make bench-docker` and `make test` work on a fresh Debian
# machine as root (scripts/bootstrap.sh installs what is missing).
# SANITIZE=1: a separate build under AddressSanitizer and UndefinedBehaviorSanitizer, by clang,
# which also builds the libFuzzer targets into it (`make fuzz FUZZ_BUILD_DIR=build-sanitize` then
# only runs them: CI builds the code twice, not three times).
SANITIZE ?= 0
BOOTSTRAP := scripts/bootstrap.sh
TEST_BOOTSTRAP := scripts/bootstrap.sh test
ifeq ($(SANITIZE),1)
BUILD_DIR ?= build-sanitize
# -O0 -g1: line tables are enough for the sanitizers' reports, and clang compiles the sanitized
# code at -O0 in half the time of -O1 (one batch of the core: 25 s against 49 s here); the tests'
# time goes to waiting for benchmarks, not to noisefloor's own code.
CMAKE_EXTRA := -DNF_SANITIZE=ON -DNF_OPT=-O0
CMAKE_ENV := CXX=clang++
BOOTSTRAP := scripts/bootstrap.sh fuzz
TEST_BOOTSTRAP := scripts/bootstrap.sh test fuzz
endif
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
# UNITY=OFF: one file per compile (quicker rebuilds after an edit); ON: batches (quicker from scratch).
UNITY ?= ON
# -g1: line tables (CMakeLists.txt, NF_DEBUG_INFO); DEBUG_INFO=-g for the full debug information.
DEBUG_INFO ?= -g1
PREFIX ?= /usr/local
# Ninja where it is installed (scripts/bootstrap.sh installs it): it compiles a target's files while
# the libraries it links are still being built, where Make waits for them (the programs `make test`
# builds first: 81.7 s against 89.0 s from scratch on 2 CPUs). Decided when the build folder is
# configured, after bootstrap.sh ran; GENERATOR= for CMake's default.
GENERATOR ?= $$(command -v ninja >/dev/null && echo -G Ninja)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
NOISEFLOOR := $(BUILD_DIR)/noisefloor
MAKEFLAGS += --no-print-directory

.PHONY: all build noisefloor configure test unit install bench bench-docker cv deps engine engines clean format fuzz perf

all: build

deps:
	@bash scripts/bootstrap.sh

$(BUILD_DIR)/CMakeCache.txt:
	@bash $(BOOTSTRAP)
	$(CMAKE_ENV) cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) -DNF_UNITY=$(UNITY) -DNF_DEBUG_INFO=$(DEBUG_INFO) $(CMAKE_EXTRA)

configure: $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The binary alone (what the demo and `make bench` need; the tests build in `make test`).
noisefloor: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target noisefloor

# All tests through CTest: unit, I/O (real processes, the real Docker engine) and end to end, two at
# a time (TEST_JOBS): a test that measures the room beside at most one light test, two that only
# load it side by side, on two Docker engines (a test that starts containers gets one to itself:
# tests/resources.json, tests/integration/tests.cmake). TEST_JOBS=1: one at a time.
# CTEST_ARGS: more ctest options (e.g. -E NAME to leave tests out, -R NAME for one).
TEST_JOBS ?= 2
CTEST_ARGS ?=
# The test programs (unit, io, the fuzz replay) are built by the first test CTest starts, beside the
# tests that measure the room (tests/tests.cmake: build_test_programs).
test: configure engines
	cmake --build $(BUILD_DIR) -j $(JOBS) --target nf_programs
	@bash $(TEST_BOOTSTRAP)
	cd $(BUILD_DIR) && ctest --output-on-failure --timeout 1200 -j $(TEST_JOBS) \
	  --resource-spec-file $(CURDIR)/tests/resources.json $(CTEST_ARGS)

unit: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -L unit

install: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target noisefloor manpage
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# The demo on the host: idle and noisy (spinners on every CPU).
bench: noisefloor
	$(NOISEFLOOR) run experiments/laptop.yaml

# The whole demo: idle, noisy and the pinned container (starts an engine when none answers).
# Publishing is never automatic: the last line is the command that would send the run to a store.
bench-docker: noisefloor engine
	$(NOISEFLOOR) run experiments/laptop-trust.yaml
	@echo "to publish this run to a store (docs/store.md): NOISEFLOOR_KEY=<key> $(NOISEFLOOR) publish results/laptop-trust --to <store URL>"

engine:
	@bash scripts/dockerd.sh

# The tests' two engines: the default one and a second on its own socket and state.
engines: engine
	@DOCKER_HOST=unix:///run/nf-engines/second.sock NF_DOCKERD_LOG=/var/log/noisefloor-dockerd-second.log \
	  bash scripts/dockerd.sh

# The table again, from the saved files alone.
EXPERIMENT ?= $(if $(wildcard results/laptop-trust/latest),laptop-trust,laptop)
cv: noisefloor
	$(NOISEFLOOR) cv results/$(EXPERIMENT)/latest
	$(NOISEFLOOR) cv --format summary results/$(EXPERIMENT)/latest

# noisefloor's performance as one table (scripts/perf.sh: P1-P11 against their peers, about twenty
# minutes; PERF_PAIRS=3). Never part of `make test`: no timing is ever asserted.
perf: build engine
	@bash scripts/perf.sh $(PERF)

# Each libFuzzer target for FUZZ_SECONDS (clang, ASan+UBSan, build-fuzz/ or FUZZ_BUILD_DIR, e.g.
# the sanitized build): tests/fuzz/README.md.
FUZZ_SECONDS ?= 60
FUZZ_BUILD_DIR ?= build-fuzz
fuzz:
	@FUZZ_BUILD_DIR=$(abspath $(FUZZ_BUILD_DIR)) bash scripts/fuzz.sh $(FUZZ_SECONDS)

# Formats every C++ file of harness/ and tests/ (the `format` test checks that they are).
format:
	find harness tests \( -path tests/data -o -path tests/fuzz/corpus \) -prune -o \
	  \( -name '*.cpp' -o -name '*.hpp' \) -print | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
