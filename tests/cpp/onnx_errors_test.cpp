// Import and export errors: one line, naming what is wrong; export writes nothing on error.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>

#include "ir/text_format.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "onnx_test_support.h"
#include "runtime/interpreter.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::onnx;
using onnx_testing::import_error;

namespace {

const char* kSmall = R"((graph small
    (node x (input :shape [2 4]))
    (node w (weight :shape [4 4]))
    (node y (matmul x w :activation relu))
    (output y y)))";

std::string small_model_bytes() {
  ir::Graph graph = ir::parse_text(kSmall);
  return export_onnx(graph, make_export_source(graph, onnx_testing::random_weights(graph, 1)));
}

::onnx::ModelProto small_model() {
  ::onnx::ModelProto model;
  model.ParseFromString(small_model_bytes());
  return model;
}

std::string bytes_of(const ::onnx::ModelProto& model) {
  return model.SerializeAsString();
}

}  // namespace

TEST(OnnxErrors, GarbageAndTruncatedBytes) {
  EXPECT_NE(import_error("this is not a protobuf at all \xff\xfe").find("not a valid ONNX model"),
            std::string::npos);
  std::string bytes = small_model_bytes();
  std::string message = import_error(bytes.substr(0, bytes.size() / 2));
  EXPECT_NE(message.find("m.onnx"), std::string::npos) << message;
}

TEST(OnnxErrors, UnsupportedOpset) {
  ::onnx::ModelProto model = small_model();
  model.mutable_opset_import(0)->set_version(9);
  EXPECT_NE(import_error(bytes_of(model)).find("opset 9 is not supported"), std::string::npos);
}

TEST(OnnxErrors, DynamicInputDimension) {
  ::onnx::ModelProto model = small_model();
  auto* dim = model.mutable_graph()
                  ->mutable_input(0)
                  ->mutable_type()
                  ->mutable_tensor_type()
                  ->mutable_shape()
                  ->mutable_dim(0);
  dim->set_dim_param("batch");
  std::string message = import_error(bytes_of(model));
  EXPECT_NE(message.find("dynamic input dimensions: x[batch,4]"), std::string::npos) << message;
  EXPECT_NE(message.find("--input-shape"), std::string::npos) << message;
}

TEST(OnnxErrors, MissingInitializerAndNonFloatInput) {
  ::onnx::ModelProto model = small_model();
  model.mutable_graph()->clear_initializer();
  EXPECT_NE(import_error(bytes_of(model)).find("unknown value name w"), std::string::npos);
  model = small_model();
  model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      ::onnx::TensorProto::INT64);
  EXPECT_NE(import_error(bytes_of(model)).find("INT64"), std::string::npos);
}

TEST(OnnxErrors, ExportWithoutWeightDataWritesNothing) {
  ir::Graph graph = ir::parse_text(kSmall);
  std::filesystem::path path = std::filesystem::temp_directory_path() / "saturate_no_weights.onnx";
  std::filesystem::remove(path);
  try {
    write_onnx(graph, make_export_source(graph, {}), path.string());
    ADD_FAILURE() << "expected an export error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("no data for weight 'w'"), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(OnnxErrors, WriteOnnxWritesACheckedFile) {
  ir::Graph graph = ir::parse_text(kSmall);
  std::filesystem::path path = std::filesystem::temp_directory_path() / "saturate_small.onnx";
  write_onnx(graph, make_export_source(graph, onnx_testing::random_weights(graph, 1)),
             path.string());
  OnnxModel back = import_onnx(path.string());
  EXPECT_EQ(back.graph.op_histogram(), (std::map<std::string, int>{{"matmul", 1}, {"relu", 1}}));
  EXPECT_EQ(back.opset, 17);
  std::filesystem::remove(path);
}
