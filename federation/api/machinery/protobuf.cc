#include "federation/api/machinery/protobuf.h"

#include "federation/api/machinery/base64.h"
#include "federation/api/machinery/untrusted_json.h"

#include <cstdint>
#include <functional>
#include <map>

namespace fedhpa::api::machinery {

using nlohmann::json;

namespace {

// One protobuf message: a sequence of (field number, wire type, value). Every read is bounds-checked.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  bool done() const { return at_ >= data_.size(); }

  struct Field {
    std::uint32_t number;
    std::uint32_t wireType;
    std::uint64_t varint = 0;      // wire type 0
    std::string_view bytes;        // wire type 2
  };

  Field next() {
    const std::uint64_t key = varint();
    Field field{static_cast<std::uint32_t>(key >> 3), static_cast<std::uint32_t>(key & 7), 0, {}};
    switch (field.wireType) {
      case 0:
        field.varint = varint();
        break;
      case 1:
        skip(8);
        break;
      case 2: {
        const std::uint64_t length = varint();
        if (length > data_.size() - at_) throw ProtobufError("length-delimited field runs past the end of the message");
        field.bytes = data_.substr(at_, length);
        at_ += length;
        break;
      }
      case 5:
        skip(4);
        break;
      default:
        throw ProtobufError("unsupported wire type " + std::to_string(field.wireType));
    }
    return field;
  }

 private:
  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= data_.size()) throw ProtobufError("truncated varint");
      const auto byte = static_cast<std::uint8_t>(data_[at_++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
    throw ProtobufError("varint longer than 10 bytes");
  }
  void skip(std::size_t count) {
    if (count > data_.size() - at_) throw ProtobufError("fixed-width field runs past the end of the message");
    at_ += count;
  }

  std::string_view data_;
  std::size_t at_ = 0;
};

using FieldHandler = std::function<void(const WireReader::Field&)>;

void forEachField(std::string_view message, const FieldHandler& handle) {
  WireReader reader(message);
  while (!reader.done()) handle(reader.next());
}

std::string text(const WireReader::Field& field) {
  if (field.wireType != 2) throw ProtobufError("field " + std::to_string(field.number) + " should be a string");
  // Go's protobuf accepts any bytes here, but the object is JSON from now on, and JSON strings are UTF-8.
  if (!isValidUtf8(field.bytes)) throw ProtobufError("field " + std::to_string(field.number) + " is not valid UTF-8");
  return std::string(field.bytes);
}

std::int64_t integer(const WireReader::Field& field) {
  if (field.wireType != 0) throw ProtobufError("field " + std::to_string(field.number) + " should be a varint");
  return static_cast<std::int32_t>(field.varint);  // int32 fields; negatives are sign-extended
}

std::string_view message(const WireReader::Field& field) {
  if (field.wireType != 2) throw ProtobufError("field " + std::to_string(field.number) + " should be a message");
  return field.bytes;
}

// map<string,string> entries: {1 key, 2 value}
void mapEntry(std::string_view entry, json& into) {
  std::string key, value;
  forEachField(entry, [&](const auto& f) {
    if (f.number == 1) key = text(f);
    if (f.number == 2) value = text(f);
  });
  into[key] = value;
}

std::string quantity(std::string_view bytes) {
  std::string value;
  forEachField(bytes, [&](const auto& f) {
    if (f.number == 1) value = text(f);
  });
  return value;
}

json objectMeta(std::string_view bytes) {
  json meta = json::object();
  forEachField(bytes, [&](const auto& f) {
    switch (f.number) {
      case 1: if (!text(f).empty()) meta["name"] = text(f); break;
      case 2: if (!text(f).empty()) meta["generateName"] = text(f); break;
      case 3: if (!text(f).empty()) meta["namespace"] = text(f); break;
      case 5: if (!text(f).empty()) meta["uid"] = text(f); break;
      case 6: if (!text(f).empty()) meta["resourceVersion"] = text(f); break;
      case 11: mapEntry(message(f), meta["labels"]); break;
      case 12: mapEntry(message(f), meta["annotations"]); break;
      case 14: meta["finalizers"].push_back(text(f)); break;
      default: break;  // selfLink, generation, timestamps, managedFields: server-owned
    }
  });
  return meta;
}

json crossVersionObjectReference(std::string_view bytes) {
  json ref = json::object();
  forEachField(bytes, [&](const auto& f) {
    if (f.number == 1) ref["kind"] = text(f);
    if (f.number == 2) ref["name"] = text(f);
    if (f.number == 3) ref["apiVersion"] = text(f);
  });
  return ref;
}

json labelSelector(std::string_view bytes) {
  json selector = json::object();
  forEachField(bytes, [&](const auto& f) {
    if (f.number == 1) mapEntry(message(f), selector["matchLabels"]);
    if (f.number == 2) {
      json expression = json::object();
      forEachField(message(f), [&](const auto& g) {
        if (g.number == 1) expression["key"] = text(g);
        if (g.number == 2) expression["operator"] = text(g);
        if (g.number == 3) expression["values"].push_back(text(g));
      });
      selector["matchExpressions"].push_back(expression);
    }
  });
  return selector;
}

json metricTarget(std::string_view bytes) {
  json target = json::object();
  forEachField(bytes, [&](const auto& f) {
    if (f.number == 1) target["type"] = text(f);
    if (f.number == 2) target["value"] = quantity(message(f));
    if (f.number == 3) target["averageValue"] = quantity(message(f));
    if (f.number == 4) target["averageUtilization"] = integer(f);
  });
  return target;
}

json metricIdentifier(std::string_view bytes) {
  json metric = json::object();
  forEachField(bytes, [&](const auto& f) {
    if (f.number == 1) metric["name"] = text(f);
    if (f.number == 2) metric["selector"] = labelSelector(message(f));
  });
  return metric;
}

json metricSpec(std::string_view bytes) {
  json spec = json::object();
  forEachField(bytes, [&](const auto& f) {
    switch (f.number) {
      case 1: spec["type"] = text(f); break;
      case 2: {
        json object = json::object();
        forEachField(message(f), [&](const auto& g) {
          if (g.number == 1) object["describedObject"] = crossVersionObjectReference(message(g));
          if (g.number == 2) object["target"] = metricTarget(message(g));
          if (g.number == 3) object["metric"] = metricIdentifier(message(g));
        });
        spec["object"] = object;
        break;
      }
      case 3:
      case 5: {
        json source = json::object();
        forEachField(message(f), [&](const auto& g) {
          if (g.number == 1) source["metric"] = metricIdentifier(message(g));
          if (g.number == 2) source["target"] = metricTarget(message(g));
        });
        spec[f.number == 3 ? "pods" : "external"] = source;
        break;
      }
      case 4:
      case 7: {
        json source = json::object();
        forEachField(message(f), [&](const auto& g) {
          if (g.number == 1) source["name"] = text(g);
          if (g.number == 2) source["target"] = metricTarget(message(g));
          if (g.number == 3) source["container"] = text(g);
        });
        spec[f.number == 4 ? "resource" : "containerResource"] = source;
        break;
      }
      default: break;
    }
  });
  return spec;
}

json scalingRules(std::string_view bytes) {
  json rules = json::object();
  forEachField(bytes, [&](const auto& f) {
    if (f.number == 1) rules["stabilizationWindowSeconds"] = integer(f);
    if (f.number == 2) rules["selectPolicy"] = text(f);
    if (f.number == 3) {
      json policy = json::object();
      forEachField(message(f), [&](const auto& g) {
        if (g.number == 1) policy["type"] = text(g);
        if (g.number == 2) policy["value"] = integer(g);
        if (g.number == 3) policy["periodSeconds"] = integer(g);
      });
      rules["policies"].push_back(policy);
    }
    if (f.number == 4) rules["tolerance"] = quantity(message(f));
  });
  return rules;
}

json hpaSpec(std::string_view bytes, bool v2) {
  json spec = json::object();
  forEachField(bytes, [&](const auto& f) {
    switch (f.number) {
      case 1: spec["scaleTargetRef"] = crossVersionObjectReference(message(f)); break;
      case 2: spec["minReplicas"] = integer(f); break;
      case 3: spec["maxReplicas"] = integer(f); break;
      case 4:
        if (v2) spec["metrics"].push_back(metricSpec(message(f)));
        else spec["targetCPUUtilizationPercentage"] = integer(f);
        break;
      case 5:
        if (v2) {
          json behavior = json::object();
          forEachField(message(f), [&](const auto& g) {
            if (g.number == 1) behavior["scaleUp"] = scalingRules(message(g));
            if (g.number == 2) behavior["scaleDown"] = scalingRules(message(g));
          });
          spec["behavior"] = behavior;
        }
        break;
      default: break;
    }
  });
  return spec;
}

// core/v1 Secret: 1 metadata, 2 data (map<string, bytes>), 3 type, 4 stringData, 5 immutable.
void secretFields(std::string_view raw, json& object) {
  forEachField(raw, [&](const auto& f) {
    switch (f.number) {
      case 1: object["metadata"] = objectMeta(message(f)); break;
      case 2: {
        std::string key;
        std::string_view value;
        forEachField(message(f), [&](const auto& g) {
          if (g.number == 1) key = text(g);
          if (g.number == 2) value = message(g);
        });
        object["data"][key] = encodeBase64(value);
        break;
      }
      case 3: object["type"] = text(f); break;
      case 4: mapEntry(message(f), object["stringData"]); break;
      case 5: object["immutable"] = f.varint != 0; break;
      default: break;
    }
  });
}

// A message whose fields are all strings or repeated strings: {field number: JSON key}, repeated
// ones collected into arrays (PolicyRule, Subject, RoleRef, ResourceAttributes, ...).
json stringFields(std::string_view bytes, const std::map<std::uint32_t, std::string>& singles,
                  const std::map<std::uint32_t, std::string>& lists = {}) {
  json out = json::object();
  forEachField(bytes, [&](const auto& f) {
    if (const auto it = singles.find(f.number); it != singles.end()) out[it->second] = text(f);
    if (const auto it = lists.find(f.number); it != lists.end()) out[it->second].push_back(text(f));
  });
  return out;
}

// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding (kubectl create
// role/clusterrole/rolebinding/clusterrolebinding).
void rbacFields(std::string_view raw, const std::string& kind, json& object) {
  const bool binding = kind == "RoleBinding" || kind == "ClusterRoleBinding";
  forEachField(raw, [&](const auto& f) {
    if (f.number == 1) object["metadata"] = objectMeta(message(f));
    if (f.number == 2 && !binding)
      object["rules"].push_back(stringFields(message(f), {}, {{1, "verbs"}, {2, "apiGroups"}, {3, "resources"},
                                                              {4, "resourceNames"}, {5, "nonResourceURLs"}}));
    if (f.number == 2 && binding)
      object["subjects"].push_back(
          stringFields(message(f), {{1, "kind"}, {2, "apiGroup"}, {3, "name"}, {4, "namespace"}}));
    if (f.number == 3 && binding) object["roleRef"] = stringFields(message(f), {{1, "apiGroup"}, {2, "kind"}, {3, "name"}});
  });
}

// authorization.k8s.io/v1 reviews (kubectl auth can-i): the spec only; status is the server's answer.
void reviewFields(std::string_view raw, const std::string& kind, json& object) {
  const auto accessSpec = [](std::string_view bytes) {
    json spec = json::object();
    forEachField(bytes, [&](const auto& f) {
      switch (f.number) {
        case 1:
          spec["resourceAttributes"] = stringFields(message(f), {{1, "namespace"}, {2, "verb"}, {3, "group"}, {4, "version"},
                                                                 {5, "resource"}, {6, "subresource"}, {7, "name"}});
          break;
        case 2: spec["nonResourceAttributes"] = stringFields(message(f), {{1, "path"}, {2, "verb"}}); break;
        case 3: spec["user"] = text(f); break;
        case 4: spec["groups"].push_back(text(f)); break;
        case 5: {
          std::string key;
          json values = json::array();
          forEachField(message(f), [&](const auto& g) {
            if (g.number == 1) key = text(g);
            if (g.number == 2) values = stringFields(message(g), {}, {{1, "items"}}).value("items", json::array());
          });
          spec["extra"][key] = values;
          break;
        }
        case 6: spec["uid"] = text(f); break;
        default: break;
      }
    });
    return spec;
  };
  forEachField(raw, [&](const auto& f) {
    if (f.number == 1) object["metadata"] = objectMeta(message(f));
    if (f.number == 2)
      object["spec"] = kind == "SelfSubjectRulesReview" ? stringFields(message(f), {{1, "namespace"}}) : accessSpec(message(f));
  });
}

}  // namespace

json decodeKubernetesProtobuf(std::string_view body) {
  static constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) throw ProtobufError("the body does not start with the Kubernetes protobuf magic");
  std::string apiVersion, kind, contentEncoding;
  std::string_view raw;
  forEachField(body.substr(4), [&](const auto& f) {
    if (f.number == 1)
      forEachField(message(f), [&](const auto& g) {
        if (g.number == 1) apiVersion = text(g);
        if (g.number == 2) kind = text(g);
      });
    if (f.number == 2) raw = message(f);
    if (f.number == 3) contentEncoding = text(f);
  });
  if (!contentEncoding.empty()) throw ProtobufError("unsupported content encoding " + contentEncoding);
  json object = {{"apiVersion", apiVersion}, {"kind", kind}};
  // kubectl create secret / namespace send these through the typed client too.
  if (apiVersion == "v1" && kind == "Secret") {
    secretFields(raw, object);
    return object;
  }
  if (apiVersion == "v1" && kind == "Namespace") {
    forEachField(raw, [&](const auto& f) {
      if (f.number == 1) object["metadata"] = objectMeta(message(f));
    });
    return object;
  }
  if (apiVersion == "rbac.authorization.k8s.io/v1" &&
      (kind == "Role" || kind == "ClusterRole" || kind == "RoleBinding" || kind == "ClusterRoleBinding")) {
    rbacFields(raw, kind, object);
    return object;
  }
  if (apiVersion == "authorization.k8s.io/v1" &&
      (kind == "SelfSubjectAccessReview" || kind == "SelfSubjectRulesReview" || kind == "SubjectAccessReview" ||
       kind == "LocalSubjectAccessReview")) {
    reviewFields(raw, kind, object);
    return object;
  }
  if (kind != "HorizontalPodAutoscaler" || (apiVersion != "autoscaling/v1" && apiVersion != "autoscaling/v2"))
    throw ProtobufError("protobuf bodies are supported for HorizontalPodAutoscalers (autoscaling/v1, v2), Secrets, "
                        "Namespaces, RBAC objects and authorization reviews, not " + apiVersion + " " + kind);
  const bool v2 = apiVersion == "autoscaling/v2";
  forEachField(raw, [&](const auto& f) {
    if (f.number == 1) object["metadata"] = objectMeta(message(f));
    if (f.number == 2) object["spec"] = hpaSpec(message(f), v2);
    // field 3, status, is the server's to write
  });
  return object;
}

}  // namespace fedhpa::api::machinery
