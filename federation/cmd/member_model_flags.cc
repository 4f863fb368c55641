#include "federation/cmd/member_model_flags.h"

#include <tuple>

#include "federation/common/duration.h"

namespace fedhpa::cmd {

namespace po = boost::program_options;

void addMemberModelFlags(po::options_description& description, MemberModelFlags& flags, const MemberModelDefaults& defaults) {
  description.add_options()
      ("horizontal-pod-autoscaler-sync-period", po::value<std::string>(&flags.syncPeriod)->default_value(defaults.syncPeriod),
       "how often the members' HPA controller syncs (kube-controller-manager's flag)")
      ("hpa-sync-period", po::value<std::string>(), "the same as --horizontal-pod-autoscaler-sync-period")
      ("horizontal-pod-autoscaler-tolerance", po::value<double>(&flags.tolerance)->default_value(0.1),
       "the usage ratio's distance from 1 within which the HPA does not scale")
      ("horizontal-pod-autoscaler-downscale-stabilization", po::value<std::string>(&flags.downscaleStabilization)->default_value("5m"),
       "how far back a scale-down looks for higher recommendations")
      ("horizontal-pod-autoscaler-cpu-initialization-period", po::value<std::string>(&flags.cpuInitializationPeriod)->default_value("5m"),
       "after a pod starts, how long its CPU is not trusted unless it has been ready for a metrics window")
      ("horizontal-pod-autoscaler-initial-readiness-delay", po::value<std::string>(&flags.initialReadinessDelay)->default_value("30s"),
       "after a pod starts, how long a readiness change still counts as its first one")
      ("pod-startup-delay", po::value<std::string>(&flags.podStartupDelay)->default_value(defaults.podStartupDelay),
       "from a pod's creation to its Ready condition (0s: ready at once)");
}

std::optional<std::string> applyMemberModelFlags(const po::variables_map& values, const MemberModelFlags& flags,
                                                 sim::MemberSimulatorOptions& options) {
  const std::string syncPeriod = values.count("hpa-sync-period") ? values["hpa-sync-period"].as<std::string>() : flags.syncPeriod;
  const auto period = parseDurationFlag(syncPeriod);
  if (!period || period->count() == 0)
    return "--horizontal-pod-autoscaler-sync-period: want a positive duration (" + std::string(kDurationSyntax) + "), got " +
           syncPeriod;
  if (!(flags.tolerance >= 0)) return "--horizontal-pod-autoscaler-tolerance: want a number >= 0";
  std::chrono::milliseconds downscale{0}, cpuInitialization{0}, readiness{0}, podStartup{0};
  for (auto [flag, text, out] :
       {std::tuple{"--horizontal-pod-autoscaler-downscale-stabilization", &flags.downscaleStabilization, &downscale},
        std::tuple{"--horizontal-pod-autoscaler-cpu-initialization-period", &flags.cpuInitializationPeriod, &cpuInitialization},
        std::tuple{"--horizontal-pod-autoscaler-initial-readiness-delay", &flags.initialReadinessDelay, &readiness},
        std::tuple{"--pod-startup-delay", &flags.podStartupDelay, &podStartup}}) {
    const auto duration = parseDurationFlag(*text);
    if (!duration) return std::string(flag) + ": " + kDurationSyntax + ", got " + *text;
    *out = *duration;
  }
  options.hpaSyncPeriod = *period;
  options.controller.tolerance = flags.tolerance;
  options.controller.downscaleStabilization = std::chrono::duration_cast<std::chrono::seconds>(downscale);
  options.controller.cpuInitializationPeriod = std::chrono::duration_cast<std::chrono::seconds>(cpuInitialization);
  options.controller.initialReadinessDelay = std::chrono::duration_cast<std::chrono::seconds>(readiness);
  options.podStartupDelay = podStartup;
  return std::nullopt;
}

}  // namespace fedhpa::cmd
