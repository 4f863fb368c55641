# fedhpa — top-level entry points. CMake + Ninja do the real work underneath.
#   make deps    install the Debian packages the project needs (when missing)
#   make         build everything (build/)
#   make test    every test once per kind, phase by phase (test/run_phases.sh), with a table of their minutes
#   make check   the ASan+UBSan tree (clang): unit and component tests, then a short pass of every fuzz harness
#   make fuzz    the libFuzzer harnesses (test/fuzz), FUZZ_SECONDS each, under ASan+UBSan
#   make tsan    the ThreadSanitizer build of the unit tests (no e2e, no bench)
#   make bench   benchmarks (never part of make test)
#   make run     the local federation (three simulated members) — see README

BUILD_DIR    ?= build
ASAN_DIR     ?= build-asan
TSAN_DIR     ?= build-tsan
FUZZ_SECONDS ?= 60
# make check's pass: enough for each harness to replay its corpus and mutate a little.
CHECK_FUZZ_SECONDS ?= 4
BUILD_TYPE   ?= RelWithDebInfo
JOBS         ?= $(shell nproc)
CTEST_FLAGS  ?= --output-on-failure -j $(JOBS)
# The process-level tests (real fedhpa processes, kubectl, etcd; benchmark smoke runs) run once,
# in the release tree; the unit and component tests run in every tree.
PROCESS_TESTS := e2e|bench

DEB_PACKAGES := g++ make cmake ninja-build pkg-config \
	libcpprest-dev libssl-dev libboost-dev libboost-log-dev libboost-program-options-dev \
	libgtest-dev libgmock-dev libbenchmark-dev libyaml-cpp-dev libyaml-dev libsqlite3-dev nlohmann-json3-dev libjemalloc-dev \
	librsvg2-bin python3-kubernetes wrk curl openssl tzdata etcd-server etcd-client haproxy prometheus \
	clang libclang-rt-14-dev ccache mold

.PHONY: all deps build asan-build tsan-build test check tsan fuzz fuzz-build bench run clean

all: build

# dpkg-query tells which packages are missing; apt-get runs only when something is.
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	    echo "make deps: installing $$missing"; \
	    SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	    $$SUDO apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD_DIR)/build.ninja: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The sanitizer tree is clang's: ASan+UBSan, and libFuzzer's coverage instrumentation so that the
# same tree links the fuzz harnesses (test/fuzz).
$(ASAN_DIR)/build.ninja: deps
	cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ -DFEDHPA_SANITIZE=ON

asan-build: deps $(ASAN_DIR)/build.ninja
	cmake --build $(ASAN_DIR) -j $(JOBS)

# The unit and component tests under ASan+UBSan, then a short pass of every fuzz harness.
check: asan-build
	cd $(ASAN_DIR) && LSAN_OPTIONS=suppressions=$(CURDIR)/test/sanitizers/lsan.supp ctest $(CTEST_FLAGS) -LE '$(PROCESS_TESTS)'
	test/fuzz/run_fuzzers.sh $(ASAN_DIR) $(CHECK_FUZZ_SECONDS)

# The libFuzzer harnesses, FUZZ_SECONDS each; a finding fails.
fuzz-build: asan-build

fuzz: fuzz-build
	test/fuzz/run_fuzzers.sh $(ASAN_DIR) $(FUZZ_SECONDS)

$(TSAN_DIR)/build.ninja: deps
	cmake -S . -B $(TSAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFEDHPA_TSAN=ON

tsan-build: deps $(TSAN_DIR)/build.ninja
	cmake --build $(TSAN_DIR) -j $(JOBS)

# The unit and component tests under ThreadSanitizer. The suppressions name third-party code only.
TSAN_OPTIONS_RUN := suppressions=$(CURDIR)/test/sanitizers/tsan.supp halt_on_error=1 second_deadlock_stack=1
tsan: tsan-build
	cd $(TSAN_DIR) && TSAN_OPTIONS="$(TSAN_OPTIONS_RUN)" ctest $(CTEST_FLAGS) -LE '$(PROCESS_TESTS)'

# Every test, each kind once: the ASan+UBSan tree's unit and component tests and fuzz pass, the
# TSan tree's, then the release tree's process-level tests. test/run_phases.sh times each phase
# and ends on a table of them and the last ctest's summary line.
test: deps
	test/run_phases.sh \
	  "ASan+UBSan build"=asan-build "ASan+UBSan tests"=check-tests "fuzz pass"=check-fuzz \
	  "TSan build"=tsan-build "TSan tests"=tsan-tests \
	  "release build"=build "release e2e+bench tests"=process-tests

.PHONY: check-tests check-fuzz tsan-tests process-tests
check-tests:
	cd $(ASAN_DIR) && LSAN_OPTIONS=suppressions=$(CURDIR)/test/sanitizers/lsan.supp ctest $(CTEST_FLAGS) -LE '$(PROCESS_TESTS)'
check-fuzz:
	test/fuzz/run_fuzzers.sh $(ASAN_DIR) $(CHECK_FUZZ_SECONDS)
tsan-tests:
	cd $(TSAN_DIR) && TSAN_OPTIONS="$(TSAN_OPTIONS_RUN)" ctest $(CTEST_FLAGS) -LE '$(PROCESS_TESTS)'
process-tests:
	cd $(BUILD_DIR) && ctest $(CTEST_FLAGS) -L '$(PROCESS_TESTS)'

# One table: partition cost, demand tracking (simulate), convergence, reaction, apiserver, memory;
# each figure next to a reference measured in the same run. Takes several minutes.
bench: build
	python3 test/bench/run_bench.py $(BUILD_DIR)

# The local federation: apiserver + three simulated members + the controller, and a kubeconfig
# at _output/kubeconfig. Runs in the foreground; Ctrl-C stops it.
RUN_FLAGS ?= --hpa-sync-period 5s --hpa-scale-forbidden-window 30s
run: build
	$(BUILD_DIR)/fedhpa up --data-dir _output/data --kubeconfig-out _output/kubeconfig $(RUN_FLAGS)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR)
