// The cuDNN/cuBLAS operator timer: what it supports and how configurations become cuDNN
// parameters (no device needed), then timing on a GPU (skipped where none is visible).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cost/cuda/cudnn_op_support.h"
#include "cost/cuda/cudnn_op_timer.h"
#include "cost/cuda/cudnn_timer_factory.h"
#include "cost/cuda/gemm_plan.h"
#include "cost/cuda/op_tensor_plan.h"
#include "cost/cuda/tensor_layouts.h"
#include "cost/cuda/window_geometry.h"
#include "ir/op_registry.h"
#include "support/error.h"

using namespace saturate::ir;
using namespace saturate::cost;
using namespace saturate::cost::gpu;

namespace {

TensorType f32(Dims dims) {
  return {DType::F32, std::move(dims)};
}

// A configuration with complete attributes and inferred outputs, as a graph node has them.
OwnedOpConfig config(OpKind op, std::vector<TensorType> inputs, const Attributes& given = {}) {
  Attributes attrs = complete_attributes(op_info(op), given);
  std::vector<TensorType> outputs = infer_types(op, inputs, attrs);
  return {op, attrs, std::move(inputs), std::move(outputs)};
}

Attributes conv_attrs(int64_t stride, Padding padding, Activation activation = Activation::None) {
  return {{"stride_h", stride},
          {"stride_w", stride},
          {"padding", static_cast<int64_t>(padding)},
          {"activation", static_cast<int64_t>(activation)}};
}

Attributes pool_attrs(int64_t kernel, int64_t stride, Padding padding) {
  return {{"kernel_h", kernel},
          {"kernel_w", kernel},
          {"stride_h", stride},
          {"stride_w", stride},
          {"padding", static_cast<int64_t>(padding)}};
}

bool supported(const OwnedOpConfig& c) {
  return !cudnn_unsupported_reason(c.view()).has_value();
}

}  // namespace

// --- Padding and window geometry ---------------------------------------------------------------

TEST(CudnnWindow, SamePaddingPutsTheOddElementAtTheEnd) {
  // 224, kernel 3, stride 2: output 112, (112 - 1) * 2 + 3 - 224 = 1 element of padding, after.
  AxisPadding p = window_padding(224, 3, 2, Padding::Same);
  EXPECT_EQ(p.before, 0);
  EXPECT_EQ(p.after, 1);
  // 56, kernel 3, stride 1: one on each side.
  p = window_padding(56, 3, 1, Padding::Same);
  EXPECT_EQ(p.before, 1);
  EXPECT_EQ(p.after, 1);
  // Kernel 1 never pads; VALID never pads.
  EXPECT_EQ(window_padding(7, 1, 2, Padding::Same).after, 0);
  EXPECT_EQ(window_padding(56, 3, 1, Padding::Valid).before, 0);
  EXPECT_EQ(window_padding(56, 3, 1, Padding::Valid).after, 0);
}

TEST(CudnnWindow, SymmetricSamePaddingIsLeftToCudnn) {
  auto c = config(OpKind::Conv2d, {f32({1, 64, 56, 56}), f32({64, 64, 3, 3})},
                  conv_attrs(1, Padding::Same));
  WindowGeometry g = conv_geometry(c.view());
  EXPECT_FALSE(g.explicit_padding);
  EXPECT_EQ(g.pad_h, 1);
  EXPECT_EQ(g.pad_w, 1);
  EXPECT_EQ(g.input, (Dims{1, 64, 56, 56}));
  EXPECT_EQ(g.output, c.outputs[0].dims);
}

TEST(CudnnWindow, AsymmetricSamePaddingPrePadsTheInput) {
  // Inception's stem: 3x3 stride 2 SAME on 299 is symmetric (total 2), on 224 it is not.
  auto c = config(OpKind::Conv2d, {f32({1, 3, 224, 224}), f32({32, 3, 3, 3})},
                  conv_attrs(2, Padding::Same));
  WindowGeometry g = conv_geometry(c.view());
  EXPECT_TRUE(g.explicit_padding);
  EXPECT_EQ(g.rows.before, 0);
  EXPECT_EQ(g.rows.after, 1);
  EXPECT_EQ(g.pad_h, 0);
  EXPECT_EQ(g.pad_w, 0);
  EXPECT_EQ(g.input, (Dims{1, 3, 225, 225}));
  EXPECT_EQ(g.output, (Dims{1, 32, 112, 112}));
  EXPECT_EQ(g.output, c.outputs[0].dims);

  auto symmetric = config(OpKind::Conv2d, {f32({1, 3, 299, 299}), f32({32, 3, 3, 3})},
                          conv_attrs(2, Padding::Same));
  EXPECT_FALSE(conv_geometry(symmetric.view()).explicit_padding);
}

TEST(CudnnWindow, OnlyTheAsymmetricAxisIsPrePadded) {
  // A 2x7 kernel: one row of padding (after), three columns on each side.
  auto c = config(OpKind::Conv2d, {f32({1, 8, 16, 17}), f32({8, 8, 2, 7})},
                  conv_attrs(1, Padding::Same));
  WindowGeometry g = conv_geometry(c.view());
  EXPECT_TRUE(g.explicit_padding);
  EXPECT_EQ(g.input, (Dims{1, 8, 17, 17}));
  EXPECT_EQ(g.pad_h, 0);
  EXPECT_EQ(g.pad_w, 3);
  EXPECT_EQ(g.output, c.outputs[0].dims);
}

TEST(CudnnWindow, CudnnOutputMatchesTheIrForEveryWindow) {
  // cuDNN's formula on the translated geometry gives the IR's shape inference, both paddings.
  for (int64_t size : {1, 2, 5, 7, 8, 17, 32, 35, 56, 147, 224, 299}) {
    for (int64_t kernel : {1, 2, 3, 5, 7}) {
      for (int64_t stride : {1, 2, 3, 4}) {
        for (Padding padding : {Padding::Same, Padding::Valid}) {
          if (padding == Padding::Valid && kernel > size) continue;
          auto c = config(OpKind::PoolMax, {f32({1, 2, size, size})},
                          pool_attrs(kernel, stride, padding));
          WindowGeometry g = pool_geometry(c.view());
          EXPECT_EQ(g.output, c.outputs[0].dims)
              << "size " << size << " kernel " << kernel << " stride " << stride;
          EXPECT_EQ(cudnn_output_size(g.input[2], kernel, stride, g.pad_h), c.outputs[0].dims[2]);
          EXPECT_LT(g.pad_h, kernel);  // cuDNN rejects padding as wide as the window
          EXPECT_EQ(g.rows.before + g.rows.after,
                    padding == Padding::Same
                        ? std::max<int64_t>((c.outputs[0].dims[2] - 1) * stride + kernel - size, 0)
                        : 0);
        }
      }
    }
  }
}

TEST(CudnnWindow, GroupsComeFromTheWeight) {
  auto grouped = config(OpKind::Conv2d, {f32({1, 128, 28, 28}), f32({128, 4, 3, 3})},
                        conv_attrs(1, Padding::Same));
  EXPECT_EQ(conv_groups(grouped.view()), 32);
  auto depthwise = config(OpKind::Conv2d, {f32({1, 32, 28, 28}), f32({32, 1, 3, 3})},
                          conv_attrs(1, Padding::Same));
  EXPECT_EQ(conv_groups(depthwise.view()), 32);
  auto dense = config(OpKind::Conv2d, {f32({1, 32, 28, 28}), f32({64, 32, 1, 1})},
                      conv_attrs(1, Padding::Valid));
  EXPECT_EQ(conv_groups(dense.view()), 1);
}

// --- GEMM plans ----------------------------------------------------------------------------------

TEST(CudnnGemmPlan, PlainMatrixProduct) {
  auto plan = plan_gemm({64, 1024}, {1024, 4096});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->m, 64);
  EXPECT_EQ(plan->k, 1024);
  EXPECT_EQ(plan->n, 4096);
  EXPECT_EQ(plan->batch, 1);
}

TEST(CudnnGemmPlan, SharedRightOperandFoldsTheBatchIntoRows) {
  auto plan = plan_gemm({8, 128, 512}, {512, 512});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->m, 8 * 128);
  EXPECT_EQ(plan->batch, 1);
}

TEST(CudnnGemmPlan, EqualBatchesAreStrided) {
  auto plan = plan_gemm({2, 8, 128, 64}, {2, 8, 64, 128});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->batch, 16);
  EXPECT_EQ(plan->stride_a, 128 * 64);
  EXPECT_EQ(plan->stride_b, 64 * 128);
  EXPECT_EQ(plan->stride_c, 128 * 128);
}

TEST(CudnnGemmPlan, SharedLeftOperandHasStrideZero) {
  auto plan = plan_gemm({1, 16, 32}, {4, 32, 8});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->batch, 4);
  EXPECT_EQ(plan->stride_a, 0);
  EXPECT_EQ(plan->stride_b, 32 * 8);
}

TEST(CudnnGemmPlan, CrossBroadcastIsNotSimple) {
  EXPECT_FALSE(plan_gemm({4, 1, 16, 32}, {1, 3, 32, 8}));
  EXPECT_FALSE(plan_gemm({2, 3, 16, 32}, {3, 32, 8}));  // b repeats along a's first axis
  EXPECT_FALSE(plan_gemm({16, 32}, {31, 8}));
}

// --- cudnnOpTensor plans -------------------------------------------------------------------------

TEST(CudnnOpTensorPlan, EqualShapesMergeIntoOneAxis) {
  auto plan = plan_op_tensor({64, 128, 7}, {64, 128, 7}, {64, 128, 7});
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->swap_operands);
  EXPECT_EQ(plan->full, (Dims{1, 1, 1, 64 * 128 * 7}));
  EXPECT_EQ(plan->broadcast, plan->full);
}

TEST(CudnnOpTensorPlan, BiasBroadcastKeepsItsAxis) {
  auto plan = plan_op_tensor({64, 128, 1024}, {1024}, {64, 128, 1024});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->full, (Dims{1, 1, 64 * 128, 1024}));
  EXPECT_EQ(plan->broadcast, (Dims{1, 1, 1, 1024}));
}

TEST(CudnnOpTensorPlan, ChannelBroadcastAndSwappedOperands) {
  auto plan = plan_op_tensor({1, 64, 1, 1}, {8, 64, 28, 28}, {8, 64, 28, 28});
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->swap_operands);
  EXPECT_EQ(plan->full, (Dims{1, 8, 64, 28 * 28}));
  EXPECT_EQ(plan->broadcast, (Dims{1, 1, 64, 1}));
}

TEST(CudnnOpTensorPlan, BothOperandsBroadcastIsUnsupported) {
  EXPECT_FALSE(plan_op_tensor({64, 1}, {1, 64}, {64, 64}));
  // Alternating kept/broadcast axes beyond 5 merged axes.
  EXPECT_FALSE(plan_op_tensor({2, 3, 4, 5, 6, 7}, {2, 1, 4, 1, 6, 1}, {2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(plan_op_tensor({2, 3, 4, 5, 6}, {2, 1, 4, 1, 6}, {2, 3, 4, 5, 6}));
}

// --- Layouts -------------------------------------------------------------------------------------

TEST(CudnnLayouts, ViewsKeepTheElementCount) {
  EXPECT_EQ(nchw_dims({64, 1024}), (Dims{1, 1, 64, 1024}));
  EXPECT_EQ(nchw_dims({2, 3, 4, 5, 6}), (Dims{6, 4, 5, 6}));
  EXPECT_EQ(softmax_dims({8, 12, 128, 128}, -1), (Dims{8 * 12 * 128, 128, 1, 1}));
  EXPECT_EQ(softmax_dims({8, 10, 4}, 1), (Dims{8, 10, 4, 1}));
  EXPECT_EQ(batchnorm_dims({8, 64, 28, 28}), (Dims{8, 64, 28 * 28, 1}));
  EXPECT_TRUE(fits_cudnn({1, 64, 56, 56}));
  EXPECT_FALSE(fits_cudnn({65536, 65536}));
  EXPECT_THROW(softmax_dims({8, 10}, 2), saturate::Error);
}

// --- supports() ----------------------------------------------------------------------------------

TEST(CudnnSupport, TheOperatorsTheTimerRuns) {
  const TensorType x = f32({1, 64, 56, 56});
  EXPECT_TRUE(supported(config(OpKind::Conv2d, {x, f32({64, 64, 3, 3})},
                               conv_attrs(1, Padding::Same, Activation::Relu))));
  EXPECT_TRUE(supported(config(OpKind::Conv2d, {f32({1, 3, 224, 224}), f32({32, 3, 3, 3})},
                               conv_attrs(2, Padding::Same, Activation::Tanh))));
  EXPECT_TRUE(supported(config(OpKind::Conv2d, {x, f32({64, 2, 3, 3})},
                               conv_attrs(1, Padding::Valid, Activation::Sigmoid))));
  EXPECT_TRUE(supported(config(OpKind::MatMul, {f32({64, 1024}), f32({1024, 1024})},
                               {{"activation", static_cast<int64_t>(Activation::Relu)}})));
  EXPECT_TRUE(supported(config(OpKind::MatMul, {f32({8, 128, 64}), f32({8, 64, 128})})));
  for (OpKind op : {OpKind::Relu, OpKind::Tanh, OpKind::Sigmoid}) {
    EXPECT_TRUE(supported(config(op, {x})));
  }
  for (OpKind op : {OpKind::EwAdd, OpKind::EwMul, OpKind::Add, OpKind::Mul, OpKind::Sub}) {
    EXPECT_TRUE(supported(config(op, {x, x})));
  }
  EXPECT_TRUE(supported(config(OpKind::Add, {f32({64, 1024}), f32({1024})})));
  EXPECT_TRUE(supported(config(OpKind::PoolMax, {x}, pool_attrs(3, 2, Padding::Same))));
  EXPECT_TRUE(supported(config(OpKind::PoolAvg, {x}, pool_attrs(3, 1, Padding::Same))));
  EXPECT_TRUE(supported(config(OpKind::Softmax, {f32({8, 128, 128})})));
  EXPECT_TRUE(
      supported(config(OpKind::BatchNorm, {x, f32({64}), f32({64}), f32({64}), f32({64})})));
  EXPECT_TRUE(supported(config(OpKind::Concat, {x, x}, {{"axis", int64_t{1}}})));
  // Split's outputs are views (TASO and the analytic model price it at zero): not timed.
  EXPECT_FALSE(supported(
      config(OpKind::Split, {x}, {{"axis", int64_t{1}}, {"sizes", std::vector<int64_t>{32, 32}}})));
  EXPECT_TRUE(supported(
      config(OpKind::Transpose, {f32({64, 1024})}, {{"perm", std::vector<int64_t>{1, 0}}})));
}

TEST(CudnnSupport, EverythingElseIsLeftToTheFallbackWithAReason) {
  auto reshape =
      config(OpKind::Reshape, {f32({64, 1024})}, {{"shape", std::vector<int64_t>{1024, 64}}});
  auto reason = cudnn_unsupported_reason(reshape.view());
  ASSERT_TRUE(reason);
  EXPECT_NE(reason->find("reshape"), std::string::npos);
  EXPECT_FALSE(supported(config(OpKind::Exp, {f32({64})})));
  EXPECT_FALSE(supported(config(OpKind::LayerNorm, {f32({4, 64}), f32({64}), f32({64})})));
  // Not a simple batch broadcast.
  EXPECT_FALSE(supported(config(OpKind::MatMul, {f32({4, 1, 16, 32}), f32({1, 3, 32, 8})})));
  // Both operands broadcast.
  EXPECT_FALSE(supported(config(OpKind::Add, {f32({64, 1}), f32({1, 64})})));
  // Only f32.
  TensorType f64{DType::F64, {64, 64}};
  EXPECT_FALSE(supported(config(OpKind::Relu, {f64})));
  EXPECT_EQ(cudnn_timing_method(OpKind::Reshape), "not timed");
  EXPECT_NE(cudnn_timing_method(OpKind::Transpose).find("cudaMemcpy"), std::string::npos);
}

// --- Timing on a GPU -----------------------------------------------------------------------------

class CudnnTiming : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    timer_ = make_cudnn_timer();
  }
  std::unique_ptr<OpTimer> timer_;
};

TEST(CudnnFactory, FailsClearlyWithoutADevice) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is visible";
  try {
    make_cudnn_timer();
    FAIL() << "expected saturate::Error";
  } catch (const saturate::Error& error) {
    EXPECT_NE(std::string(error.what()).find("no CUDA device visible"), std::string::npos);
  }
}

TEST_F(CudnnTiming, IdentifiesTheDevice) {
  EXPECT_EQ(timer_->backend(), "cudnn");
  EXPECT_NE(timer_->fingerprint().find("cudnn"), std::string::npos);
  EXPECT_NE(timer_->fingerprint().find("sm_"), std::string::npos);
}

TEST_F(CudnnTiming, EverySupportedFamilyGetsAPositiveFiniteTime) {
  const TensorType x = f32({1, 64, 56, 56});
  std::vector<OwnedOpConfig> configs = {
      config(OpKind::Conv2d, {x, f32({64, 64, 3, 3})}, conv_attrs(1, Padding::Same)),
      config(OpKind::Conv2d, {x, f32({64, 64, 3, 3})},
             conv_attrs(1, Padding::Same, Activation::Relu)),
      config(OpKind::Conv2d, {f32({1, 3, 224, 224}), f32({32, 3, 3, 3})},
             conv_attrs(2, Padding::Same, Activation::Tanh)),
      config(OpKind::Conv2d, {f32({1, 128, 28, 28}), f32({128, 4, 3, 3})},
             conv_attrs(1, Padding::Same, Activation::Relu)),
      config(OpKind::MatMul, {f32({64, 1024}), f32({1024, 1024})},
             {{"activation", static_cast<int64_t>(Activation::Sigmoid)}}),
      config(OpKind::MatMul, {f32({8, 128, 64}), f32({8, 64, 128})}),
      config(OpKind::MatMul, {f32({1, 16, 32}), f32({4, 32, 8})}),
      config(OpKind::Relu, {x}),
      config(OpKind::Tanh, {x}),
      config(OpKind::Sigmoid, {x}),
      config(OpKind::EwAdd, {x, x}),
      config(OpKind::Mul, {x, x}),
      config(OpKind::Sub, {f32({1024}), f32({64, 1024})}),
      config(OpKind::Add, {f32({64, 1024}), f32({1024})}),
      config(OpKind::PoolMax, {x}, pool_attrs(3, 2, Padding::Same)),
      config(OpKind::PoolAvg, {x}, pool_attrs(3, 1, Padding::Valid)),
      config(OpKind::Softmax, {f32({8, 128, 128})}),
      config(OpKind::BatchNorm, {x, f32({64}), f32({64}), f32({64}), f32({64})}),
      config(OpKind::Concat, {x, x}, {{"axis", int64_t{1}}}),
      config(OpKind::Transpose, {f32({64, 1024})}, {{"perm", std::vector<int64_t>{1, 0}}}),
  };
  for (const auto& c : configs) ASSERT_TRUE(timer_->supports(c.view())) << describe(c.view());
  std::vector<double> ms = timer_->time_ms(configs);
  ASSERT_EQ(ms.size(), configs.size());
  for (size_t i = 0; i < ms.size(); ++i) {
    EXPECT_TRUE(std::isfinite(ms[i]) && ms[i] > 0) << describe(configs[i].view()) << ": " << ms[i];
    EXPECT_LT(ms[i], 1000.0) << describe(configs[i].view());
  }
}

TEST_F(CudnnTiming, ABiggerConvCostsMore) {
  // About 2000x the work: 8x the batch, 4x the pixels, 64x the channel pairs.
  auto small = config(OpKind::Conv2d, {f32({1, 32, 28, 28}), f32({32, 32, 3, 3})},
                      conv_attrs(1, Padding::Same));
  auto big = config(OpKind::Conv2d, {f32({8, 256, 56, 56}), f32({256, 256, 3, 3})},
                    conv_attrs(1, Padding::Same));
  std::vector<double> ms = timer_->time_ms({small, big});
  EXPECT_GT(ms[1], ms[0]);
}

TEST_F(CudnnTiming, RepeatedMeasurementsRoughlyAgree) {
  auto conv = config(OpKind::Conv2d, {f32({8, 128, 56, 56}), f32({128, 128, 3, 3})},
                     conv_attrs(1, Padding::Same, Activation::Relu));
  auto gemm = config(OpKind::MatMul, {f32({512, 1024}), f32({1024, 1024})});
  std::vector<double> first = timer_->time_ms({conv, gemm});
  std::vector<double> second = timer_->time_ms({conv, gemm});
  for (size_t i = 0; i < first.size(); ++i) {
    // Loose: within a factor of 3 (clock boost, other tenants), never a tight timing assert.
    EXPECT_LT(second[i], 3 * first[i]);
    EXPECT_LT(first[i], 3 * second[i]);
  }
}

TEST_F(CudnnTiming, UnsupportedConfigurationsAreRefusedByName) {
  auto exp = config(OpKind::Exp, {f32({64})});
  try {
    timer_->time_ms({exp});
    FAIL() << "expected saturate::Error";
  } catch (const saturate::Error& error) {
    EXPECT_NE(std::string(error.what()).find("exp"), std::string::npos);
  }
}
