// `fedhpa controller-manager` and `fedhpa up` (the whole federation on loopback).
#pragma once

namespace fedhpa::cmd {

int controllerManagerMain(int argc, char** argv);
int upMain(int argc, char** argv);

}  // namespace fedhpa::cmd
