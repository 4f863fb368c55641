// Label and field selectors in kube's string syntax: "tier=web,env!=prod,zone in (a,b),!canary".
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fedhpa::api::machinery {

class SelectorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class LabelSelector {
 public:
  enum class Operator { Equals, NotEquals, In, NotIn, Exists, DoesNotExist };
  struct Requirement {
    std::string key;
    Operator op;
    std::set<std::string> values;
  };

  static LabelSelector parse(const std::string& text);
  // metav1.LabelSelector: matchLabels + matchExpressions (In, NotIn, Exists, DoesNotExist).
  static LabelSelector fromJson(const nlohmann::json& selector);

  bool matches(const std::map<std::string, std::string>& labels) const;
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
};

class FieldSelector {
 public:
  struct Requirement {
    std::string field;
    bool equals;
    std::string value;
  };

  static FieldSelector parse(const std::string& text);
  // fieldValue returns the object's value of a field, nullopt when the field is unknown.
  bool matches(const std::function<std::optional<std::string>(const std::string&)>& fieldValue) const;
  std::vector<std::string> fields() const;

 private:
  std::vector<Requirement> requirements_;
};

}  // namespace fedhpa::api::machinery
