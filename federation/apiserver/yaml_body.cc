#include "federation/apiserver/yaml_body.h"

#include "federation/api/machinery/yaml_json.h"
#include "federation/api/status.h"

namespace fedhpa::apiserver {

std::string yamlToJson(const std::string& yaml) {
  const auto limits = api::machinery::YamlLimits::forUntrusted(yaml.size());
  std::vector<std::string> documents;
  try {
    documents = api::machinery::yamlToJsonDocuments(yaml, limits);
  } catch (const api::machinery::YamlError& error) {
    throw api::ApiError::badRequest(std::string("the body of the request could not be decoded: ") + error.what());
  }
  if (documents.size() != 1)
    throw api::ApiError::badRequest("the body of the request must hold exactly one YAML document, got " +
                                    std::to_string(documents.size()));
  return std::move(documents.front());
}

}  // namespace fedhpa::apiserver
