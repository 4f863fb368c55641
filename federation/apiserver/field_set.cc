#include "federation/apiserver/field_set.h"

#include <optional>
#include <stdexcept>

#include "federation/api/status.h"

namespace fedhpa::apiserver {

using api::Schema;
using nlohmann::json;

bool FieldSet::empty() const {
  if (member_) return false;
  for (const auto& [key, child] : children_)
    if (!child.empty()) return false;
  return true;
}

void FieldSet::insert(const FieldPath& path) {
  FieldSet* node = this;
  for (const auto& element : path) node = &node->children_[element];
  node->member_ = true;
}

bool FieldSet::has(const FieldPath& path) const {
  const FieldSet* node = this;
  for (const auto& element : path) {
    const auto it = node->children_.find(element);
    if (it == node->children_.end()) return false;
    node = &it->second;
  }
  return node->member_;
}

bool FieldSet::hasAtOrBelow(const FieldPath& path) const {
  const FieldSet* node = this;
  for (const auto& element : path) {
    const auto it = node->children_.find(element);
    if (it == node->children_.end()) return false;
    node = &it->second;
  }
  return !node->empty();
}

void FieldSet::prune() {
  for (auto it = children_.begin(); it != children_.end();) {
    it->second.prune();
    if (it->second.empty()) it = children_.erase(it);
    else ++it;
  }
}

FieldSet FieldSet::unite(const FieldSet& other) const {
  FieldSet out = *this;
  out.member_ = member_ || other.member_;
  for (const auto& [key, child] : other.children_) {
    const auto mine = out.children_.find(key);
    if (mine == out.children_.end()) out.children_.emplace(key, child);
    else mine->second = mine->second.unite(child);
  }
  out.prune();
  return out;
}

FieldSet FieldSet::minus(const FieldSet& other) const {
  FieldSet out;
  out.member_ = member_ && !other.member_;
  for (const auto& [key, child] : children_) {
    const auto theirs = other.children_.find(key);
    out.children_.emplace(key, theirs == other.children_.end() ? child : child.minus(theirs->second));
  }
  out.prune();
  return out;
}

FieldSet FieldSet::intersect(const FieldSet& other) const {
  FieldSet out;
  out.member_ = member_ && other.member_;
  for (const auto& [key, child] : children_) {
    const auto theirs = other.children_.find(key);
    if (theirs != other.children_.end()) out.children_.emplace(key, child.intersect(theirs->second));
  }
  out.prune();
  return out;
}

void FieldSet::collect(FieldPath& prefix, std::vector<FieldPath>& out) const {
  if (member_) out.push_back(prefix);
  for (const auto& [key, child] : children_) {
    prefix.push_back(key);
    child.collect(prefix, out);
    prefix.pop_back();
  }
}

std::vector<FieldPath> FieldSet::members() const {
  std::vector<FieldPath> out;
  FieldPath prefix;
  collect(prefix, out);
  return out;
}

bool FieldSet::operator==(const FieldSet& other) const {
  if (member_ != other.member_ || children_.size() != other.children_.size()) return false;
  for (auto a = children_.begin(), b = other.children_.begin(); a != children_.end(); ++a, ++b)
    if (a->first != b->first || !(a->second == b->second)) return false;
  return true;
}

json FieldSet::toFieldsV1() const {
  json out = json::object();
  if (member_ && !children_.empty()) out["."] = json::object();
  for (const auto& [key, child] : children_) out[key] = child.toFieldsV1();
  return out;
}

FieldSet FieldSet::fromFieldsV1(const json& fields) {
  if (!fields.is_object()) throw std::invalid_argument("fieldsV1: expected an object");
  FieldSet out;
  for (const auto& [key, value] : fields.items()) {
    if (key == ".") {
      if (!value.is_object() || !value.empty()) throw std::invalid_argument("fieldsV1: \".\" must be {}");
      out.member_ = true;
      continue;
    }
    const std::string kind = key.substr(0, 2);
    if (kind != "f:" && kind != "k:" && kind != "v:" && kind != "i:")
      throw std::invalid_argument("fieldsV1: unknown path element " + api::quoted(key));
    if (kind == "k:" && !json::accept(key.substr(2))) throw std::invalid_argument("fieldsV1: bad key " + api::quoted(key));
    FieldSet child = fromFieldsV1(value);
    if (value.empty()) child.member_ = true;
    out.children_.emplace(key, std::move(child));
  }
  return out;
}

std::string pathString(const FieldPath& path) {
  std::string out;
  for (const auto& element : path) {
    const std::string kind = element.substr(0, 2);
    const std::string rest = element.substr(2);
    if (kind == "f:") {
      out += "." + rest;
    } else if (kind == "k:") {
      const json key = json::parse(rest, nullptr, false);
      std::string inner;
      if (key.is_object())
        for (const auto& [field, value] : key.items())
          inner += (inner.empty() ? "" : ",") + field + "=" + value.dump(-1, ' ', false, json::error_handler_t::replace);
      out += "[" + inner + "]";
    } else if (kind == "v:") {
      out += "[=" + rest + "]";
    } else {
      out += "[" + rest + "]";
    }
  }
  return out;
}

namespace {

std::string compact(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

bool isKeyedList(const Schema* schema) {
  return schema && schema->type == Schema::Type::Array && (!schema->listMapKeys.empty() || schema->listSet);
}

// "k:{...}" or "v:..." for an item of a list-map or set; nullopt when the item cannot have one.
std::optional<std::string> itemKey(const json& item, const Schema& list) {
  if (list.listSet) {
    if (item.is_object() || item.is_array() || item.is_null()) return std::nullopt;
    return "v:" + compact(item);
  }
  if (!item.is_object()) return std::nullopt;
  json key = json::object();
  for (const auto& field : list.listMapKeys) {
    const auto it = item.find(field);
    if (it == item.end() || it->is_object() || it->is_array() || it->is_null()) return std::nullopt;
    key[field] = *it;
  }
  return "k:" + compact(key);
}

using KeyedItems = std::vector<std::pair<std::string, std::size_t>>;

// The items of a list-map or set by key, in list order; nullopt when one lacks its key or repeats
// one: such a list is then handled as an atomic value.
std::optional<KeyedItems> keyedItems(const json& list, const Schema& schema) {
  KeyedItems out;
  std::map<std::string, bool> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto key = itemKey(list[i], schema);
    if (!key || !seen.emplace(*key, true).second) return std::nullopt;
    out.emplace_back(std::move(*key), i);
  }
  return out;
}

// Of a list already known to be keyed (its shape is KeyedList).
KeyedItems keysOf(const json& list, const Schema& schema) { return keyedItems(list, schema).value_or(KeyedItems{}); }

enum class Shape { Leaf, Struct, Map, KeyedList };

Shape shapeOf(const json& value, const Schema* schema) {
  if (value.is_object()) {
    if (!schema || schema->type == Schema::Type::Any || schema->type == Schema::Type::Map) return Shape::Map;
    if (schema->type == Schema::Type::Object) return Shape::Struct;
    return Shape::Leaf;
  }
  if (value.is_array() && isKeyedList(schema) && keyedItems(value, *schema)) return Shape::KeyedList;
  return Shape::Leaf;
}

const Schema* childSchema(const Schema* schema, const std::string& key) {
  if (!schema) return nullptr;
  if (schema->type == Schema::Type::Object) {
    const auto it = schema->properties.find(key);
    return it == schema->properties.end() ? nullptr : &it->second;
  }
  if (schema->type == Schema::Type::Map) return &schema->element.front();
  return nullptr;
}

const Schema* itemSchema(const Schema* list) { return &list->element.front(); }

void addFields(const json& value, const Schema* schema, FieldPath& path, FieldSet& out) {
  const Shape shape = shapeOf(value, schema);
  if (shape == Shape::Leaf || value.empty()) {
    out.insert(path);
    return;
  }
  if (shape == Shape::KeyedList) {
    for (const auto& [key, index] : keysOf(value, *schema)) {
      path.push_back(key);
      out.insert(path);
      if (!schema->listSet) addFields(value[index], itemSchema(schema), path, out);
      path.pop_back();
    }
    return;
  }
  for (const auto& [key, child] : value.items()) {
    path.push_back("f:" + key);
    const Schema* field = childSchema(schema, key);
    addFields(child, field, path, out);
    // A map's entries are fields of their own; a struct's only when it does not declare them.
    if (shape == Shape::Map || !field) out.insert(path);
    path.pop_back();
  }
}

// Every node of value, containers included (kube-apiserver's comparison marks a whole added or
// removed subtree), except non-empty structs, which Go's typed objects always carry.
void addAllNodes(const json& value, const Schema* schema, FieldPath& path, FieldSet& out, bool listEntry = false) {
  const Shape shape = shapeOf(value, schema);
  if (listEntry || shape != Shape::Struct || value.empty()) out.insert(path);
  if (shape == Shape::KeyedList) {
    for (const auto& [key, index] : keysOf(value, *schema)) {
      path.push_back(key);
      addAllNodes(value[index], itemSchema(schema), path, out, true);
      path.pop_back();
    }
  } else if (shape == Shape::Struct || shape == Shape::Map) {
    for (const auto& [key, child] : value.items()) {
      path.push_back("f:" + key);
      addAllNodes(child, childSchema(schema, key), path, out);
      path.pop_back();
    }
  }
}

void compareAt(const json* before, const json* after, const Schema* schema, FieldPath& path, FieldComparison& out,
               bool listEntry = false) {
  if (!before && !after) return;
  if (!before) return addAllNodes(*after, schema, path, out.added, listEntry);
  if (!after) return addAllNodes(*before, schema, path, out.removed, listEntry);
  const Shape shape = shapeOf(*before, schema);
  if (shape != shapeOf(*after, schema) || shape == Shape::Leaf) {
    if (*before != *after) out.modified.insert(path);
    return;
  }
  if (shape == Shape::KeyedList) {
    std::map<std::string, std::pair<const json*, const json*>> items;
    for (const auto& [key, index] : keysOf(*before, *schema)) items[key].first = &(*before)[index];
    for (const auto& [key, index] : keysOf(*after, *schema)) items[key].second = &(*after)[index];
    for (const auto& [key, pair] : items) {
      path.push_back(key);
      if (!schema->listSet || !pair.first || !pair.second)
        compareAt(pair.first, pair.second, itemSchema(schema), path, out, true);
      path.pop_back();
    }
    return;
  }
  for (const auto& [key, child] : before->items()) {
    path.push_back("f:" + key);
    const auto other = after->find(key);
    compareAt(&child, other == after->end() ? nullptr : &*other, childSchema(schema, key), path, out);
    path.pop_back();
  }
  for (const auto& [key, child] : after->items()) {
    if (before->contains(key)) continue;
    path.push_back("f:" + key);
    compareAt(nullptr, &child, childSchema(schema, key), path, out);
    path.pop_back();
  }
}

}  // namespace

FieldSet fieldsOf(const json& value, const Schema* schema) {
  FieldSet out;
  FieldPath path;
  if (value.is_object() && value.empty()) return out;  // an empty object sets no field
  addFields(value, schema, path, out);
  return out;
}

FieldComparison compareFields(const json& before, const json& after, const Schema* schema) {
  FieldComparison out;
  FieldPath path;
  compareAt(&before, &after, schema, path, out);
  return out;
}

json mergeApplied(const json& live, const json& config, const Schema* schema) {
  const Shape shape = shapeOf(config, schema);
  if ((shape == Shape::Struct || shape == Shape::Map) && live.is_object()) {
    json out = live;
    for (const auto& [key, child] : config.items()) {
      if (child.is_null()) {
        out.erase(key);
        continue;
      }
      const auto current = live.find(key);
      out[key] = current == live.end() ? child : mergeApplied(*current, child, childSchema(schema, key));
    }
    return out;
  }
  if (shape == Shape::KeyedList && shapeOf(live, schema) == Shape::KeyedList) {
    json out = live;
    std::map<std::string, std::size_t> position;
    for (const auto& [key, index] : keysOf(live, *schema)) position[key] = index;
    for (const auto& [key, index] : keysOf(config, *schema)) {
      const auto found = position.find(key);
      if (found == position.end()) out.push_back(config[index]);
      else if (!schema->listSet) out[found->second] = mergeApplied(live[found->second], config[index], itemSchema(schema));
    }
    return out;
  }
  return config;
}

void removeField(json& value, const FieldPath& path) {
  json* node = &value;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const std::string kind = path[i].substr(0, 2);
    const std::string rest = path[i].substr(2);
    const bool last = i + 1 == path.size();
    if (kind == "f:") {
      if (!node->is_object()) return;
      const auto it = node->find(rest);
      if (it == node->end()) return;
      if (last) {
        node->erase(it);
        return;
      }
      node = &*it;
      continue;
    }
    if (!node->is_array()) return;
    std::optional<std::size_t> found;
    if (kind == "i:") {
      std::size_t index = 0;
      try {
        index = std::stoul(rest);
      } catch (const std::exception&) {
        return;
      }
      if (index < node->size()) found = index;
    } else {
      const json wanted = json::parse(rest, nullptr, false);
      if (wanted.is_discarded()) return;
      for (std::size_t j = 0; j < node->size() && !found; ++j) {
        const json& item = (*node)[j];
        if (kind == "v:") {
          if (item == wanted) found = j;
        } else if (kind == "k:" && wanted.is_object() && item.is_object()) {
          bool matches = true;
          for (const auto& [field, fieldValue] : wanted.items())
            matches = matches && item.contains(field) && item[field] == fieldValue;
          if (matches) found = j;
        }
      }
    }
    if (!found) return;
    if (last) {
      node->erase(*found);
      return;
    }
    node = &(*node)[*found];
  }
}

}  // namespace fedhpa::apiserver
