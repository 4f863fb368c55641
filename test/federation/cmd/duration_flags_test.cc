// Every duration flag takes Go's syntax: the fedhpa binary run as a user runs it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>

namespace fedhpa::cmd {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  int status;
  std::string output;  // stdout and stderr
};

// For commands that exit by themselves; `timeout` only keeps one that does not from hanging the test.
Outcome fedhpa(const std::string& args) {
  const std::string command = "timeout 60 " + std::string(FEDHPA_BINARY) + " " + args + " 2>&1";
  Outcome run{-1, ""};
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return run;
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

constexpr int kUsageError = 2;

// Runs a command that should serve: reads its output until it says it listens (however long a
// loaded machine takes to start it), then stops it. False if it exited, or never said so.
struct Served {
  bool listening;
  std::string output;
};
Served serve(const std::string& args) {
  const std::string command = "exec " + std::string(FEDHPA_BINARY) + " " + args;
  int out[2];
  if (::pipe(out) != 0) return {false, "pipe failed"};
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(out[1], STDERR_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  Served served{false, ""};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::array<char, 4096> buffer{};
  while (!served.listening && std::chrono::steady_clock::now() < deadline) {
    pollfd readable{out[0], POLLIN, 0};
    if (::poll(&readable, 1, 100) <= 0) continue;
    const ssize_t n = ::read(out[0], buffer.data(), buffer.size());
    if (n <= 0) break;  // it exited
    served.output.append(buffer.data(), static_cast<std::size_t>(n));
    served.listening = served.output.find("listening on http://127.0.0.1:") != std::string::npos;
  }
  ::kill(child, SIGTERM);
  ::waitpid(child, nullptr, 0);
  ::close(out[0]);
  return served;
}

// Past the flags, controller-manager fails on the missing kubeconfig: exit 1, not a usage error.
TEST(DurationFlags, ControllerManagerTakesZeroAndCompoundDurations) {
  for (const char* window : {"0s", "1m30s", "0", "1.5h"}) {
    const Outcome run = fedhpa(std::string("controller-manager --kubeconfig /nonexistent/kubeconfig --hpa-scale-forbidden-window ") + window);
    EXPECT_NE(run.status, kUsageError) << window << ": " << run.output;
    EXPECT_THAT(run.output, Not(HasSubstr("durations look like"))) << window;
  }
  const Outcome grace = fedhpa("controller-manager --kubeconfig /nonexistent/kubeconfig --cluster-unhealthy-grace 1m30s --resync-period 1.5s");
  EXPECT_NE(grace.status, kUsageError) << grace.output;
}

TEST(DurationFlags, ControllerManagerRejectsMalformedAndNegativeDurations) {
  for (const char* window : {"2x", "-1s", "30", "1m 30s"}) {
    const Outcome run = fedhpa(std::string("controller-manager --kubeconfig /nonexistent/kubeconfig --hpa-scale-forbidden-window '") + window + "'");
    EXPECT_EQ(run.status, kUsageError) << window << ": " << run.output;
    EXPECT_THAT(run.output, HasSubstr("1m30s")) << "the error shows the syntax";
  }
  EXPECT_EQ(fedhpa("controller-manager --kubeconfig /nonexistent/kubeconfig --resync-period 0s").status, kUsageError)
      << "a period of zero would spin";
}

TEST(DurationFlags, MemberSimTakesGoDurations) {
  const Served run = serve("member-sim --port 0 --hpa-sync-period 1m30s --latency 1.5ms --latency-jitter 0s");
  EXPECT_TRUE(run.listening) << run.output;
  EXPECT_EQ(fedhpa("member-sim --port 0 --latency 100").status, kUsageError);
  EXPECT_EQ(fedhpa("member-sim --port 0 --latency -1s").status, kUsageError);
  EXPECT_EQ(fedhpa("member-sim --port 0 --hpa-sync-period 0s").status, kUsageError);
}

TEST(DurationFlags, MemberSimTakesTheHpaControllersFlagsUnderKubesNames) {
  const Served run = serve(
      "member-sim --port 0 --horizontal-pod-autoscaler-sync-period 30s --horizontal-pod-autoscaler-tolerance 0.05 "
      "--horizontal-pod-autoscaler-downscale-stabilization 2m --horizontal-pod-autoscaler-cpu-initialization-period 3m "
      "--horizontal-pod-autoscaler-initial-readiness-delay 10s --pod-startup-delay 45s");
  EXPECT_TRUE(run.listening) << run.output;
  EXPECT_EQ(fedhpa("member-sim --port 0 --horizontal-pod-autoscaler-sync-period 0s").status, kUsageError);
  EXPECT_EQ(fedhpa("member-sim --port 0 --horizontal-pod-autoscaler-downscale-stabilization 300").status, kUsageError);
  EXPECT_EQ(fedhpa("member-sim --port 0 --pod-startup-delay -1s").status, kUsageError);
  EXPECT_EQ(fedhpa("member-sim --port 0 --horizontal-pod-autoscaler-tolerance -0.1").status, kUsageError);
}

// `fedhpa up` takes the member-sim's model flags (for every member it starts) and checks them
// before starting anything.
TEST(DurationFlags, UpRejectsAMalformedMemberModelFlagBeforeStartingAnything) {
  const Outcome run = fedhpa("up --data-dir /nonexistent/data --hpa-sync-period 5 --hpa-scale-forbidden-window 0s");
  EXPECT_EQ(run.status, kUsageError) << run.output;
  for (const char* flag : {"--pod-startup-delay", "--horizontal-pod-autoscaler-downscale-stabilization",
                           "--horizontal-pod-autoscaler-cpu-initialization-period",
                           "--horizontal-pod-autoscaler-initial-readiness-delay"}) {
    const Outcome bad = fedhpa(std::string("up --data-dir /nonexistent/data ") + flag + "=-1s");
    EXPECT_EQ(bad.status, kUsageError) << bad.output;
    EXPECT_THAT(bad.output, HasSubstr(flag));
  }
  EXPECT_EQ(fedhpa("up --data-dir /nonexistent/data --horizontal-pod-autoscaler-tolerance=-1").status, kUsageError);
}

}  // namespace
}  // namespace fedhpa::cmd
