# CMake generated Testfile for 
# Source directory: /work/main/test/clusters/sim
# Build directory: /work/main/build-tsan/test/clusters/sim
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-tsan/test/clusters/sim/member_sim_test[1]_include.cmake")
subdirs("model")
