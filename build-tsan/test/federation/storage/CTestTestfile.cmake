# CMake generated Testfile for 
# Source directory: /work/main/test/federation/storage
# Build directory: /work/main/build-tsan/test/federation/storage
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-tsan/test/federation/storage/storage_test[1]_include.cmake")
