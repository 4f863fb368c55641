# CMake generated Testfile for 
# Source directory: /work/main/clusters/sim/model
# Build directory: /work/main/build-tsan/clusters/sim/model
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
