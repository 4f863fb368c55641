#include "federation/controller/event_recorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>

#include "test/clusters/client/mock_kube_client.h"

namespace fedhpa::controller {
namespace {

using clusters::ClientError;
using clusters::json;
using clusters::testing::MockKubeClient;
using ::testing::_;
using ::testing::Invoke;

json federatedHpa() {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", "php-apache"}, {"namespace", "default"}, {"uid", "u-1"}}}};
}

TEST(EventRecorderTest, EventsArePostedInOrderAboutTheObject) {
  MockKubeClient federation;
  RealTimeSource time;
  std::vector<json> posted;
  EXPECT_CALL(federation, create(_, "default", _)).WillRepeatedly(Invoke([&](const auto&, const auto&, const json& event) {
    posted.push_back(event);
    return event;
  }));
  {
    EventRecorder events(federation, time);
    events.record(federatedHpa(), "Normal", "Rebalanced", "placed on member1");
    events.record(federatedHpa(), "Warning", "ForeignHpa", "member2 has its own");
  }  // the destructor posts what is queued
  ASSERT_EQ(posted.size(), 2u);
  EXPECT_EQ(posted[0]["reason"], "Rebalanced");
  EXPECT_EQ(posted[1]["type"], "Warning");
  EXPECT_EQ(posted[0]["involvedObject"]["kind"], "HorizontalPodAutoscaler");
  EXPECT_EQ(posted[0]["involvedObject"]["uid"], "u-1");
  EXPECT_EQ(posted[0]["metadata"]["generateName"], "php-apache.");
}

TEST(EventRecorderTest, RecordingNeverWaitsForTheApi) {
  MockKubeClient federation;
  RealTimeSource time;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  EXPECT_CALL(federation, create(_, _, _)).WillRepeatedly(Invoke([&](const auto&, const auto&, const json& event) {
    released.wait();  // the API is slow
    return event;
  }));
  EventRecorder events(federation, time);
  auto recording = std::async(std::launch::async, [&] {
    for (int i = 0; i < 5; ++i) events.record(federatedHpa(), "Normal", "Rebalanced", "move " + std::to_string(i));
  });
  EXPECT_EQ(recording.wait_for(std::chrono::seconds(5)), std::future_status::ready) << "record() waited for the API";
  release.set_value();
}

TEST(EventRecorderTest, AFailedPostIsLoggedNotThrown) {
  MockKubeClient federation;
  RealTimeSource time;
  int calls = 0;
  EXPECT_CALL(federation, create(_, _, _)).WillRepeatedly(Invoke([&](const auto&, const auto&, const json&) -> json {
    ++calls;
    throw ClientError(ClientError::Kind::Other, 500, "InternalError", "storage down");
  }));
  {
    EventRecorder events(federation, time);
    events.record(federatedHpa(), "Normal", "Rebalanced", "placed");
  }
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace fedhpa::controller
