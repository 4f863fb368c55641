# CMake generated Testfile for 
# Source directory: /work/main/clusters/client
# Build directory: /work/main/build-tsan/clusters/client
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
