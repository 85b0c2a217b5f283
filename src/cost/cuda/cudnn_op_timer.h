#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cost/cuda/timing_options.h"
#include "cost/op_timer.h"

namespace saturate::cost {

namespace gpu {
class GpuContext;
}

// Times operator configurations on an NVIDIA GPU with cuDNN and cuBLAS, the way TASO measures
// its operators: buffers allocated once per configuration, the conv algorithm chosen by
// cudnnFindConvolutionForwardAlgorithmEx, warm-up runs, then the median of CUDA-event-timed
// samples. f32 only. What runs for each operator is listed in docs/COST_MODEL.md ("GPU timing")
// and by gpu::cudnn_timing_method; supports() needs no device (gpu::cudnn_unsupported_reason).
//
//   auto timer = make_cudnn_timer();  // cudnn_timer_factory.h
//   std::vector<double> ms = timer->time_ms(configs);
class CudnnOpTimer : public OpTimer {
 public:
  // Creates a stream and cuDNN/cuBLAS handles on `device`. Throws saturate::Error when the
  // device cannot be used.
  explicit CudnnOpTimer(int device = 0, TimingOptions options = {});
  ~CudnnOpTimer() override;

  std::string backend() const override { return "cudnn"; }
  // "NVIDIA H100 80GB HBM3 sm_90 driver 12040 runtime 12040 cudnn 90100 cublas 120304 fp32".
  std::string fingerprint() const override { return fingerprint_; }
  bool supports(const OpConfig& config) const override;
  // Throws saturate::Error naming the configuration when one is unsupported or a call fails.
  std::vector<double> time_ms(const std::vector<OwnedOpConfig>& configs) override;
  // Timed samples behind each median (TimingOptions::samples); a sample may average several
  // back-to-back runs of a short kernel.
  int repeats() const override;

  // What time_ms ran for the last batch, one entry per configuration ("cudnnConvolutionForward
  // algo 1", ...), for reports.
  const std::vector<std::string>& last_methods() const { return last_methods_; }

 private:
  std::unique_ptr<gpu::GpuContext> context_;
  std::string fingerprint_;
  std::vector<std::string> last_methods_;
};

}  // namespace saturate::cost
