// The member model's flags: kube-controller-manager's HPA controller flags under their names, and
// how long a pod takes to start. `fedhpa member-sim` takes them for its one member; `fedhpa up`
// takes the same and gives them to every member it starts.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>

#include "clusters/sim/member_simulator.h"

namespace fedhpa::cmd {

struct MemberModelFlags {
  std::string syncPeriod;
  double tolerance = 0.1;
  std::string downscaleStabilization;
  std::string cpuInitializationPeriod;
  std::string initialReadinessDelay;
  std::string podStartupDelay;
};

// The defaults that differ between the subcommands (the others are kube's).
struct MemberModelDefaults {
  std::string syncPeriod;       // kube: 15s
  std::string podStartupDelay;  // member-sim: 20s (docs/member-sim.md says why)
};

void addMemberModelFlags(boost::program_options::options_description& description, MemberModelFlags& flags,
                         const MemberModelDefaults& defaults);

// Sets the model's fields of `options` (hpaSyncPeriod, controller, podStartupDelay) from the parsed
// flags; the usage error to print (naming the flag) when one is bad.
std::optional<std::string> applyMemberModelFlags(const boost::program_options::variables_map& values,
                                                 const MemberModelFlags& flags, sim::MemberSimulatorOptions& options);

}  // namespace fedhpa::cmd
