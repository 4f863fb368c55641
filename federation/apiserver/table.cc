#include "federation/apiserver/table.h"

namespace fedhpa::apiserver {

using nlohmann::json;

namespace {

json partialObjectMetadata(const json& object) {
  json metadata = object.value("metadata", json::object());
  metadata.erase("managedFields");
  return {{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", metadata}};
}

}  // namespace

IncludeObject parseIncludeObject(const std::string& value) {
  if (value.empty() || value == "Metadata") return IncludeObject::Metadata;
  if (value == "None") return IncludeObject::None;
  if (value == "Object") return IncludeObject::Object;
  throw api::ApiError::badRequest("unrecognized includeObject value: " + api::quoted(value));
}

json buildTable(const api::ResourceType& type, const std::vector<json>& internalObjects,
                const std::vector<json>& servedObjects, const TableOptions& options, api::Clock::time_point now) {
  json columns = nullptr;
  if (options.withColumnDefinitions) {
    columns = json::array();
    for (const auto& column : type.tableColumns())
      columns.push_back({{"name", column.name},
                         {"type", column.type},
                         {"format", column.format},
                         {"description", column.description},
                         {"priority", column.priority}});
  }
  json rows = json::array();
  for (std::size_t i = 0; i < internalObjects.size(); ++i) {
    json row = {{"cells", type.tableCells(internalObjects[i], now)}};
    switch (options.includeObject) {
      case IncludeObject::None:
        break;
      case IncludeObject::Metadata:
        row["object"] = partialObjectMetadata(servedObjects[i]);
        break;
      case IncludeObject::Object:
        row["object"] = servedObjects[i];
        break;
    }
    rows.push_back(std::move(row));
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", json::object()},
          {"columnDefinitions", columns},
          {"rows", rows}};
}

}  // namespace fedhpa::apiserver
