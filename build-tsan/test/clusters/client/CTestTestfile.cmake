# CMake generated Testfile for 
# Source directory: /work/main/test/clusters/client
# Build directory: /work/main/build-tsan/test/clusters/client
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-tsan/test/clusters/client/clusters_client_test[1]_include.cmake")
