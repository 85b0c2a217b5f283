#pragma once

// The parts of the `saturate._saturate` extension; module.cpp calls each once.
#include <pybind11/pybind11.h>

#include <string>

#include "eqsat/optimizer.h"

namespace saturate::python {

// The settings `optimize` and `optimize_onnx` share, as their keyword arguments name them;
// "greedy" means greedy DAG extraction, as the CLI says it.
eqsat::OptimizeOptions optimize_settings(size_t node_limit, size_t iter_limit, size_t k_multi,
                                         const std::string& extract, double ilp_time_limit,
                                         double time_limit);

void bind_graph(pybind11::module_& module);
void bind_optimize(pybind11::module_& module);
void bind_onnx(pybind11::module_& module);
void bind_pm(pybind11::module_& module);

}  // namespace saturate::python
