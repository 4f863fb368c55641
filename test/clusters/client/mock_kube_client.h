// GoogleMock of the KubeClient seam, for unit tests of what is built on it.
#pragma once

#include <gmock/gmock.h>

#include "clusters/client/kube_client.h"

namespace fedhpa::clusters::testing {

class MockKubeClient : public KubeClient {
 public:
  MOCK_METHOD(json, get, (const Resource&, const std::string&, const std::string&), (override));
  MOCK_METHOD(json, list, (const Resource&, const std::string&, const ListOptions&), (override));
  MOCK_METHOD(json, create, (const Resource&, const std::string&, const json&), (override));
  MOCK_METHOD(json, update, (const Resource&, const json&, const std::string&), (override));
  MOCK_METHOD(json, mergePatch, (const Resource&, const std::string&, const std::string&, const json&, const std::string&),
              (override));
  MOCK_METHOD(json, remove, (const Resource&, const std::string&, const std::string&, const std::string&, const std::string&),
              (override));
  MOCK_METHOD(std::unique_ptr<WatchStream>, watch, (const Resource&, const std::string&, const std::string&, const ListOptions&),
              (override));
  MOCK_METHOD(int, probe, (const std::string&), (override));
};

}  // namespace fedhpa::clusters::testing
