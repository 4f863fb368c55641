# CMake generated Testfile for 
# Source directory: /work/main/test/federation/api/machinery
# Build directory: /work/main/build-tsan/test/federation/api/machinery
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-tsan/test/federation/api/machinery/api_machinery_test[1]_include.cmake")
