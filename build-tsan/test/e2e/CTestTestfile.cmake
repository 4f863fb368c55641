# CMake generated Testfile for 
# Source directory: /work/main/test/e2e
# Build directory: /work/main/build-tsan/test/e2e
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test([=[e2e_apiserver_kubectl]=] "bash" "/work/main/test/e2e/apiserver_kubectl.sh" "/work/main/build-tsan/fedhpa")
set_tests_properties([=[e2e_apiserver_kubectl]=] PROPERTIES  TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/test/e2e/CMakeLists.txt;4;add_test;/work/main/test/e2e/CMakeLists.txt;0;")
add_test([=[e2e_apiserver_python_client]=] "/usr/bin/python3" "/work/main/test/e2e/apiserver_python_client.py" "/work/main/build-tsan/fedhpa")
set_tests_properties([=[e2e_apiserver_python_client]=] PROPERTIES  TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/test/e2e/CMakeLists.txt;5;add_test;/work/main/test/e2e/CMakeLists.txt;0;")
add_test([=[e2e_apiserver_restart]=] "bash" "/work/main/test/e2e/apiserver_restart.sh" "/work/main/build-tsan/fedhpa")
set_tests_properties([=[e2e_apiserver_restart]=] PROPERTIES  TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/test/e2e/CMakeLists.txt;6;add_test;/work/main/test/e2e/CMakeLists.txt;0;")
add_test([=[e2e_member_sim_kubectl]=] "bash" "/work/main/test/e2e/member_sim_kubectl.sh" "/work/main/build-tsan/fedhpa")
set_tests_properties([=[e2e_member_sim_kubectl]=] PROPERTIES  TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/test/e2e/CMakeLists.txt;8;add_test;/work/main/test/e2e/CMakeLists.txt;0;")
add_test([=[e2e_join_kubectl]=] "bash" "/work/main/test/e2e/join_kubectl.sh" "/work/main/build-tsan/fedhpa")
set_tests_properties([=[e2e_join_kubectl]=] PROPERTIES  TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/test/e2e/CMakeLists.txt;10;add_test;/work/main/test/e2e/CMakeLists.txt;0;")
add_test([=[e2e_up_walkthrough]=] "bash" "/work/main/test/e2e/up_walkthrough.sh" "/work/main/build-tsan/fedhpa")
set_tests_properties([=[e2e_up_walkthrough]=] PROPERTIES  TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/test/e2e/CMakeLists.txt;12;add_test;/work/main/test/e2e/CMakeLists.txt;0;")
add_test([=[e2e_controller_failover]=] "bash" "/work/main/test/e2e/controller_failover.sh" "/work/main/build-tsan/fedhpa")
set_tests_properties([=[e2e_controller_failover]=] PROPERTIES  TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/test/e2e/CMakeLists.txt;14;add_test;/work/main/test/e2e/CMakeLists.txt;0;")
add_test([=[e2e_member_outage]=] "bash" "/work/main/test/e2e/member_outage.sh" "/work/main/build-tsan/fedhpa")
set_tests_properties([=[e2e_member_outage]=] PROPERTIES  TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/test/e2e/CMakeLists.txt;16;add_test;/work/main/test/e2e/CMakeLists.txt;0;")
add_test([=[e2e_controller_crash]=] "bash" "/work/main/test/e2e/controller_crash.sh" "/work/main/build-tsan/fedhpa")
set_tests_properties([=[e2e_controller_crash]=] PROPERTIES  TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/test/e2e/CMakeLists.txt;18;add_test;/work/main/test/e2e/CMakeLists.txt;0;")
add_test([=[e2e_frozen_member]=] "/usr/bin/python3" "/work/main/test/e2e/frozen_member.py" "/work/main/build-tsan/fedhpa")
set_tests_properties([=[e2e_frozen_member]=] PROPERTIES  TIMEOUT "400" _BACKTRACE_TRIPLES "/work/main/test/e2e/CMakeLists.txt;20;add_test;/work/main/test/e2e/CMakeLists.txt;0;")
add_test([=[e2e_controller_restart_slow_member]=] "/usr/bin/python3" "/work/main/test/e2e/controller_restart.py" "/work/main/build-tsan/fedhpa")
set_tests_properties([=[e2e_controller_restart_slow_member]=] PROPERTIES  TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/test/e2e/CMakeLists.txt;22;add_test;/work/main/test/e2e/CMakeLists.txt;0;")
set_directory_properties(PROPERTIES LABELS "e2e")
