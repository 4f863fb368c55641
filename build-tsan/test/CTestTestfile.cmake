# CMake generated Testfile for 
# Source directory: /work/main/test
# Build directory: /work/main/build-tsan/test
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build-tsan/test/partitioner_test[1]_include.cmake")
include("/work/main/build-tsan/test/federation_test[1]_include.cmake")
subdirs("federation/api")
subdirs("federation/api/machinery")
subdirs("federation/storage")
subdirs("federation/apiserver/http")
subdirs("federation/apiserver")
subdirs("federation/controller")
subdirs("federation/simulation")
subdirs("clusters/client")
subdirs("clusters/sim")
subdirs("e2e")
subdirs("bench")
