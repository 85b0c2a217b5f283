"""ONNX Runtime's operators in the default ONNX domain, made known to the `onnx` package.

ONNX Runtime declares SimplifiedLayerNormalization (RMSNorm, which ``--target onnxruntime`` may
write) in the default domain rather than in com.microsoft, so ``onnx.checker.check_model``
rejects a model that uses it ("No Op registered for SimplifiedLayerNormalization"), as it does
the output of ``onnxruntime.transformers.optimizer``. ``register()`` adds ONNX Runtime's schema
to the running process's ONNX registry, after which the checker checks those nodes' inputs,
attributes and types like any other::

    import onnx, saturate.onnxruntime_schemas
    saturate.onnxruntime_schemas.register()
    onnx.checker.check_model(onnx.load("optimized.onnx"), full_check=True)

The C++ exporter registers the same schema with the ONNX library it links (one definition each
side: src/onnx/onnxruntime_schemas.cpp).
"""
from __future__ import annotations

_FLOATS = ["tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)"]


def _simplified_layer_normalization():
    import onnx
    from onnx.defs import OpSchema

    def attribute(name, value, doc):
        return OpSchema.Attribute(name, onnx.helper.make_attribute(name, value), doc)

    optional = OpSchema.FormalParameterOption.Optional
    return OpSchema(
        "SimplifiedLayerNormalization", "", 1,
        doc="ONNX Runtime's RMSNorm: X / sqrt(mean(X^2) + epsilon) * scale over the axes from "
            "axis to the last.",
        inputs=[OpSchema.FormalParameter("X", "T", "Input tensor."),
                OpSchema.FormalParameter("scale", "V", "Scale tensor.")],
        outputs=[OpSchema.FormalParameter("Y", "V", "Output tensor."),
                 OpSchema.FormalParameter("inv_std_var", "U", "Inverse root mean square.",
                                          param_option=optional)],
        type_constraints=[("T", _FLOATS, "Input element type."),
                          ("U", ["tensor(float)", "tensor(double)"], "Statistics element type."),
                          ("V", _FLOATS, "Output element type.")],
        attributes=[attribute("axis", -1, "The first normalized axis."),
                    attribute("epsilon", 1e-5, "Added to the mean square."),
                    attribute("stash_type", 1, "Element type of the statistics.")])


def register() -> None:
    """Registers the schemas once per process (a no-op when they are already known)."""
    from onnx import defs

    if not defs.has("SimplifiedLayerNormalization", ""):
        defs.register_schema(_simplified_layer_normalization())
