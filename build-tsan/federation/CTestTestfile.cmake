# CMake generated Testfile for 
# Source directory: /work/main/federation
# Build directory: /work/main/build-tsan/federation
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("api")
subdirs("api/machinery")
subdirs("storage")
subdirs("apiserver/http")
subdirs("apiserver")
subdirs("simulation")
