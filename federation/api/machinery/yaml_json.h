// YAML turned into JSON text, as sigs.k8s.io/yaml's YAMLToJSON does for Kubernetes: what the API
// server does with application/yaml bodies and what a kubeconfig file is read through. The YAML
// may be hostile (a request body, a kubeconfig stored in a Secret), so the parse is libyaml's
// event stream, bounded as it goes: nesting depth, the JSON it expands to (aliases can make a few
// bytes stand for exponentially many), and the text kept for anchors.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedhpa::api::machinery {

class YamlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct YamlLimits {
  std::size_t maxDepth;
  std::size_t maxJsonBytes;  // per document, and again for the text anchors keep

  // For untrusted YAML (a request body, a kubeconfig from a Secret): JSON bodies' nesting depth,
  // and JSON a few times the YAML's length (quotes and commas for indentation) plus 1 MiB;
  // anything beyond that is expansion by aliases, a "billion laughs".
  static YamlLimits forUntrusted(std::size_t yamlBytes);
};

// The JSON text of every document in the stream, in order. Plain scalars take YAML 1.1's implicit
// types as go-yaml resolves them (null, booleans with yes/no/on/off, integers, decimals); quoted
// or explicitly tagged scalars are strings. Throws YamlError for YAML that does not parse, a key
// that is not a scalar, or input beyond the limits.
std::vector<std::string> yamlToJsonDocuments(const std::string& yaml, const YamlLimits& limits);

}  // namespace fedhpa::api::machinery
