#include "eqsat/tensor_op.h"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "ir/attribute_text.h"
#include "support/error.h"
#include "support/hash.h"
#include "support/strings.h"

namespace saturate::eqsat {
namespace {

// Interning tables, process-wide like egraph::Symbol and guarded for use from several threads.
// References returned by at() stay valid while the table grows: values live behind pointers.
template <typename Value, typename Key>
class StableInternTable {
 public:
  uint32_t intern(const Value& value, const Key& key) {
    std::lock_guard lock(mutex_);
    auto [it, inserted] = ids_.emplace(key, static_cast<uint32_t>(values_.size()));
    if (inserted) values_.push_back(std::make_unique<Value>(value));
    return it->second;
  }
  const Value& at(uint32_t id) {
    std::lock_guard lock(mutex_);
    return *values_.at(id);
  }

 private:
  std::mutex mutex_;
  std::map<Key, uint32_t> ids_;
  std::vector<std::unique_ptr<Value>> values_;
};

using LeafKey = std::tuple<int, std::string, int, std::vector<int64_t>, double>;

StableInternTable<ir::AttrValue, ir::AttrValue>& attributes() {
  static StableInternTable<ir::AttrValue, ir::AttrValue> table;
  return table;
}

StableInternTable<LeafTensor, LeafKey>& leaves() {
  static StableInternTable<LeafTensor, LeafKey> table;
  return table;
}

uint16_t index_of(const LanguageOp& op) {
  const auto& ops = language_ops();
  return static_cast<uint16_t>(&op - ops.data());
}

}  // namespace

TensorOp TensorOp::of(const LanguageOp& op) {
  return {Kind::Operator, index_of(op), 0};
}

TensorOp TensorOp::attribute(const ir::AttrValue& value) {
  return {Kind::Attribute, 0, attributes().intern(value, value)};
}

TensorOp TensorOp::leaf(const LeafTensor& leaf) {
  LeafKey key{static_cast<int>(leaf.op), leaf.name, static_cast<int>(leaf.type.dtype),
              leaf.type.dims, leaf.value};
  return {Kind::Leaf, 0, leaves().intern(leaf, key)};
}

const LanguageOp& TensorOp::op() const {
  if (kind != Kind::Operator) throw Error("internal: TensorOp::op() on a non-operator label");
  return language_ops().at(language_op);
}

const ir::AttrValue& TensorOp::attribute_value() const {
  if (kind != Kind::Attribute)
    throw Error("internal: TensorOp::attribute_value() on " + to_string());
  return attributes().at(value);
}

const LeafTensor& TensorOp::leaf_tensor() const {
  if (kind != Kind::Leaf) throw Error("internal: TensorOp::leaf_tensor() on " + to_string());
  return leaves().at(value);
}

std::size_t TensorOp::hash() const {
  std::size_t seed = static_cast<std::size_t>(kind);
  hash_combine(seed, language_op);
  hash_combine(seed, value);
  return seed;
}

uint32_t TensorOp::index() const {
  auto operators = static_cast<uint32_t>(language_ops().size());
  switch (kind) {
    case Kind::Operator:
      return language_op;
    case Kind::Attribute:
      return operators;
    case Kind::Leaf:
      return operators + 1;
  }
  return operators + 2;
}

std::string TensorOp::to_string() const {
  switch (kind) {
    case Kind::Operator:
      return op().name;
    case Kind::Attribute: {
      const ir::AttrValue& v = attribute_value();
      if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
      if (const auto* list = std::get_if<std::vector<int64_t>>(&v)) {
        return "[" + join_ints(*list, " ") + "]";
      }
      if (const auto* d = std::get_if<double>(&v)) return format_double(*d);
      return std::get<std::string>(v);
    }
    case Kind::Leaf: {
      const LeafTensor& leaf = leaf_tensor();
      return std::string(ir::to_string(leaf.op)) + ":" + leaf.name + "@" + ir::to_string(leaf.type);
    }
  }
  return "?";
}

std::optional<TensorOp> TensorOp::parse(std::string_view text, std::size_t arity) {
  if (find_language_op(text) != nullptr) {
    if (const LanguageOp* op = find_language_op(text, arity)) return of(*op);
    return std::nullopt;
  }
  if (arity == 0) {
    if (auto value = parse_int(text)) return attribute(*value);
  }
  return std::nullopt;
}

}  // namespace saturate::eqsat
