// apiextensions.k8s.io/v1 CustomResourceDefinition, served read-only and always empty: fedhpa
// serves a fixed set of types and defines no others. kubectl lists CRDs when it meets a kind the
// OpenAPI documents do not describe (is it a custom resource, validated like Namespaces?); an empty
// list tells it no, so it reports that kind per object ("no matches for kind") and applies the
// rest of the file, as against kube-apiserver. Creating one is refused (405): docs/apiserver.md.
#include "federation/api/basic_resource_type.h"
#include "federation/api/printing.h"
#include "federation/api/served_types.h"

namespace fedhpa::api {

using nlohmann::json;

namespace {

class CustomResourceDefinitionType : public BasicResourceType {
 public:
  CustomResourceDefinitionType()
      : BasicResourceType(
            ResourceNames{"apiextensions.k8s.io", {"v1"}, "v1", "CustomResourceDefinition", "customresourcedefinitions",
                          "customresourcedefinition", false, {"crd", "crds"}, {"api-extensions"},
                          {"get", "list", "watch"}, {}},
            {{"v1", topLevel({{"spec", Schema::any().describe("The group, names, scope and versions of the new type.")},
                              {"status", Schema::any().describe("Whether the type is established. Read-only.")}})
                        .describe("A new type for the API server to serve. fedhpa serves a fixed set of types: "
                                  "the list is always empty and creating one is refused.")}},
            NameRule::DnsSubdomain) {}
  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(), {"Created At", "date", "", "CreationTimestamp of the type's definition", 0}};
  }
  json tableCells(const json& internal, Clock::time_point) const override {
    return json::array({stringAt(internal, "/metadata/name"), stringAt(internal, "/metadata/creationTimestamp")});
  }
};

}  // namespace

std::shared_ptr<const ResourceType> customResourceDefinitionType() {
  return std::make_shared<CustomResourceDefinitionType>();
}

}  // namespace fedhpa::api
