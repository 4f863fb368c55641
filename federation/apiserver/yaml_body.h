// YAML request bodies (application/yaml), as kube-apiserver accepts them: the YAML is turned into
// JSON text (sigs.k8s.io/yaml's YAMLToJSON) and then decoded like any JSON body, with the same
// depth, UTF-8 and type checks.
#pragma once

#include <string>

namespace fedhpa::apiserver {

// The JSON text of one YAML document. Throws ApiError (400) for YAML that does not parse, holds
// more than one document, nests deeper than JSON bodies may, has non-scalar keys, or expands (by
// aliases) into more than a bounded amount of text.
std::string yamlToJson(const std::string& yaml);

}  // namespace fedhpa::apiserver
