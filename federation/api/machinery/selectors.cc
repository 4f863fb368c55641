#include "federation/api/machinery/selectors.h"

#include <cctype>

namespace fedhpa::api::machinery {

namespace {

std::string trim(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

// Splits on commas outside parentheses ("a in (x,y),b" -> {"a in (x,y)", "b"}).
std::vector<std::string> splitTerms(const std::string& text) {
  std::vector<std::string> terms;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      terms.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  terms.push_back(current);
  return terms;
}

bool validLabelKey(const std::string& key) {
  if (key.empty() || key.size() > 253 + 1 + 63) return false;
  for (char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.' && c != '/') return false;
  return true;
}

std::set<std::string> parseValueSet(const std::string& term, std::size_t open) {
  const std::size_t close = term.rfind(')');
  if (close == std::string::npos || close < open) throw SelectorError("unable to parse requirement: missing ')' in " + term);
  std::set<std::string> values;
  std::string list = term.substr(open + 1, close - open - 1);
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::string value = trim(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!value.empty()) values.insert(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (values.empty()) throw SelectorError("unable to parse requirement: for 'in', 'notin' operators, values set can't be empty");
  return values;
}

// Field selector values may escape ',', '=' and '\' with a backslash.
std::vector<std::string> splitEscaped(const std::string& text) {
  std::vector<std::string> parts;
  std::string current;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      current += text[i];
      current += text[++i];
    } else if (text[i] == ',') {
      parts.push_back(current);
      current.clear();
    } else {
      current += text[i];
    }
  }
  parts.push_back(current);
  return parts;
}

std::string unescape(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      const char next = text[i + 1];
      if (next != ',' && next != '=' && next != '\\') throw SelectorError("invalid escape sequence \\" + std::string(1, next));
      out += next;
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The position of the first unescaped occurrence of op.
std::size_t findUnescaped(const std::string& text, const std::string& op) {
  for (std::size_t i = 0; i + op.size() <= text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
      continue;
    }
    if (text.compare(i, op.size(), op) == 0) return i;
  }
  return std::string::npos;
}

}  // namespace

LabelSelector LabelSelector::parse(const std::string& text) {
  LabelSelector selector;
  if (trim(text).empty()) return selector;
  for (const auto& raw : splitTerms(text)) {
    const std::string term = trim(raw);
    if (term.empty()) throw SelectorError("unable to parse requirement: empty term in " + text);
    Requirement requirement;
    if (term[0] == '!') {
      requirement = {trim(term.substr(1)), Operator::DoesNotExist, {}};
    } else if (const auto notin = term.find(" notin "); notin != std::string::npos) {
      requirement = {trim(term.substr(0, notin)), Operator::NotIn, parseValueSet(term, term.find('(', notin))};
    } else if (const auto in = term.find(" in "); in != std::string::npos) {
      requirement = {trim(term.substr(0, in)), Operator::In, parseValueSet(term, term.find('(', in))};
    } else if (const auto ne = term.find("!="); ne != std::string::npos) {
      requirement = {trim(term.substr(0, ne)), Operator::NotEquals, {trim(term.substr(ne + 2))}};
    } else if (const auto eq2 = term.find("=="); eq2 != std::string::npos) {
      requirement = {trim(term.substr(0, eq2)), Operator::Equals, {trim(term.substr(eq2 + 2))}};
    } else if (const auto eq = term.find('='); eq != std::string::npos) {
      requirement = {trim(term.substr(0, eq)), Operator::Equals, {trim(term.substr(eq + 1))}};
    } else {
      requirement = {term, Operator::Exists, {}};
    }
    if (!validLabelKey(requirement.key))
      throw SelectorError("unable to parse requirement: invalid label key \"" + requirement.key + "\"");
    selector.requirements_.push_back(std::move(requirement));
  }
  return selector;
}

LabelSelector LabelSelector::fromJson(const nlohmann::json& json) {
  LabelSelector selector;
  if (!json.is_object()) return selector;
  const auto matchLabels = json.find("matchLabels");
  if (matchLabels != json.end() && matchLabels->is_object())
    for (const auto& [key, value] : matchLabels->items())
    selector.requirements_.push_back({key, Operator::Equals, {value.is_string() ? value.get<std::string>() : value.dump()}});
  const auto matchExpressions = json.find("matchExpressions");
  if (matchExpressions == json.end() || !matchExpressions->is_array()) return selector;
  for (const auto& expression : *matchExpressions) {
    if (!expression.is_object()) throw SelectorError("matchExpressions must hold objects");
    // json::value() would throw json's type_error for a key or operator that is not a string.
    const auto stringField = [&expression](const char* name) {
      const auto field = expression.find(name);
      if (field == expression.end() || field->is_null()) return std::string();
      if (!field->is_string()) throw SelectorError(std::string("matchExpressions[].") + name + " must be a string");
      return field->get<std::string>();
    };
    const std::string op = stringField("operator");
    std::set<std::string> values;
    const auto listed = expression.find("values");
    if (listed != expression.end() && listed->is_array())
      for (const auto& value : *listed)
        if (value.is_string()) values.insert(value.get<std::string>());
    Operator parsed;
    if (op == "In") parsed = Operator::In;
    else if (op == "NotIn") parsed = Operator::NotIn;
    else if (op == "Exists") parsed = Operator::Exists;
    else if (op == "DoesNotExist") parsed = Operator::DoesNotExist;
    else throw SelectorError("\"" + op + "\" is not a valid label selector operator");
    selector.requirements_.push_back({stringField("key"), parsed, values});
  }
  return selector;
}

bool LabelSelector::matches(const std::map<std::string, std::string>& labels) const {
  for (const auto& requirement : requirements_) {
    const auto label = labels.find(requirement.key);
    const bool present = label != labels.end();
    const bool inSet = present && requirement.values.count(label->second) > 0;
    switch (requirement.op) {
      case Operator::Equals:
      case Operator::In:
        if (!inSet) return false;
        break;
      case Operator::NotEquals:
      case Operator::NotIn:
        if (inSet) return false;
        break;
      case Operator::Exists:
        if (!present) return false;
        break;
      case Operator::DoesNotExist:
        if (present) return false;
        break;
    }
  }
  return true;
}

FieldSelector FieldSelector::parse(const std::string& text) {
  FieldSelector selector;
  if (trim(text).empty()) return selector;
  for (const auto& term : splitEscaped(text)) {
    Requirement requirement;
    std::size_t at;
    std::size_t width;
    if ((at = findUnescaped(term, "!=")) != std::string::npos) {
      requirement.equals = false;
      width = 2;
    } else if ((at = findUnescaped(term, "==")) != std::string::npos) {
      requirement.equals = true;
      width = 2;
    } else if ((at = findUnescaped(term, "=")) != std::string::npos) {
      requirement.equals = true;
      width = 1;
    } else {
      throw SelectorError("invalid selector: '" + text + "'; can't understand '" + term + "'");
    }
    requirement.field = trim(term.substr(0, at));
    requirement.value = unescape(term.substr(at + width));
    if (requirement.field.empty()) throw SelectorError("invalid selector: '" + text + "'; empty field name");
    selector.requirements_.push_back(std::move(requirement));
  }
  return selector;
}

bool FieldSelector::matches(const std::function<std::optional<std::string>(const std::string&)>& fieldValue) const {
  for (const auto& requirement : requirements_) {
    const auto value = fieldValue(requirement.field);
    if (!value) return false;
    if ((*value == requirement.value) != requirement.equals) return false;
  }
  return true;
}

std::vector<std::string> FieldSelector::fields() const {
  std::vector<std::string> fields;
  for (const auto& requirement : requirements_) fields.push_back(requirement.field);
  return fields;
}

}  // namespace fedhpa::api::machinery
