// Quantities in the form kube-apiserver stores and serves them (the cases of k8s.io/apimachinery's
// quantity tests, as facts), and their canonicalisation inside built-in objects.
#include "federation/api/machinery/canonical_quantity.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "federation/api/machinery/protobuf.h"

namespace fedhpa::api::machinery {
namespace {

using nlohmann::json;

struct Case {
  const char* written;
  const char* canonical;
};

TEST(CanonicalQuantity, DecimalValuesTakeTheLargestExactSuffix) {
  const Case cases[] = {
      {"0.5", "500m"},   {"1000m", "1"},      {"1.5", "1500m"},   {".1", "100m"},    {"0.001", "1m"},
      {"0.0001", "100u"}, {"1000", "1k"},     {"1200", "1200"},   {"100k", "100k"},  {"1000k", "1M"},
      {"1.0", "1"},      {"-0.5", "-500m"},   {"2000000000", "2G"}, {"12.5M", "12500k"}, {"1e3", "1e3"},
      {"1.5e3", "1500"}, {"1.5e2", "150"},    {"12e6", "12e6"},   {"10e3", "10e3"},  {"1e-3", "1e-3"},
  };
  for (const auto& [written, canonical] : cases) EXPECT_EQ(canonicalQuantity(written), canonical) << written;
}

TEST(CanonicalQuantity, BinaryValuesStayBinaryWhenWholeAndAtLeast1024) {
  const Case cases[] = {
      {"1024Mi", "1Gi"}, {"1Mi", "1Mi"},     {"1536Mi", "1536Mi"}, {"1.5Gi", "1536Mi"}, {"1024Ki", "1Mi"},
      {"1000Ki", "1000Ki"}, {"0.5Ki", "512"}, {"1Ki", "1Ki"},       {"1.1Ki", "1126400m"}, {"8Ki", "8Ki"},
      {"2048Ki", "2Mi"},  {"0.5Gi", "512Mi"}, {"-1024Mi", "-1Gi"},
  };
  for (const auto& [written, canonical] : cases) EXPECT_EQ(canonicalQuantity(written), canonical) << written;
}

TEST(CanonicalQuantity, ZeroNanosAndTheCaps) {
  const Case cases[] = {
      {"0", "0"},      {"0m", "0"},   {"0Ki", "0"},     {"0Mi", "0"}, {"00", "0"}, {"-0", "0"},
      {"1n", "1n"},    {"0.1n", "1n"}, {"1.5n", "2n"}, {"0.000000000001", "1n"},
      {"16Ei", "9223372036854775807"},
  };
  for (const auto& [written, canonical] : cases) EXPECT_EQ(canonicalQuantity(written), canonical) << written;
}

TEST(CanonicalQuantity, TextThatIsNotAQuantityIsLeftToValidation) {
  for (const char* text : {"", ".", "abc", "1K", "1e", "1.2.3", "1 Mi", "--1", "1Mix", "1e1.5", "+"})
    EXPECT_EQ(canonicalQuantity(text), std::nullopt) << text;
}

TEST(CanonicalQuantity, BuiltInObjectsHaveTheirQuantitiesRewrittenCustomResourcesNot) {
  json deployment = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","spec":{"template":{"spec":{
      "containers":[{"name":"c","resources":{"limits":{"cpu":"1000m","memory":"1024Mi"},"requests":{"cpu":0.5}}}],
      "volumes":[{"name":"t","emptyDir":{"sizeLimit":"1.5Gi"}}]}}}})");
  canonicalizeQuantities(deployment);
  const json& pod = deployment["spec"]["template"]["spec"];
  EXPECT_EQ(pod["containers"][0]["resources"], json::parse(R"({"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"500m"}})"));
  EXPECT_EQ(pod["volumes"][0]["emptyDir"]["sizeLimit"], "1536Mi");

  json hpa = json::parse(R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","spec":{"metrics":[
      {"type":"Pods","pods":{"metric":{"name":"rps"},"target":{"type":"AverageValue","averageValue":"1000m"}}}]}})");
  canonicalizeQuantities(hpa);
  EXPECT_EQ(hpa["spec"]["metrics"][0]["pods"]["target"]["averageValue"], "1");

  json federated = json::parse(R"({"apiVersion":"autoscaling.karmada.io/v1alpha1","kind":"FederatedHPA","spec":{"metrics":[
      {"type":"Pods","pods":{"metric":{"name":"rps"},"target":{"type":"AverageValue","averageValue":"1000m"}}}]}})");
  const json before = federated;
  canonicalizeQuantities(federated);
  EXPECT_EQ(federated, before) << "a custom resource keeps its text, as kube keeps a CRD's";
}

}  // namespace
}  // namespace fedhpa::api::machinery
