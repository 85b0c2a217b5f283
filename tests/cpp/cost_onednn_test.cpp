// The oneDNN operator timer: what it supports, that it returns real positive times, and its
// fingerprint. (Times are never compared: they depend on the machine.)
#include <gtest/gtest.h>

#include <cmath>

#include "cost/onednn_op_timer.h"
#include "ir/op_registry.h"

using namespace saturate;
using namespace saturate::cost;

namespace {

OwnedOpConfig config_of(ir::OpKind op, std::vector<ir::TensorType> inputs,
                        ir::Attributes attrs = {}) {
  OwnedOpConfig config{op, ir::complete_attributes(ir::op_info(op), attrs), std::move(inputs), {}};
  config.outputs = ir::infer_types(op, config.inputs, config.attrs);
  return config;
}

ir::TensorType f32(ir::Dims dims) {
  return {ir::DType::F32, std::move(dims)};
}

}  // namespace

TEST(OnednnOpTimer, TimesSupportedConfigurations) {
  OnednnOpTimer timer({.threads = 1,
                       .warmup = 1,
                       .repeats = 3,
                       .min_sample_ms = 0.05,
                       .max_runs_per_sample = 10,
                       .seed = 0});
  const std::vector<OwnedOpConfig> configs = {
      config_of(ir::OpKind::Conv2d, {f32({1, 4, 8, 8}), f32({8, 4, 3, 3})},
                {{"activation", int64_t{2}}}),
      config_of(ir::OpKind::MatMul, {f32({4, 16}), f32({16, 8})}),
      config_of(ir::OpKind::Split, {f32({4, 6})},
                {{"axis", int64_t{1}}, {"sizes", std::vector<int64_t>{2, 4}}}),
      config_of(ir::OpKind::BatchNorm,
                {f32({1, 3, 4, 4}), f32({3}), f32({3}), f32({3}), f32({3})})};
  for (const OwnedOpConfig& config : configs) EXPECT_TRUE(timer.supports(config.view()));
  const std::vector<double> ms = timer.time_ms(configs);
  ASSERT_EQ(ms.size(), configs.size());
  for (double value : ms) EXPECT_TRUE(std::isfinite(value) && value >= 0) << value;
  EXPECT_EQ(timer.repeats(), 3);
}

TEST(OnednnOpTimer, LeavesReferenceKernelsToTheFallback) {
  OnednnOpTimer timer;
  EXPECT_FALSE(timer.supports(config_of(ir::OpKind::Pow, {f32({4}), f32({4})}).view()));
  EXPECT_FALSE(timer.supports(config_of(ir::OpKind::Erf, {f32({4})}).view()));
  EXPECT_FALSE(timer.supports(
      config_of(ir::OpKind::Noop, {f32({4}), f32({4})}).view()));  // never runs a kernel
}

TEST(OnednnOpTimer, FingerprintNamesMachineThreadsAndLibrary) {
  const std::string fingerprint = OnednnOpTimer({.threads = 3}).fingerprint();
  EXPECT_NE(fingerprint.find("cpu="), std::string::npos) << fingerprint;
  EXPECT_NE(fingerprint.find(";threads=3;"), std::string::npos) << fingerprint;
  EXPECT_NE(fingerprint.find(";onednn=2."), std::string::npos) << fingerprint;
  EXPECT_EQ(OnednnOpTimer().backend(), "onednn");
}
