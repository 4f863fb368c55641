#include "federation/controller/cluster_selector.h"

#include <gtest/gtest.h>

namespace fedhpa::controller {
namespace {

const std::map<std::string, std::string> kMember2 = {{"region", "eu"}, {"tier", "2"}};

TEST(ClusterSelector, KubefedV1Operators) {
  EXPECT_TRUE(clusterSelected("", kMember2));
  EXPECT_TRUE(clusterSelected(R"([{"key":"region","operator":"In","values":["eu","us"]}])", kMember2));
  EXPECT_FALSE(clusterSelected(R"([{"key":"region","operator":"NotIn","values":["eu"]}])", kMember2));
  EXPECT_TRUE(clusterSelected(R"([{"key":"region","operator":"=","values":["eu"]}])", kMember2));
  EXPECT_TRUE(clusterSelected(R"([{"key":"region","operator":"!=","values":["us"]}])", kMember2));
  EXPECT_TRUE(clusterSelected(R"([{"key":"tier","operator":"Exists"}])", kMember2));
  EXPECT_FALSE(clusterSelected(R"([{"key":"tier","operator":"DoesNotExist"}])", kMember2));
  EXPECT_TRUE(clusterSelected(R"([{"key":"tier","operator":"Gt","values":["1"]}])", kMember2));
  EXPECT_FALSE(clusterSelected(R"([{"key":"tier","operator":"Lt","values":["1"]}])", kMember2));
  EXPECT_FALSE(clusterSelected(R"([{"key":"region","operator":"In","values":["eu"]},{"key":"gpu","operator":"Exists"}])", kMember2));
}

TEST(ClusterSelector, MalformedAnnotationsAreErrors) {
  EXPECT_THROW(clusterSelected("{}", kMember2), SelectorError);
  EXPECT_THROW(clusterSelected(R"([{"operator":"In"}])", kMember2), SelectorError);
  EXPECT_THROW(clusterSelected(R"([{"key":"a","operator":"Near"}])", kMember2), SelectorError);
}

}  // namespace
}  // namespace fedhpa::controller
