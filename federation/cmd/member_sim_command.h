// `fedhpa member-sim --listen 127.0.0.1:PORT [--name member1] [--hpa-sync-period 15s]`.
#pragma once

namespace fedhpa::cmd {

int memberSimMain(int argc, char** argv);

}  // namespace fedhpa::cmd
