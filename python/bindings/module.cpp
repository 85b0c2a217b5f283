// saturate._saturate: the C++ library seen from Python. saturate::Error becomes ValueError with
// the same one-line message the CLI prints.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "support/error.h"

PYBIND11_MODULE(_saturate, module) {
  module.doc() = "Saturate's C++ core: graphs, models, equality saturation, PyPM rewriting.";
  pybind11::register_exception<saturate::Error>(module, "SaturateError", PyExc_ValueError);
  saturate::python::bind_graph(module);
  saturate::python::bind_optimize(module);
  saturate::python::bind_onnx(module);
  saturate::python::bind_pm(module);
}
