// `fedhpa join NAME --cluster-context CTX [--kubeconfig K] [--host-context federation-cluster]`
// and `fedhpa unjoin NAME [--kubeconfig K] [--host-context federation-cluster]`.
#pragma once

namespace fedhpa::cmd {

int joinMain(int argc, char** argv);
int unjoinMain(int argc, char** argv);

}  // namespace fedhpa::cmd
