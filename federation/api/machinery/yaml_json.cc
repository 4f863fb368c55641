#include "federation/api/machinery/yaml_json.h"

#include <yaml.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string_view>

#include "federation/api/machinery/untrusted_json.h"

namespace fedhpa::api::machinery {

namespace {

std::string quote(std::string_view text) { return dumpSafe(nlohmann::json(std::string(text))); }

// YAML 1.1's implicit types for plain scalars, as go-yaml (under sigs.k8s.io/yaml) resolves them.
std::string plainScalar(const std::string& text) {
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
    // Beyond a double's range go-yaml's float parse fails and the scalar stays a string.
    if (std::isinf(std::strtod(text.c_str(), nullptr))) return quote(text);
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

std::string_view view(const yaml_char_t* text, std::size_t length) {
  return {reinterpret_cast<const char*>(text), length};
}
std::optional<std::string> anchorOf(const yaml_char_t* anchor) {
  if (!anchor) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(anchor));
}

class Parser {
 public:
  explicit Parser(const std::string& yaml) {
    if (!yaml_parser_initialize(&parser_)) throw YamlError("the YAML parser could not start");
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(yaml.data()), yaml.size());
  }
  ~Parser() { yaml_parser_delete(&parser_); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  // The next event; the caller owns it (Event deletes it).
  void next(yaml_event_t& event) {
    if (yaml_parser_parse(&parser_, &event)) return;
    std::string message = parser_.problem ? parser_.problem : "invalid YAML";
    if (parser_.context) message = std::string(parser_.context) + ": " + message;
    throw YamlError(message + " at line " + std::to_string(parser_.problem_mark.line + 1) + ", column " +
                    std::to_string(parser_.problem_mark.column + 1));
  }

 private:
  yaml_parser_t parser_{};
};

class Event {
 public:
  explicit Event(Parser& parser) { parser.next(event_); }
  ~Event() { yaml_event_delete(&event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  const yaml_event_t& get() const { return event_; }

 private:
  yaml_event_t event_{};
};

// Writes one document's JSON as the parser's events come.
class DocumentWriter {
 public:
  DocumentWriter(const YamlLimits& limits, std::size_t& anchorBytes, std::map<std::string, std::string>& anchors)
      : limits_(limits), anchorBytes_(anchorBytes), anchors_(anchors) {}

  void scalar(const yaml_event_t& event) {
    const auto& data = event.data.scalar;
    const std::string text(view(data.value, data.length));
    // Quoted, block or explicitly tagged: a string. Plain: whatever YAML 1.1 makes of it.
    // A key is a string whatever it looks like (sigs.k8s.io/yaml turns `1:` and `true:` into "1" and "true").
    if (expectingKey()) return key(quote(text), anchorOf(data.anchor));
    const bool plain = data.style == YAML_PLAIN_SCALAR_STYLE && data.plain_implicit && !data.tag;
    value(plain ? plainScalar(text) : quote(text), anchorOf(data.anchor));
  }

  void alias(const yaml_event_t& event) {
    const std::string name(reinterpret_cast<const char*>(event.data.alias.anchor));
    const auto anchored = anchors_.find(name);
    if (anchored == anchors_.end()) throw YamlError("unknown anchor \"" + name + "\" referenced");
    if (expectingKey()) return key(anchored->second, std::nullopt);
    value(anchored->second, std::nullopt);
  }

  void open(char bracket, const yaml_char_t* anchor) {
    if (expectingKey()) throw YamlError("a mapping key that is not a string");
    separate();
    if (frames_.size() >= limits_.maxDepth)
      throw YamlError("nesting deeper than " + std::to_string(limits_.maxDepth) + " levels");
    frames_.push_back({bracket == '{', true, true, anchorOf(anchor), out_.size()});
    append(std::string(1, bracket));
  }

  void close() {
    if (frames_.empty()) throw YamlError("the end of a collection that did not start");
    const Frame frame = frames_.back();
    frames_.pop_back();
    append(frame.mapping ? "}" : "]");
    if (frame.anchor) remember(*frame.anchor, out_.substr(frame.start));
  }

  std::string take() { return out_.empty() ? "null" : std::move(out_); }

 private:
  struct Frame {
    bool mapping;
    bool first;
    bool expectingKey;  // mapping only
    std::optional<std::string> anchor;
    std::size_t start;  // where its text starts in out_
  };

  bool expectingKey() const { return !frames_.empty() && frames_.back().mapping && frames_.back().expectingKey; }

  // Before a value: a comma after an earlier element, and the mapping's next event is a key again.
  void separate() {
    if (frames_.empty()) return;
    Frame& frame = frames_.back();
    if (frame.mapping) {
      frame.expectingKey = true;
      return;
    }
    if (!frame.first) append(",");
    frame.first = false;
  }

  void key(const std::string& json, const std::optional<std::string>& anchor) {
    if (json.empty() || json.front() != '"') throw YamlError("a mapping key that is not a string: " + json.substr(0, 64));
    Frame& frame = frames_.back();
    if (!frame.first) append(",");
    frame.first = false;
    frame.expectingKey = false;
    append(json + ":");
    if (anchor) remember(*anchor, json);
  }

  void value(const std::string& json, const std::optional<std::string>& anchor) {
    separate();
    append(json);
    if (anchor) remember(*anchor, json);
  }

  void remember(const std::string& anchor, std::string json) {
    anchorBytes_ += json.size();
    if (anchorBytes_ > limits_.maxJsonBytes) throw tooLarge();
    anchors_[anchor] = std::move(json);
  }

  void append(const std::string& text) {
    out_ += text;
    if (out_.size() > limits_.maxJsonBytes) throw tooLarge();
  }

  YamlError tooLarge() const {
    return YamlError("the YAML expands (by aliases) to more than " + std::to_string(limits_.maxJsonBytes) + " bytes of JSON");
  }

  const YamlLimits& limits_;
  std::size_t& anchorBytes_;
  std::map<std::string, std::string>& anchors_;
  std::vector<Frame> frames_;
  std::string out_;
};

// libyaml only reports nodes between a document's start and end; this holds it to that.
DocumentWriter& inDocument(std::optional<DocumentWriter>& document) {
  if (!document) throw YamlError("a YAML node outside a document");
  return *document;
}

}  // namespace

YamlLimits YamlLimits::forUntrusted(std::size_t yamlBytes) { return {kMaxJsonDepth, 1024 * 1024 + 4 * yamlBytes}; }

std::vector<std::string> yamlToJsonDocuments(const std::string& yaml, const YamlLimits& limits) {
  Parser parser(yaml);
  std::vector<std::string> documents;
  std::optional<DocumentWriter> document;
  // An anchor names a node of its own document only.
  std::map<std::string, std::string> anchors;
  std::size_t anchorBytes = 0;
  for (;;) {
    Event event(parser);
    switch (event.get().type) {
      case YAML_STREAM_END_EVENT:
        return documents;
      case YAML_DOCUMENT_START_EVENT:
        anchors.clear();
        anchorBytes = 0;
        document.emplace(limits, anchorBytes, anchors);
        break;
      case YAML_DOCUMENT_END_EVENT:
        documents.push_back(inDocument(document).take());
        document.reset();
        break;
      case YAML_SCALAR_EVENT:
        inDocument(document).scalar(event.get());
        break;
      case YAML_ALIAS_EVENT:
        inDocument(document).alias(event.get());
        break;
      case YAML_SEQUENCE_START_EVENT:
        inDocument(document).open('[', event.get().data.sequence_start.anchor);
        break;
      case YAML_MAPPING_START_EVENT:
        inDocument(document).open('{', event.get().data.mapping_start.anchor);
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        inDocument(document).close();
        break;
      case YAML_STREAM_START_EVENT:
      case YAML_NO_EVENT:
        break;
    }
  }
}

}  // namespace fedhpa::api::machinery
