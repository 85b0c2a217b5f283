#pragma once

// The parts of the `saturate._saturate` extension; module.cpp calls each once.
#include <pybind11/pybind11.h>

#include "driver/optimize_pipeline.h"

namespace saturate::python {

// driver::PipelineOptions from the keyword arguments of `optimize` and `optimize_onnx`, named
// as the command line names them (`node_limit` for --node-limit, `extract` for --extract,
// `rules` for --rules, ...); what is not given keeps the pipeline's default. An unknown name or
// a value of the wrong type is a TypeError. `input_shapes` ({"input_ids": [1, 128]}) goes to
// `input`.
driver::PipelineOptions pipeline_options(const pybind11::kwargs& options,
                                         driver::ModelInput& input);

// The pipeline's report as a Python dict.
pybind11::dict report_dict(const driver::PipelineResult& result);

void bind_graph(pybind11::module_& module);
void bind_optimize(pybind11::module_& module);
void bind_onnx(pybind11::module_& module);
void bind_pm(pybind11::module_& module);

}  // namespace saturate::python
