#pragma once

// The parts of the `saturate._saturate` extension; module.cpp calls each once.
#include <pybind11/pybind11.h>

namespace saturate::python {

void bind_graph(pybind11::module_& module);
void bind_optimize(pybind11::module_& module);
void bind_onnx(pybind11::module_& module);
void bind_pm(pybind11::module_& module);

}  // namespace saturate::python
