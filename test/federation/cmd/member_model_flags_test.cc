// The member model's flags, as `fedhpa member-sim` and `fedhpa up` parse them: kube's names and
// defaults, each subcommand's own sync period and pod startup delay, and a usage error that names
// the flag. `fedhpa up` hands the options this makes to every member it starts.
#include "federation/cmd/member_model_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace fedhpa::cmd {
namespace {

namespace po = boost::program_options;
using std::chrono::milliseconds;
using std::chrono::seconds;

struct Parsed {
  std::optional<std::string> error;
  sim::MemberSimulatorOptions options;
};

Parsed parse(std::vector<std::string> args, const MemberModelDefaults& defaults = {"5s", "0s"}) {
  po::options_description description;
  MemberModelFlags flags;
  addMemberModelFlags(description, flags, defaults);
  std::vector<const char*> argv = {"fedhpa"};
  for (const auto& arg : args) argv.push_back(arg.c_str());
  po::variables_map values;
  po::store(po::parse_command_line(static_cast<int>(argv.size()), argv.data(), description), values);
  po::notify(values);
  Parsed parsed;
  parsed.error = applyMemberModelFlags(values, flags, parsed.options);
  return parsed;
}

TEST(MemberModelFlags, DefaultsAreKubesExceptTheSubcommandsOwn) {
  const Parsed up = parse({});
  ASSERT_FALSE(up.error) << *up.error;
  EXPECT_EQ(up.options.hpaSyncPeriod, seconds(5));
  EXPECT_EQ(up.options.podStartupDelay, milliseconds(0));
  EXPECT_DOUBLE_EQ(up.options.controller.tolerance, 0.1);
  EXPECT_EQ(up.options.controller.downscaleStabilization, seconds(300));
  EXPECT_EQ(up.options.controller.cpuInitializationPeriod, seconds(300));
  EXPECT_EQ(up.options.controller.initialReadinessDelay, seconds(30));
  const Parsed memberSim = parse({}, {"15s", "20s"});
  EXPECT_EQ(memberSim.options.hpaSyncPeriod, seconds(15));
  EXPECT_EQ(memberSim.options.podStartupDelay, seconds(20));
}

TEST(MemberModelFlags, EveryFlagReachesTheMembersOptions) {
  const Parsed parsed = parse({"--horizontal-pod-autoscaler-sync-period", "2s", "--horizontal-pod-autoscaler-tolerance", "0.2",
                               "--horizontal-pod-autoscaler-downscale-stabilization", "1m30s",
                               "--horizontal-pod-autoscaler-cpu-initialization-period", "2m",
                               "--horizontal-pod-autoscaler-initial-readiness-delay", "10s", "--pod-startup-delay", "45s"});
  ASSERT_FALSE(parsed.error) << *parsed.error;
  EXPECT_EQ(parsed.options.hpaSyncPeriod, seconds(2));
  EXPECT_DOUBLE_EQ(parsed.options.controller.tolerance, 0.2);
  EXPECT_EQ(parsed.options.controller.downscaleStabilization, seconds(90));
  EXPECT_EQ(parsed.options.controller.cpuInitializationPeriod, seconds(120));
  EXPECT_EQ(parsed.options.controller.initialReadinessDelay, seconds(10));
  EXPECT_EQ(parsed.options.podStartupDelay, seconds(45));
  EXPECT_EQ(parse({"--hpa-sync-period", "1s"}).options.hpaSyncPeriod, seconds(1)) << "the old name";
  EXPECT_EQ(parse({"--horizontal-pod-autoscaler-downscale-stabilization", "0s"}).options.controller.downscaleStabilization,
            seconds(0));
}

TEST(MemberModelFlags, ABadValueIsAUsageErrorNamingItsFlag) {
  EXPECT_THAT(parse({"--hpa-sync-period", "0s"}).error, ::testing::Optional(::testing::HasSubstr("--horizontal-pod-autoscaler-sync-period")));
  EXPECT_THAT(parse({"--horizontal-pod-autoscaler-tolerance", "-0.1"}).error,
              ::testing::Optional(::testing::HasSubstr("--horizontal-pod-autoscaler-tolerance")));
  EXPECT_THAT(parse({"--pod-startup-delay", "soon"}).error, ::testing::Optional(::testing::HasSubstr("--pod-startup-delay: durations")));
  EXPECT_THAT(parse({"--horizontal-pod-autoscaler-initial-readiness-delay", "-5s"}).error,
              ::testing::Optional(::testing::HasSubstr("--horizontal-pod-autoscaler-initial-readiness-delay")));
}

}  // namespace
}  // namespace fedhpa::cmd
