# CMake generated Testfile for 
# Source directory: /work/main
# Build directory: /work/main/build-tsan
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("partitioner")
subdirs("federation")
subdirs("clusters/client")
subdirs("clusters/sim")
subdirs("federation/controller")
subdirs("test")
