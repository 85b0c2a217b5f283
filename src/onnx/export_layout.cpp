// IR -> ONNX: layout and shape (Transpose, Enlarge, Pad, Concat, Split, Slice, Reshape; merge
// has no ONNX operator).
#include <string>
#include <vector>

#include "onnx/onnx_exporter.h"
#include "support/error.h"

namespace saturate::onnx {

using ir::NodeId;
using ir::OpKind;
using ::onnx::NodeProto;

bool Exporter::emit_layout(NodeId id) {
  const ir::Node& node = graph_.node(id);
  const ir::Attributes& attrs = node.attrs;
  const std::string& y = names_[id][0];
  auto in = [&](size_t k) { return name_of(node.inputs.at(k)); };
  switch (node.op) {
    case OpKind::Transpose: {
      NodeProto& t = add_node("Transpose", {in(0)}, {y});
      add_attr(t, "perm", attrs.get_ints("perm"));
      return true;
    }
    case OpKind::Enlarge: {
      const ir::Dims& k = dims(node.inputs[0]);
      const ir::Dims& out = node.outputs[0].dims;
      int64_t top = (out[2] - k[2]) / 2;
      int64_t left = (out[3] - k[3]) / 2;
      std::vector<int64_t> pads{0, 0, top, left, 0, 0, out[2] - k[2] - top, out[3] - k[3] - left};
      add_node("Pad", {in(0), ints_initializer(pads, y + "_pads")}, {y});
      return true;
    }
    case OpKind::Pad:
      add_node("Pad", {in(0), ints_initializer(attrs.get_ints("pads"), y + "_pads")}, {y});
      return true;
    case OpKind::Concat: {
      std::vector<std::string> inputs;
      for (size_t k = 0; k < node.inputs.size(); ++k) inputs.push_back(in(k));
      NodeProto& concat = add_node("Concat", inputs, {y});
      add_attr(concat, "axis", attrs.get_int("axis"));
      return true;
    }
    case OpKind::Split: {
      const auto& sizes = attrs.get_ints("sizes");
      std::vector<std::string> inputs{in(0)};
      if (opset_ >= 13) inputs.push_back(ints_initializer(sizes, y + "_sizes"));
      NodeProto& split = add_node("Split", inputs, names_[id]);
      add_attr(split, "axis", attrs.get_int("axis"));
      if (opset_ < 13) add_attr(split, "split", sizes);
      return true;
    }
    case OpKind::Merge:
      throw Error("node '" + node.name() +
                  "' (merge) reads a value that is not a weight: ONNX has no operator for it");
    case OpKind::Slice:
      emit_slice(in(0), attrs.get_int("axis"), attrs.get_int("start"), attrs.get_int("end"), y);
      return true;
    case OpKind::Reshape:
      add_node("Reshape", {in(0), ints_initializer(node.outputs[0].dims, y + "_shape")}, {y});
      return true;
    default:
      return false;
  }
}

void Exporter::emit_slice(const std::string& x, int64_t axis, int64_t start, int64_t end,
                          const std::string& y) {
  // Bounds as inputs (opset 10 on; export writes opset 11 or later).
  add_node("Slice",
           {x, ints_initializer({start}, y + "_starts"), ints_initializer({end}, y + "_ends"),
            ints_initializer({axis}, y + "_axes")},
           {y});
}

}  // namespace saturate::onnx
