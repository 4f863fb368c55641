// `fedhpa apiserver --listen 127.0.0.1:PORT --data-dir DIR [TLS and authentication flags]`.
#pragma once

namespace fedhpa::cmd {

int apiserverMain(int argc, char** argv);

}  // namespace fedhpa::cmd
