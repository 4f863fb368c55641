// `fedhpa up`: the whole federation on loopback (API servers, simulated members, the
// controller-manager) and a kubeconfig for it; what `make run` starts.
#pragma once

namespace fedhpa::cmd {

int upMain(int argc, char** argv);

}  // namespace fedhpa::cmd
