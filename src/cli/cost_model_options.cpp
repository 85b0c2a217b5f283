#include "cli/cost_model_options.h"

namespace saturate::cli {

void add_cost_model_options(CLI::App* command, driver::CostModelOptions& options) {
  command
      ->add_option("--cost", options.kind,
                   "Cost model: analytic (roofline estimate) or a measured back end, each "
                   "distinct operator configuration timed and cached: onednn (the oneDNN "
                   "executor), onnxruntime (ONNX Runtime's CPU provider, through Python)"
#ifdef SATURATE_HAVE_CUDA
                   ", cudnn (cuDNN/cuBLAS on the GPU)"
#endif
                   )
      ->check(CLI::IsMember(driver::cost_model_kinds()))
      ->default_str("analytic; onnxruntime for an ONNX model in optimize");
  command->add_option("--cost-cache", options.cache_path,
                      "SQLite file of measured costs (default: $SATURATE_COST_CACHE or "
                      "~/.cache/saturate/costs.sqlite)");
  command->add_flag("--cache-busy-costs", options.cache_busy_costs,
                    "Cache costs timed while the machine is busy too. By default a calibration "
                    "kernel runs before and after each batch of timings, and a batch it ran "
                    "1.3x or more slower than quiet prices this run only");
}

}  // namespace saturate::cli
