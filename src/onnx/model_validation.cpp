#include "onnx/model_validation.h"

#include <cmath>
#include <set>
#include <unordered_map>

#include "ir/symbolic_dim.h"
#include "onnx/node_attributes.h"
#include "onnx/onnx_tensor_data.h"
#include "support/checked_math.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::onnx {
namespace {

using ::onnx::GraphProto;
using ::onnx::ModelProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

[[noreturn]] void node_error(const NodeProto& node, const std::string& message) {
  throw Error(describe(node) + ": " + message);
}

std::string ints_text(const std::vector<int64_t>& values) {
  return "[" + join_ints(values, " ") + "]";
}

// Each value of an INTS attribute in [minimum, kMaxElements]: no window, pad or size a model
// may hold is larger than the largest tensor Saturate carries.
void require_each_in_range(const NodeProto& node, const std::string& name, int64_t minimum,
                           const std::string& rule) {
  auto values = attr_ints(node, name);
  if (!values) return;
  for (int64_t v : *values) {
    if (v < minimum || v > ir::kMaxElements) {
      node_error(node, "attribute " + name + " " + ints_text(*values) + ": " + rule +
                           " (and at most 2^40), got " + std::to_string(v));
    }
  }
}

void require_int_in_range(const NodeProto& node, const std::string& name, int64_t minimum,
                          int64_t maximum, const std::string& rule) {
  const auto* attr = find_attr(node, name);
  if (attr == nullptr) return;
  if (attr->i() < minimum || attr->i() > maximum) {
    node_error(node, "attribute " + name + " = " + std::to_string(attr->i()) + ": " + rule);
  }
}

void require_length(const NodeProto& node, const std::string& name, size_t length,
                    const std::string& why) {
  auto values = attr_ints(node, name);
  if (values && values->size() != length) {
    node_error(node, "attribute " + name + " " + ints_text(*values) + " has " +
                         std::to_string(values->size()) + " values, expected " +
                         std::to_string(length) + " (" + why + ")");
  }
}

bool is_window_op(const std::string& op) {
  static const std::set<std::string> ops = {"Conv",          "ConvInteger", "QLinearConv",
                                            "ConvTranspose", "MaxPool",     "AveragePool",
                                            "LpPool",        "MaxUnpool",   "DeformConv"};
  return ops.contains(op);
}

bool is_pool_op(const std::string& op) {
  return op == "MaxPool" || op == "AveragePool" || op == "LpPool" || op == "MaxUnpool";
}

// Index of the weight input of a convolution (its rank gives the spatial rank).
std::optional<int> weight_input(const std::string& op) {
  if (op == "Conv" || op == "ConvInteger" || op == "ConvTranspose" || op == "DeformConv") return 1;
  if (op == "QLinearConv") return 3;
  return std::nullopt;
}

// Window attributes among themselves, and against `spatial` (the input's rank - 2) when known.
void check_window_attributes(const NodeProto& node, std::optional<size_t> spatial) {
  const std::string& op = node.op_type();
  require_each_in_range(node, "strides", 1, "each stride must be at least 1");
  require_each_in_range(node, "dilations", 1, "each dilation must be at least 1");
  require_each_in_range(node, "kernel_shape", 1, "each kernel size must be at least 1");
  require_each_in_range(node, "pads", 0, "pads must be non-negative");
  require_each_in_range(node, "output_padding", 0, "output padding must be non-negative");
  require_each_in_range(node, "output_shape", 1, "output sizes must be at least 1");
  require_int_in_range(node, "group", 1, ir::kMaxElements, "group must be at least 1");
  require_int_in_range(node, "offset_group", 1, ir::kMaxElements,
                       "offset_group must be at least 1");
  require_int_in_range(node, "ceil_mode", 0, 1, "ceil_mode must be 0 or 1");
  if (const auto* auto_pad = find_attr(node, "auto_pad")) {
    static const std::set<std::string> modes = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
    if (!modes.contains(auto_pad->s())) {
      node_error(node, "attribute auto_pad '" + auto_pad->s() +
                           "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    }
  }
  if (is_pool_op(op) && find_attr(node, "kernel_shape") == nullptr) {
    node_error(node, "attribute kernel_shape is missing (" + op + " needs it)");
  }
  // The spatial rank: the input's when known, else the first window attribute's length.
  std::string why = "one per spatial axis of the input";
  if (!spatial) {
    for (const char* name : {"kernel_shape", "strides", "dilations"}) {
      if (auto values = attr_ints(node, name)) {
        spatial = values->size();
        why = std::string("as many as ") + name + " has";
        break;
      }
    }
  }
  if (!spatial) {
    if (auto pads = attr_ints(node, "pads"); pads && pads->size() % 2 != 0) {
      node_error(node, "attribute pads " + ints_text(*pads) +
                           " has an odd number of values (a begin and an end per spatial axis)");
    }
    return;
  }
  for (const char* name :
       {"kernel_shape", "strides", "dilations", "output_padding", "output_shape"}) {
    require_length(node, name, *spatial, why);
  }
  require_length(node, "pads", 2 * *spatial, "a begin and an end per spatial axis");
}

void check_tensor_shape(const TensorProto& tensor, const std::string& what) {
  ir::Dims dims = tensor_dims(tensor);
  for (int64_t d : dims) {
    if (d < 0) throw Error(what + " has a negative dimension: " + ir::to_string(dims));
  }
  auto count = checked_product(dims);
  if (!count || *count > ir::kMaxElements) {
    throw Error(what + " has shape " + ir::to_string(dims) +
                ", more than 2^40 elements (the element count " +
                (count ? "is " + std::to_string(*count) : std::string("overflows int64")) + ")");
  }
}

// Integer constants of the graph (initializers and Constant nodes), for attribute-like inputs.
class GraphChecker {
 public:
  explicit GraphChecker(const GraphProto& graph) : graph_(graph) {
    for (const auto& info : graph.input()) {
      if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) continue;
      ranks_[info.name()] = static_cast<size_t>(info.type().tensor_type().shape().dim_size());
    }
    for (const auto& tensor : graph.initializer()) {
      ranks_[tensor.name()] = static_cast<size_t>(tensor.dims_size());
      if (tensor.data_type() == TensorProto::INT64 || tensor.data_type() == TensorProto::INT32) {
        ints_[tensor.name()] = &tensor;
      }
    }
  }

  // `outer`: the names the enclosing graphs define (a subgraph may read them).
  void run(bool top_level, const std::set<std::string>& outer = {}) {
    if (top_level) check_names();
    std::set<std::string> scope = outer;
    for (const auto& info : graph_.input()) scope.insert(info.name());
    for (const auto& tensor : graph_.initializer()) scope.insert(tensor.name());
    for (const auto& node : graph_.node()) {
      for (const auto& name : node.output()) scope.insert(name);
    }
    check_inputs_defined(scope);
    for (const auto& tensor : graph_.initializer()) {
      check_tensor_shape(tensor, "initializer " + tensor.name());
    }
    for (const auto& info : graph_.input()) check_input_shape(info);
    for (const auto& node : graph_.node()) {
      check_node(node);
      for (const auto* subgraph : subgraphs_of(node)) GraphChecker(*subgraph).run(false, scope);
    }
  }

 private:
  // ONNX's own shape inference dereferences a missing value (a SEGV in
  // ShapeInferenceImplBase::process, found by fuzz_onnx_import): every value a node or the graph
  // outputs name must be defined first.
  void check_inputs_defined(const std::set<std::string>& scope) const {
    for (const auto& node : graph_.node()) {
      for (const auto& name : node.input()) {
        if (!name.empty() && !scope.contains(name)) {
          node_error(node, "unknown value name " + name +
                               " (no graph input, initializer or node output defines it)");
        }
      }
    }
    for (const auto& output : graph_.output()) {
      if (!scope.contains(output.name())) {
        throw Error("unknown value name " + output.name() +
                    " (a graph output that no graph input, initializer or node output defines)");
      }
    }
  }

  void check_names() const {
    std::set<std::string> inputs;
    for (const auto& info : graph_.input()) {
      if (!inputs.insert(info.name()).second) {
        throw Error("graph input " + info.name() + " is declared twice");
      }
    }
    std::set<std::string> defined;
    for (const auto& tensor : graph_.initializer()) {
      if (!defined.insert(tensor.name()).second) {
        throw Error("initializer " + tensor.name() + " is defined twice");
      }
    }
    // An initializer may also be listed as a graph input (IR version < 4 style); a node output
    // may be neither, nor be defined twice.
    for (const auto& name : inputs) defined.insert(name);
    for (const auto& node : graph_.node()) {
      for (const auto& name : node.output()) {
        if (name.empty()) continue;
        if (!defined.insert(name).second) {
          std::string earlier = inputs.contains(name)   ? "a graph input"
                                : has_initializer(name) ? "an initializer"
                                                        : "an earlier node";
          node_error(node, "output " + name + " is already defined by " + earlier +
                               " (ONNX values are assigned once)");
        }
      }
    }
  }

  bool has_initializer(const std::string& name) const {
    for (const auto& tensor : graph_.initializer()) {
      if (tensor.name() == name) return true;
    }
    return false;
  }

  static void check_input_shape(const ::onnx::ValueInfoProto& info) {
    if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return;
    ir::Dims dims;
    for (const auto& dim : info.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_value()) return;  // dynamic: reported by the importer
      dims.push_back(dim.dim_value());
    }
    for (int64_t d : dims) {
      if (d <= 0) {
        throw Error("graph input " + info.name() + " has shape " + ir::to_string(dims) +
                    ": dimensions must be positive");
      }
    }
    auto count = checked_product(dims);
    if (!count || *count > ir::kMaxElements) {
      throw Error("graph input " + info.name() + " has shape " + ir::to_string(dims) +
                  ", more than 2^40 elements");
    }
  }

  std::optional<std::vector<int64_t>> constant_ints(const NodeProto& node, int index) const {
    if (index >= node.input_size()) return std::nullopt;
    auto it = ints_.find(node.input(index));
    if (it == ints_.end()) return std::nullopt;
    check_tensor_shape(*it->second, "initializer " + it->second->name());
    return read_ints(*it->second, "initializer " + it->second->name());
  }

  std::optional<size_t> rank_of(const NodeProto& node, int index) const {
    if (index >= node.input_size()) return std::nullopt;
    auto it = ranks_.find(node.input(index));
    if (it == ranks_.end()) return std::nullopt;
    return it->second;
  }

  void check_node(const NodeProto& node) {
    if (node.op_type() == "Constant") {
      if (const auto* value = find_attr(node, "value")) {
        check_tensor_shape(value->t(), describe(node) + ": attribute value");
        if (node.output_size() == 1 && (value->t().data_type() == TensorProto::INT64 ||
                                        value->t().data_type() == TensorProto::INT32)) {
          ints_[node.output(0)] = &value->t();
        }
      }
    }
    if (!is_default_domain(node.domain())) return;
    const std::string& op = node.op_type();
    if (is_window_op(op)) {
      std::optional<size_t> spatial;
      auto rank = rank_of(node, weight_input(op).value_or(0));
      if (!rank) rank = rank_of(node, 0);
      if (rank && *rank >= 2) spatial = *rank - 2;
      check_window_attributes(node, spatial);
    }
    if (op == "DepthToSpace" || op == "SpaceToDepth") {
      // ONNX's inference divides channels by blocksize^2.
      if (find_attr(node, "blocksize") == nullptr) {
        node_error(node, "attribute blocksize is missing");
      }
      require_int_in_range(node, "blocksize", 1, int64_t{1} << 20,
                           "blocksize must be between 1 and 2^20");
    }
    if (op == "MaxRoiPool") {
      require_each_in_range(node, "pooled_shape", 1, "each pooled size must be at least 1");
      require_length(node, "pooled_shape", 2, "height and width");
    }
    if (op == "RoiAlign") {
      require_int_in_range(node, "output_height", 1, ir::kMaxElements,
                           "output_height must be at least 1");
      require_int_in_range(node, "output_width", 1, ir::kMaxElements,
                           "output_width must be at least 1");
      require_int_in_range(node, "sampling_ratio", 0, ir::kMaxElements,
                           "sampling_ratio must be non-negative");
    }
    if (op == "Split") {
      // ONNX's inference divides the axis by the number of outputs.
      if (node.output_size() == 0) node_error(node, "Split has no outputs");
      require_int_in_range(node, "num_outputs", 1, ir::kMaxElements,
                           "num_outputs must be at least 1");
      require_each_in_range(node, "split", 0, "split sizes must be non-negative");
      if (auto sizes = constant_ints(node, 1)) {
        for (int64_t s : *sizes) {
          if (s < 0 || s > ir::kMaxElements) {
            node_error(node, "split sizes " + ints_text(*sizes) + " (input " + node.input(1) +
                                 ") must be non-negative, got " + std::to_string(s));
          }
        }
      }
    }
    if (op == "Reshape") {
      if (auto shape = constant_ints(node, 1)) {
        check_reshape_target(node, *shape, std::nullopt);
      }
    }
    if (op == "Resize" || op == "Upsample") {
      check_scales(node);
    }
  }

  void check_scales(const NodeProto& node) const {
    // ONNX's inference multiplies dims by the scales and casts to int64: each must be a finite,
    // positive, not absurd factor.
    int index = node.op_type() == "Resize" ? 2 : 1;
    if (index >= node.input_size()) return;
    for (const auto& tensor : graph_.initializer()) {
      if (tensor.name() != node.input(index) || tensor.data_type() != TensorProto::FLOAT) continue;
      check_tensor_shape(tensor, "initializer " + tensor.name());
      for (float scale : read_floats(tensor, "initializer " + tensor.name())) {
        if (!std::isfinite(scale) || scale <= 0 || scale > 1e6F) {
          node_error(node, "scales " + tensor.name() + " hold " + format_double(scale) +
                               ": each scale must be positive, finite and at most 1e6");
        }
      }
    }
  }

  const GraphProto& graph_;
  std::unordered_map<std::string, size_t> ranks_;
  std::unordered_map<std::string, const TensorProto*> ints_;

 public:
  // A Reshape target against ONNX's rules; `input` is the input's dims when known.
  static void check_reshape_target(const NodeProto& node, const std::vector<int64_t>& shape,
                                   const std::optional<ir::Dims>& input) {
    bool allow_zero = attr_int(node, "allowzero", 0) == 1;
    int inferred = 0;
    bool zero = false;
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t d = shape[i];
      if (d < -1) {
        node_error(node, "Reshape target " + ints_text(shape) + " holds " + std::to_string(d) +
                             ": dimensions must be -1 (inferred), 0 (copied) or positive");
      }
      if (d == -1 && ++inferred > 1) {
        node_error(node, "Reshape target " + ints_text(shape) +
                             " holds more than one -1 (only one dimension can be inferred)");
      }
      if (d == 0) {
        zero = true;
        if (!allow_zero && input && i >= input->size()) {
          node_error(node, "Reshape target " + ints_text(shape) + " copies dimension " +
                               std::to_string(i) + " (a 0) of input " + ir::to_string(*input) +
                               ", which has rank " + std::to_string(input->size()));
        }
      }
    }
    if (allow_zero && zero && inferred > 0) {
      node_error(node, "Reshape target " + ints_text(shape) +
                           " holds both 0 and -1 with allowzero = 1 (the -1 cannot be inferred)");
    }
    if (!input) return;
    ir::Dims resolved;
    for (size_t i = 0; i < shape.size(); ++i) {
      resolved.push_back(shape[i] == 0 && !allow_zero ? (*input)[i] : shape[i]);
    }
    auto total = checked_product(*input);
    int64_t known = 1;
    for (int64_t d : resolved) {
      if (d == -1) continue;
      auto next = checked_mul(known, d);
      if (!next || !total || (*total > 0 && *next > *total)) {
        node_error(node, "cannot reshape " + ir::to_string(*input) + " to " + ints_text(shape));
      }
      known = *next;
    }
    bool fits = inferred > 0 ? known > 0 && *total % known == 0 : known == *total;
    if (!fits) {
      node_error(node, "cannot reshape " + ir::to_string(*input) + " (" + std::to_string(*total) +
                           " elements) to " + ints_text(shape));
    }
  }
};

void check_axis(const NodeProto& node, const std::string& name, int64_t axis, int64_t rank,
                int64_t extra = 0) {
  if (axis < -rank - extra || axis >= rank + extra) {
    node_error(node, "attribute " + name + " = " + std::to_string(axis) +
                         " is out of range for an input of rank " + std::to_string(rank) +
                         " (it must be in [" + std::to_string(-rank - extra) + ", " +
                         std::to_string(rank + extra - 1) + "])");
  }
}

}  // namespace

void validate_model(const ModelProto& model, const std::string& source) {
  if (model.ir_version() > kMaxIrVersion) {
    throw Error(source + ": IR version " + std::to_string(model.ir_version()) +
                " is not supported (Saturate reads IR versions 3 to " +
                std::to_string(kMaxIrVersion) + ", opsets 11 to 21)");
  }
  try {
    GraphChecker(model.graph()).run(true);
  } catch (const Error& error) {
    throw Error(source + ": " + error.what());
  }
}

void validate_node_shapes(const NodeProto& node, const KnownValues& known) {
  if (!is_default_domain(node.domain())) return;
  const std::string& op = node.op_type();
  auto dims_of = [&](int index) -> std::optional<ir::Dims> {
    if (index >= node.input_size() || node.input(index).empty()) return std::nullopt;
    // These checks compute on sizes; a symbolic shape is checked by the IR's shape inference,
    // which decides its conditions for every size.
    auto dims = known.dims(node.input(index));
    if (dims && ir::has_symbolic(*dims)) return std::nullopt;
    return dims;
  };
  auto x = dims_of(0);
  if (is_window_op(op) && x && x->size() >= 2) {
    check_window_attributes(node, x->size() - 2);
  }
  if ((op == "Conv" || op == "ConvTranspose" || op == "ConvInteger" || op == "QLinearConv") && x) {
    auto w = dims_of(op == "QLinearConv" ? 3 : 1);
    int64_t group = attr_int(node, "group", 1);
    if (w && w->size() == x->size() && x->size() >= 3) {
      int64_t channels = (*x)[1];
      std::string shapes = " (input " + ir::to_string(*x) + ", weight " + ir::to_string(*w) + ")";
      if (op == "ConvTranspose") {
        if ((*w)[0] != channels || channels % group != 0) {
          node_error(node, "weight dimension 0 must equal the input's " + std::to_string(channels) +
                               " channels, divisible by group " + std::to_string(group) + shapes);
        }
      } else {
        if (channels % group != 0) {
          node_error(node, "attribute group = " + std::to_string(group) + " does not divide the " +
                               std::to_string(channels) + " input channels" + shapes);
        }
        if ((*w)[1] != channels / group) {
          node_error(node, "the weight has " + std::to_string((*w)[1]) +
                               " input channels per group, but the input's " +
                               std::to_string(channels) + " channels / group " +
                               std::to_string(group) + " = " + std::to_string(channels / group) +
                               shapes);
        }
        if ((*w)[0] % group != 0) {
          node_error(node, "attribute group = " + std::to_string(group) +
                               " does not divide the weight's " + std::to_string((*w)[0]) +
                               " output channels" + shapes);
        }
      }
    }
  }
  if (op == "BatchNormalization" && x && x->size() >= 2) {
    static const char* names[] = {"scale", "bias", "mean", "var"};
    for (int k = 1; k < 5; ++k) {
      auto p = dims_of(k);
      if (p && *p != ir::Dims{(*x)[1]}) {
        node_error(node, std::string(names[k - 1]) + " " + node.input(k) + " has shape " +
                             ir::to_string(*p) + ", expected [" + std::to_string((*x)[1]) +
                             "] (the channels of input " + ir::to_string(*x) + ")");
      }
    }
  }
  auto rank = x ? static_cast<int64_t>(x->size()) : int64_t{0};
  if ((op == "Concat" || op == "Gather" || op == "Softmax" || op == "LogSoftmax" ||
       op == "Hardmax" || op == "Split") &&
      x) {
    if (const auto* axis = find_attr(node, "axis")) check_axis(node, "axis", axis->i(), rank);
    if (op == "Concat" && find_attr(node, "axis") == nullptr) {
      node_error(node, "attribute axis is missing (Concat needs it)");
    }
  }
  if (op == "Flatten" && x) {
    if (const auto* axis = find_attr(node, "axis")) check_axis(node, "axis", axis->i(), rank, 1);
  }
  if (op == "Gather" && x && rank > 0 && node.input_size() > 1) {
    auto indices = known.ints(node.input(1));
    int64_t axis = attr_int(node, "axis", 0);
    int64_t size = (*x)[static_cast<size_t>(axis < 0 ? axis + rank : axis)];
    if (indices) {
      for (int64_t k : *indices) {
        if (k < -size || k >= size) {
          node_error(node, "index " + std::to_string(k) + " (indices " + node.input(1) +
                               ") is out of range for axis " + std::to_string(axis) + " of size " +
                               std::to_string(size) + " of input " + ir::to_string(*x));
        }
      }
    }
  }
  if (op == "Reshape" && x && node.input_size() > 1) {
    if (auto shape = known.ints(node.input(1))) {
      GraphChecker::check_reshape_target(node, *shape, x);
    }
  }
}

}  // namespace saturate::onnx
