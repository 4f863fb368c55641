// A small served type for REST-layer tests: "widgets.example.io", versions v1 (stored) and
// v1alpha1 (which calls spec.size "spec.count"), a status subresource, minReplicas-like defaulting
// (spec.size 1) and one validation rule (spec.size >= 0).
#pragma once

#include "federation/api/resource.h"

namespace fedhpa::apiserver::testing {

class WidgetType : public api::ResourceType {
 public:
  explicit WidgetType(bool namespaced = true) {
    names_.group = "example.io";
    names_.versions = {"v1", "v1alpha1"};
    names_.storageVersion = "v1";
    names_.kind = "Widget";
    names_.resource = "widgets";
    names_.singular = "widget";
    names_.namespaced = namespaced;
    names_.verbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
    names_.subresources = {{"status", "example.io", "v1", "Widget"}};
  }
  const api::ResourceNames& names() const override { return names_; }

  nlohmann::json toInternal(const nlohmann::json& served, const std::string& version) const override {
    nlohmann::json out = served;
    out["apiVersion"] = "example.io/v1";
    if (version == "v1alpha1" && out.contains("spec") && out["spec"].contains("count")) {
      out["spec"]["size"] = out["spec"]["count"];
      out["spec"].erase("count");
    }
    return out;
  }
  nlohmann::json fromInternal(const nlohmann::json& internal, const std::string& version) const override {
    nlohmann::json out = internal;
    out["apiVersion"] = "example.io/" + version;
    if (version == "v1alpha1" && out.contains("spec") && out["spec"].contains("size")) {
      out["spec"]["count"] = out["spec"]["size"];
      out["spec"].erase("size");
    }
    return out;
  }
  std::vector<std::string> unknownFields(const nlohmann::json& served, const std::string&) const override {
    std::vector<std::string> unknown;
    for (const auto& [key, value] : served.items())
      if (key != "apiVersion" && key != "kind" && key != "metadata" && key != "spec" && key != "status")
        unknown.push_back(key);
    if (served.contains("spec") && served["spec"].is_object())
      for (const auto& [key, value] : served["spec"].items())
        if (key != "size" && key != "count" && key != "color" && key != "parts") unknown.push_back("spec." + key);
    return unknown;
  }
  void dropUnknownFields(nlohmann::json& served, const std::string& version) const override {
    for (const auto& field : unknownFields(served, version)) {
      if (field.rfind("spec.", 0) == 0) served["spec"].erase(field.substr(5));
      else served.erase(field);
    }
  }
  std::vector<std::string> typeErrors(const nlohmann::json& served, const std::string&) const override {
    if (served.contains("spec") && !served["spec"].is_object()) return {"spec: expected object"};
    return {};
  }
  void applyDefaults(nlohmann::json& internal) const override {
    if (!internal.contains("spec") || !internal["spec"].is_object()) internal["spec"] = nlohmann::json::object();
    if (!internal["spec"].contains("size")) internal["spec"]["size"] = 1;
  }
  std::vector<api::StatusCause> validate(const nlohmann::json& internal, const nlohmann::json*) const override {
    std::vector<api::StatusCause> causes;
    const auto& size = internal["spec"]["size"];
    if (!size.is_number_integer() || size.get<long long>() < 0)
      causes.push_back(api::fieldInvalid("spec.size", size, "must be greater than or equal to 0"));
    return causes;
  }
  std::vector<api::TableColumn> tableColumns() const override {
    return {{"Name", "string", "name", "", 0}, {"Size", "integer", "", "", 0}};
  }
  nlohmann::json tableCells(const nlohmann::json& internal, api::Clock::time_point) const override {
    return {internal["metadata"]["name"], internal["spec"]["size"]};
  }
  std::vector<std::pair<std::string, std::string>> listMergeKeys() const override { return {{"spec.parts", "name"}}; }
  bool acceptsStrategicMergePatch() const override { return true; }
  nlohmann::json openApiSchema(const std::string&) const override { return {{"type", "object"}}; }

 private:
  api::ResourceNames names_;
};

}  // namespace fedhpa::apiserver::testing
