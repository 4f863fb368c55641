#include "federation/apiserver/yaml_body.h"

#include <yaml-cpp/yaml.h>

#include <regex>

#include "federation/api/machinery/untrusted_json.h"
#include "federation/api/status.h"

namespace fedhpa::apiserver {

namespace {

// Aliases let a few bytes of YAML stand for exponentially many of JSON ("billion laughs"). Without
// aliases JSON is at most a few times longer than its YAML (quotes and commas for indentation).
std::size_t maxJsonBytes(std::size_t yamlBytes) { return 1024 * 1024 + 4 * yamlBytes; }

class Converter {
 public:
  explicit Converter(std::size_t limit) : limit_(limit) {}

  std::string run(const YAML::Node& root) {
    emit(root, 0);
    return std::move(out_);
  }

 private:
  void append(const std::string& text) {
    out_ += text;
    if (out_.size() > limit_)
      throw api::ApiError::badRequest("the YAML body of the request expands (by aliases) to more than " +
                                      std::to_string(limit_) + " bytes of JSON");
  }

  void emit(const YAML::Node& node, std::size_t depth) {
    if (depth > api::machinery::kMaxJsonDepth)
      throw api::ApiError::badRequest("the body of the request could not be decoded: nesting deeper than " +
                                      std::to_string(api::machinery::kMaxJsonDepth) + " levels");
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        return append("null");
      case YAML::NodeType::Scalar:
        return append(scalar(node));
      case YAML::NodeType::Sequence: {
        append("[");
        bool first = true;
        for (const auto& element : node) {
          if (!first) append(",");
          first = false;
          emit(element, depth + 1);
        }
        return append("]");
      }
      case YAML::NodeType::Map: {
        append("{");
        bool first = true;
        for (const auto& entry : node) {
          if (!entry.first.IsScalar())
            throw api::ApiError::badRequest("the YAML body of the request has a key that is not a string");
          if (!first) append(",");
          first = false;
          append(quote(entry.first.Scalar()) + ":");
          emit(entry.second, depth + 1);
        }
        return append("}");
      }
    }
  }

  // YAML 1.1's implicit types for plain scalars, as go-yaml (under sigs.k8s.io/yaml) resolves them;
  // quoted scalars are strings.
  static std::string scalar(const YAML::Node& node) {
    const std::string& text = node.Scalar();
    if (node.Tag() != "?") return quote(text);
    // Most scalars are plain words: only these first characters can start a null, bool or number.
    if (!text.empty() && std::string_view("~nNtTfFyYoO0123456789+-.").find(text.front()) == std::string_view::npos)
      return quote(text);
    static const std::regex nulls("~|null|Null|NULL|");
    static const std::regex trues("true|True|TRUE|yes|Yes|YES|on|On|ON|y|Y");
    static const std::regex falses("false|False|FALSE|no|No|NO|off|Off|OFF|n|N");
    static const std::regex integer("[-+]?(0|[1-9][0-9]*)");
    static const std::regex decimal("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
    if (std::regex_match(text, nulls)) return "null";
    if (std::regex_match(text, trues)) return "true";
    if (std::regex_match(text, falses)) return "false";
    if (text.size() <= 64 && (std::regex_match(text, integer) || std::regex_match(text, decimal))) {
      std::string number = text.front() == '+' ? text.substr(1) : text;
      // JSON wants a digit on both sides of the point.
      if (number.find('.') != std::string::npos) {
        const bool negative = number.front() == '-';
        std::string digits = negative ? number.substr(1) : number;
        if (digits.front() == '.') digits.insert(0, "0");
        const auto point = digits.find('.');
        if (point + 1 == digits.size() || !std::isdigit(static_cast<unsigned char>(digits[point + 1])))
          digits.insert(point + 1, "0");
        number = (negative ? "-" : "") + digits;
      }
      return number;
    }
    return quote(text);
  }

  static std::string quote(const std::string& text) { return api::machinery::dumpSafe(nlohmann::json(text)); }

  std::size_t limit_;
  std::string out_;
};

}  // namespace

std::string yamlToJson(const std::string& yaml) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(yaml);
  } catch (const YAML::Exception& error) {
    throw api::ApiError::badRequest(std::string("the body of the request could not be decoded: ") + error.what());
  }
  if (documents.size() != 1)
    throw api::ApiError::badRequest("the body of the request must hold exactly one YAML document, got " +
                                    std::to_string(documents.size()));
  return Converter(maxJsonBytes(yaml.size())).run(documents.front());
}

}  // namespace fedhpa::apiserver
