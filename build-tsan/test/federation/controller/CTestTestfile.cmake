# CMake generated Testfile for 
# Source directory: /work/main/test/federation/controller
# Build directory: /work/main/build-tsan/test/federation/controller
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-tsan/test/federation/controller/controller_test[1]_include.cmake")
