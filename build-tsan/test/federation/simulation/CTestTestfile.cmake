# CMake generated Testfile for 
# Source directory: /work/main/test/federation/simulation
# Build directory: /work/main/build-tsan/test/federation/simulation
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-tsan/test/federation/simulation/simulation_test[1]_include.cmake")
