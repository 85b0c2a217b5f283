// ONNX Runtime's operators in the default ONNX domain, made known to the ONNX checker.
#pragma once

namespace saturate::onnx {

// ONNX Runtime defines SimplifiedLayerNormalization (RMSNorm) in the default domain, not in
// com.microsoft, so the stock ONNX checker rejects any model using it ("No Op registered").
// Registers ONNX Runtime's schema for it with the linked ONNX library, once per process, so that
// the exporter's check still checks the node's arity, attributes and types.
void register_onnxruntime_default_domain_schemas();

}  // namespace saturate::onnx
