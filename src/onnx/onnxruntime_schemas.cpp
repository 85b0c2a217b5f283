#include "onnx/onnxruntime_schemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <mutex>

namespace saturate::onnx {

namespace {

// As ONNX Runtime declares it (onnxruntime/core/graph/contrib_ops/contrib_defs.cc).
::onnx::OpSchema simplified_layer_normalization() {
  using ::onnx::AttributeProto;
  using ::onnx::OpSchema;
  const std::vector<std::string> floats = {"tensor(float16)", "tensor(float)", "tensor(double)",
                                           "tensor(bfloat16)"};
  OpSchema schema("SimplifiedLayerNormalization", __FILE__, __LINE__);
  schema.SetDomain("")
      .SinceVersion(1)
      .SetDoc(
          "ONNX Runtime's RMSNorm: X / sqrt(mean(X^2) + epsilon) * scale over the axes from "
          "axis to the last.")
      .Attr("axis", "The first normalized axis.", AttributeProto::INT, static_cast<int64_t>(-1))
      .Attr("epsilon", "Added to the mean square.", AttributeProto::FLOAT, 1e-5f)
      .Attr("stash_type", "Element type of the statistics.", AttributeProto::INT,
            static_cast<int64_t>(1))
      .Input(0, "X", "Input tensor.", "T")
      .Input(1, "scale", "Scale tensor.", "V")
      .Output(0, "Y", "Output tensor.", "V")
      .Output(1, "inv_std_var", "Inverse root mean square.", "U", OpSchema::Optional)
      .TypeConstraint("T", floats, "Input element type.")
      .TypeConstraint("U", {"tensor(float)", "tensor(double)"}, "Statistics element type.")
      .TypeConstraint("V", floats, "Output element type.")
      .TypeAndShapeInferenceFunction([](::onnx::InferenceContext& context) {
        ::onnx::propagateElemTypeFromInputToOutput(context, 1, 0);
        if (::onnx::hasInputShape(context, 0)) {
          ::onnx::propagateShapeFromInputToOutput(context, 0, 0);
        }
      });
  return schema;
}

}  // namespace

void register_onnxruntime_default_domain_schemas() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (::onnx::OpSchemaRegistry::Schema("SimplifiedLayerNormalization", 1, "") != nullptr) return;
    ::onnx::RegisterSchema(simplified_layer_normalization());
  });
}

}  // namespace saturate::onnx
