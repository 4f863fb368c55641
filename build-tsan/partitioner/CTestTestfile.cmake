# CMake generated Testfile for 
# Source directory: /work/main/partitioner
# Build directory: /work/main/build-tsan/partitioner
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
