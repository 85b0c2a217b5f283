#pragma once

// Builds small ONNX models by hand for the import tests: inputs, initializers, nodes, outputs.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace saturate::onnx::onnx_testing {

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 17) {
    model_.set_ir_version(8);
    auto* entry = model_.add_opset_import();
    entry->set_domain("");
    entry->set_version(opset);
    model_.mutable_graph()->set_name("built");
  }

  // dims may hold -1 for a symbolic dimension named `symbol`.
  ModelBuilder& input(const std::string& name, int32_t elem_type, const std::vector<int64_t>& dims,
                      const std::string& symbol = "n") {
    set_type(*model_.mutable_graph()->add_input(), name, elem_type, dims, symbol);
    return *this;
  }
  // Each dim a number ("16") or a dim_param name ("batch").
  ModelBuilder& dynamic_input(const std::string& name, int32_t elem_type,
                              const std::vector<std::string>& dims) {
    auto* info = model_.mutable_graph()->add_input();
    info->set_name(name);
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(elem_type);
    auto* shape = tensor->mutable_shape();
    for (const auto& d : dims) {
      if (!d.empty() && d.find_first_not_of("0123456789") == std::string::npos) {
        shape->add_dim()->set_dim_value(std::stoll(d));
      } else {
        shape->add_dim()->set_dim_param(d);
      }
    }
    return *this;
  }
  ModelBuilder& output(const std::string& name, int32_t elem_type) {
    auto* info = model_.mutable_graph()->add_output();
    info->set_name(name);
    info->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
    return *this;
  }
  ModelBuilder& ints(const std::string& name, const std::vector<int64_t>& dims,
                     const std::vector<int64_t>& values) {
    auto* tensor = initializer(name, ::onnx::TensorProto::INT64, dims);
    for (int64_t v : values) tensor->add_int64_data(v);
    return *this;
  }
  ModelBuilder& floats(const std::string& name, const std::vector<int64_t>& dims,
                       const std::vector<float>& values) {
    auto* tensor = initializer(name, ::onnx::TensorProto::FLOAT, dims);
    for (float v : values) tensor->add_float_data(v);
    return *this;
  }
  // A float initializer of `dims` with values 0.01 * (k % 97) - 0.5.
  ModelBuilder& weights(const std::string& name, const std::vector<int64_t>& dims) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    std::vector<float> values;
    for (int64_t k = 0; k < count; ++k) values.push_back(0.01F * static_cast<float>(k % 97) - 0.5F);
    return floats(name, dims, values);
  }
  ::onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs) {
    auto* node = model_.mutable_graph()->add_node();
    node->set_op_type(op);
    node->set_name(outputs.empty() ? op : outputs[0] + "_node");
    for (const auto& name : inputs) node->add_input(name);
    for (const auto& name : outputs) node->add_output(name);
    return *node;
  }
  static void attr(::onnx::NodeProto& node, const std::string& name, int64_t value) {
    auto* attr = node.add_attribute();
    attr->set_name(name);
    attr->set_type(::onnx::AttributeProto::INT);
    attr->set_i(value);
  }
  static void attr(::onnx::NodeProto& node, const std::string& name,
                   const std::vector<int64_t>& values) {
    auto* attr = node.add_attribute();
    attr->set_name(name);
    attr->set_type(::onnx::AttributeProto::INTS);
    for (int64_t v : values) attr->add_ints(v);
  }
  static void attr(::onnx::NodeProto& node, const std::string& name,
                   const ::onnx::TensorProto& value) {
    auto* attr = node.add_attribute();
    attr->set_name(name);
    attr->set_type(::onnx::AttributeProto::TENSOR);
    *attr->mutable_t() = value;
  }

  ::onnx::ModelProto& model() { return model_; }
  std::string bytes() const { return model_.SerializeAsString(); }

 private:
  ::onnx::TensorProto* initializer(const std::string& name, int32_t elem_type,
                                   const std::vector<int64_t>& dims) {
    auto* tensor = model_.mutable_graph()->add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(elem_type);
    for (int64_t d : dims) tensor->add_dims(d);
    return tensor;
  }
  static void set_type(::onnx::ValueInfoProto& info, const std::string& name, int32_t elem_type,
                       const std::vector<int64_t>& dims, const std::string& symbol) {
    info.set_name(name);
    auto* tensor = info.mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(elem_type);
    auto* shape = tensor->mutable_shape();
    for (int64_t d : dims) {
      if (d < 0) {
        shape->add_dim()->set_dim_param(symbol);
      } else {
        shape->add_dim()->set_dim_value(d);
      }
    }
  }

  ::onnx::ModelProto model_;
};

}  // namespace saturate::onnx::onnx_testing
