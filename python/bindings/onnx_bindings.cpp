// saturate.optimize for ONNX models: driver::run_pipeline on a path or on a model's bytes
// (python/saturate/onnx_api.py wraps the answer into an onnx.ModelProto).
#include <pybind11/stl.h>

#include <string>

#include "onnx/onnx_export.h"
#include "bindings.h"

namespace py = pybind11;

namespace saturate::python {

void bind_onnx(py::module_& module) {
  module.def(
      "optimize_onnx",
      [](const py::object& model, const std::string& source, const std::string& external_data_dir,
         const py::kwargs& kwargs) {
        driver::ModelInput input;
        if (py::isinstance<py::bytes>(model)) {
          input.onnx_bytes = model.cast<std::string>();
          input.spec = source;
          input.external_data_dir = external_data_dir;
        } else {
          input.spec = model.cast<std::string>();  // a .onnx path, read as the CLI reads it
        }
        const driver::PipelineOptions options = pipeline_options(kwargs, input);
        driver::PipelineResult result;
        std::string bytes;
        {
          py::gil_scoped_release release;  // measuring, exploration and ILP can take a while
          result = driver::run_pipeline(input, options);
          // Weights in external data were written to a file; the caller wants a ModelProto.
          bytes = !result.onnx_bytes.empty()
                      ? std::move(result.onnx_bytes)
                      : onnx::export_onnx(result.optimized, *result.onnx_source);
        }
        return py::make_tuple(py::bytes(bytes), report_dict(result));
      },
      py::arg("model"), py::arg("source") = "<bytes>", py::arg("external_data_dir") = "",
      "Optimizes an ONNX model (a .onnx path, or a serialized model with `source` naming it) as "
      "`saturate optimize` does, with its options as keyword arguments and its defaults. "
      "Returns (optimized model bytes, report dict).");
}

}  // namespace saturate::python
