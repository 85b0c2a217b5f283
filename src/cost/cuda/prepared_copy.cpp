// concat, split, transpose: timed as device-to-device memcpy of the bytes they move, one copy per
// part. A real transpose kernel strides through memory and a concat on an inner axis copies
// many small blocks, so these times are lower bounds: what moving the bytes costs at full
// bandwidth.
#include <string>
#include <vector>

#include "cost/cuda/cuda_status.h"
#include "cost/cuda/prepared_op.h"

namespace saturate::cost::gpu {
namespace {

struct Copy {
  void* destination;
  const void* source;
  size_t bytes;
};

class PreparedCopy : public PreparedOp {
 public:
  PreparedCopy(std::vector<Copy> copies, cudaStream_t stream)
      : copies_(std::move(copies)), stream_(stream) {}

  void run() override {
    for (const Copy& copy : copies_) {
      SATURATE_GPU_CHECK(cudaMemcpyAsync(copy.destination, copy.source, copy.bytes,
                                         cudaMemcpyDeviceToDevice, stream_));
    }
  }

  std::string method() const override {
    return "cudaMemcpyAsync x" + std::to_string(copies_.size());
  }

 private:
  std::vector<Copy> copies_;
  cudaStream_t stream_;
};

}  // namespace

std::unique_ptr<PreparedOp> prepare_copy(const OpConfig& config, GpuContext& context) {
  std::vector<Copy> copies;
  if (config.op == ir::OpKind::Split) {
    // Each output is a copy of its part of the input.
    char* input = reinterpret_cast<char*>(context.buffer(0, float_bytes(config.inputs[0].dims)));
    size_t offset = 0;
    for (size_t j = 0; j < config.outputs.size(); ++j) {
      const size_t bytes = float_bytes(config.outputs[j].dims);
      copies.push_back({context.buffer(kOutputSlot + j, bytes), input + offset, bytes});
      offset += bytes;
    }
  } else {
    // Each input lands in its part of the output (a transpose has one part).
    char* output =
        reinterpret_cast<char*>(context.buffer(kOutputSlot, float_bytes(config.outputs[0].dims)));
    size_t offset = 0;
    for (size_t i = 0; i < config.inputs.size(); ++i) {
      const size_t bytes = float_bytes(config.inputs[i].dims);
      copies.push_back({output + offset, context.buffer(i, bytes), bytes});
      offset += bytes;
    }
  }
  return std::make_unique<PreparedCopy>(std::move(copies), context.stream());
}

}  // namespace saturate::cost::gpu
