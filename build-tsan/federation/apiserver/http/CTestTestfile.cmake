# CMake generated Testfile for 
# Source directory: /work/main/federation/apiserver/http
# Build directory: /work/main/build-tsan/federation/apiserver/http
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
