#include "federation/controller/cluster_selector.h"

#include <nlohmann/json.hpp>

namespace fedhpa::controller {

bool clusterSelected(const std::string& annotation, const std::map<std::string, std::string>& labels) {
  if (annotation.empty()) return true;
  const auto requirements = nlohmann::json::parse(annotation, nullptr, false);
  if (!requirements.is_array()) throw SelectorError(std::string(kClusterSelectorAnnotation) + ": want a JSON list of {key, operator, values}");
  for (const auto& requirement : requirements) {
    if (!requirement.is_object() || !requirement.contains("key") || !requirement["key"].is_string())
      throw SelectorError(std::string(kClusterSelectorAnnotation) + ": every entry needs a key");
    const std::string key = requirement["key"];
    const std::string op = requirement.value("operator", "");
    std::vector<std::string> values;
    for (const auto& value : requirement.value("values", nlohmann::json::array()))
      values.push_back(value.is_string() ? value.get<std::string>() : value.dump());
    const auto label = labels.find(key);
    const bool present = label != labels.end();
    const bool listed = present && std::find(values.begin(), values.end(), label->second) != values.end();
    bool ok;
    if (op == "In" || op == "=" || op == "==") ok = listed;
    else if (op == "NotIn" || op == "!=") ok = !listed;
    else if (op == "Exists") ok = present;
    else if (op == "DoesNotExist") ok = !present;
    else if (op == "Gt" || op == "Lt") {
      if (values.size() != 1) throw SelectorError(std::string(kClusterSelectorAnnotation) + ": " + op + " takes one value");
      try {
        const long long have = present ? std::stoll(label->second) : 0;
        const long long want = std::stoll(values.front());
        ok = present && (op == "Gt" ? have > want : have < want);
      } catch (const std::exception&) {
        ok = false;  // a label that is no number is neither greater nor less
      }
    } else {
      throw SelectorError(std::string(kClusterSelectorAnnotation) + ": unknown operator \"" + op + "\"");
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace fedhpa::controller
