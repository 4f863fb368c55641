# CMake generated Testfile for 
# Source directory: /work/main/federation/controller
# Build directory: /work/main/build-tsan/federation/controller
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
