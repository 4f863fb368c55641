# CMake generated Testfile for 
# Source directory: /work/main/clusters/sim
# Build directory: /work/main/build-tsan/clusters/sim
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("model")
