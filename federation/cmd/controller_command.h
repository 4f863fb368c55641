// `fedhpa controller-manager`: the HPA federation controller against a federation API.
#pragma once

namespace fedhpa::cmd {

int controllerManagerMain(int argc, char** argv);

}  // namespace fedhpa::cmd
