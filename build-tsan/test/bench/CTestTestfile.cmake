# CMake generated Testfile for 
# Source directory: /work/main/test/bench
# Build directory: /work/main/build-tsan/test/bench
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test([=[partition_bench_smoke]=] "/work/main/build-tsan/test/bench/partition_bench" "--benchmark_filter=/3/" "--benchmark_min_time=0.001")
set_tests_properties([=[partition_bench_smoke]=] PROPERTIES  _BACKTRACE_TRIPLES "/work/main/test/bench/CMakeLists.txt;8;add_test;/work/main/test/bench/CMakeLists.txt;0;")
add_test([=[bench_table_smoke]=] "python3" "/work/main/test/bench/run_bench.py" "/work/main/build-tsan" "--smoke")
set_tests_properties([=[bench_table_smoke]=] PROPERTIES  TIMEOUT "240" _BACKTRACE_TRIPLES "/work/main/test/bench/CMakeLists.txt;26;add_test;/work/main/test/bench/CMakeLists.txt;0;")
set_directory_properties(PROPERTIES LABELS "bench")
