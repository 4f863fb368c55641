# fedhpa — top-level entry points. CMake + Ninja do the real work underneath.
#   make deps    install the Debian packages the project needs (when missing)
#   make         build everything (build/)
#   make test    the ASan+UBSan tests, the TSan tests, then every test of the main build
#   make check   the ASan+UBSan build of the tests, then a short pass of every fuzz harness
#   make fuzz    the libFuzzer harnesses (test/fuzz), FUZZ_SECONDS each, under ASan+UBSan
#   make tsan    the ThreadSanitizer build of the unit tests (no e2e, no bench)
#   make bench   benchmarks (never part of make test)
#   make run     the local federation (three simulated members) — see README

BUILD_DIR    ?= build
ASAN_DIR     ?= build-asan
TSAN_DIR     ?= build-tsan
FUZZ_DIR     ?= build-fuzz
FUZZ_SECONDS ?= 60
# make check's pass: enough for each harness to replay its corpus and mutate a little.
CHECK_FUZZ_SECONDS ?= 4
BUILD_TYPE   ?= RelWithDebInfo
JOBS         ?= $(shell nproc)
CTEST_FLAGS  ?= --output-on-failure -j $(JOBS)

DEB_PACKAGES := g++ make cmake ninja-build pkg-config \
	libcpprest-dev libssl-dev libboost-dev libboost-log-dev libboost-program-options-dev \
	libgtest-dev libgmock-dev libbenchmark-dev libyaml-cpp-dev libyaml-dev libsqlite3-dev nlohmann-json3-dev libjemalloc-dev \
	librsvg2-bin python3-kubernetes wrk curl openssl tzdata etcd-server etcd-client haproxy \
	clang libclang-rt-14-dev

.PHONY: all deps build test check tsan fuzz fuzz-build bench run clean

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

$(ASAN_DIR)/build.ninja: deps
	cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFEDHPA_SANITIZE=ON

check: deps $(ASAN_DIR)/build.ninja
	cmake --build $(ASAN_DIR) -j $(JOBS)
	cd $(ASAN_DIR) && LSAN_OPTIONS=suppressions=$(CURDIR)/test/sanitizers/lsan.supp ctest $(CTEST_FLAGS)
	$(MAKE) fuzz FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS)

# The fuzz tree is clang's (libFuzzer): the harnesses and only the libraries they link, built with
# -fsanitize=fuzzer-no-link,address,undefined. Each harness runs FUZZ_SECONDS; a finding fails.
$(FUZZ_DIR)/build.ninja: deps
	cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ -DFEDHPA_FUZZ=ON

fuzz-build: deps $(FUZZ_DIR)/build.ninja
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzzers

fuzz: fuzz-build
	test/fuzz/run_fuzzers.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

$(TSAN_DIR)/build.ninja: deps
	cmake -S . -B $(TSAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFEDHPA_TSAN=ON

# The unit and component tests under ThreadSanitizer; the e2e scripts and benchmark smoke runs
# (labels e2e, bench) are left out: they drive whole processes for minutes. The suppressions
# name third-party code only.
TSAN_OPTIONS_RUN := suppressions=$(CURDIR)/test/sanitizers/tsan.supp halt_on_error=1 second_deadlock_stack=1
tsan: deps $(TSAN_DIR)/build.ninja
	cmake --build $(TSAN_DIR) -j $(JOBS)
	cd $(TSAN_DIR) && TSAN_OPTIONS="$(TSAN_OPTIONS_RUN)" ctest $(CTEST_FLAGS) -LE 'e2e|bench'

# The sanitizer runs go first so that the last line printed is the main build's ctest summary.
# The TSan run of its 563 tests took 2.5 minutes at -j2 on a 2-core machine (its build is longer).
test: check tsan build
	cd $(BUILD_DIR) && ctest $(CTEST_FLAGS)

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
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(FUZZ_DIR)
