// PyPM guards over symbolic dimensions (ir/symbolic_dim.h, docs/PYPM.md "Symbolic dimensions"):
// what holds for every value of the symbols is true, what is false at every value is false,
// and a guard that depends on the sizes fails, whatever its operators (`not` included).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/graph_builder.h"
#include "ir/symbolic_dim.h"
#include "pm/builder.h"
#include "pm/errors.h"
#include "pm/expr_eval.h"
#include "pm/module_check.h"
#include "pm/rewriter.h"

namespace saturate::pm {
namespace {

using namespace build;

int64_t symbol(const std::string& name, int64_t lower_bound = 1) {
  return ir::symbol_dim(ir::symbol_named(name, lower_bound));
}
int64_t batch() {
  return symbol("batch");
}
int64_t sequence() {
  return symbol("sequence");
}
int64_t past() {
  return symbol("pm_test_past", 0);  // a cache length: may be 0
}

// x: f32[batch sequence 768*batch past]; y: f32[batch sequence 64].
class SymbolicScope final : public ExprScope {
 public:
  SymbolicScope() {
    vars_ = {term("x"), term("y")};
    x_.dims = {batch(), sequence(), ir::dim_product(768, batch()), past()};
    y_.dims = {batch(), sequence(), 64};
  }
  size_t num_variables() const override { return vars_.size(); }
  const Var& variable(uint32_t var) const override { return vars_[var]; }
  bool is_bound(uint32_t) const override { return true; }
  const ir::TensorType& type_of(uint32_t var) const override { return var == 0 ? x_ : y_; }
  ir::OpKind op_of(uint32_t) const override { return ir::OpKind::Input; }
  const ir::Attributes& attrs_of(uint32_t) const override { return attrs_; }

 private:
  std::vector<Var> vars_;
  ir::TensorType x_;
  ir::TensorType y_;
  ir::Attributes attrs_;
};

enum { x, y };

bool holds(const Expr& guard) {
  SymbolicScope scope;
  return evaluate_guard(guard, scope, [] { return std::string("test.py:1"); });
}

std::optional<ExprValue> value_of(const Expr& e) {
  SymbolicScope scope;
  return evaluate_decided(e, scope, [] { return std::string("test.py:1"); });
}

Expr d(uint32_t var, int64_t axis) {
  return dim(var, integer(axis));
}
Expr mod(Expr a, Expr b) {
  return binary(BinaryOp::Mod, std::move(a), std::move(b));
}
Expr floordiv(Expr a, Expr b) {
  return binary(BinaryOp::FloorDiv, std::move(a), std::move(b));
}

TEST(SymbolicGuards, EqualityComparesNormalForms) {
  EXPECT_TRUE(holds(eq(d(x, 0), d(y, 0))));  // batch == batch
  EXPECT_TRUE(holds(eq(d(x, 1), d(y, 1))));  // sequence == sequence
  EXPECT_FALSE(holds(ne(d(x, 0), d(y, 0))));
  EXPECT_TRUE(holds(eq(d(x, 2), mul(integer(768), d(y, 0)))));
  EXPECT_TRUE(holds(eq(mul(d(x, 0), d(x, 1)), mul(d(x, 1), d(x, 0)))));
  // batch and sequence: equal at some sizes only. Neither ==, != nor their negations hold.
  EXPECT_FALSE(holds(eq(d(x, 0), d(x, 1))));
  EXPECT_FALSE(holds(ne(d(x, 0), d(x, 1))));
  EXPECT_FALSE(holds(not_(eq(d(x, 0), d(x, 1)))));
  EXPECT_FALSE(holds(not_(ne(d(x, 0), d(x, 1)))));
  EXPECT_FALSE(holds(eq(d(x, 0), integer(1))));
  EXPECT_FALSE(holds(ne(d(x, 0), integer(1))));
  // Different at every size.
  EXPECT_TRUE(holds(ne(d(x, 0), d(x, 2))));
  EXPECT_TRUE(holds(ne(d(x, 0), integer(0))));
  EXPECT_TRUE(holds(ne(d(x, 0), real(2.5))));
  EXPECT_TRUE(holds(eq(shape(y), shape(y))));
  EXPECT_FALSE(holds(eq(shape(x), shape(y))));  // ranks differ
  EXPECT_FALSE(holds(eq(shape(y), ints({4, 6, 64}))));
  EXPECT_FALSE(holds(ne(shape(y), ints({4, 6, 64}))));
  EXPECT_TRUE(holds(ne(shape(y), ints({4, 6, 32}))));  // the last axis differs at every size
}

TEST(SymbolicGuards, DivisibilityIsProvedOnTheCoefficients) {
  EXPECT_TRUE(holds(eq(mod(d(x, 2), integer(12)), integer(0))));  // 768*batch % 12
  EXPECT_TRUE(holds(eq(mod(d(x, 2), integer(-12)), integer(0))));
  EXPECT_FALSE(holds(eq(mod(d(x, 1), integer(2)), integer(0))));  // sequence % 2
  EXPECT_FALSE(holds(eq(mod(d(x, 1), integer(2)), integer(1))));
  EXPECT_FALSE(holds(ne(mod(d(x, 1), integer(2)), integer(0))));
  EXPECT_FALSE(holds(not_(eq(mod(d(x, 1), integer(2)), integer(0)))));
  EXPECT_TRUE(holds(eq(mod(add(mul(integer(4), d(x, 1)), integer(3)), integer(2)), integer(1))));
  EXPECT_TRUE(holds(eq(mod(mul(d(x, 0), d(x, 1)), d(x, 1)), integer(0))));
  EXPECT_FALSE(value_of(mod(d(x, 1), integer(2))).has_value());
  EXPECT_FALSE(value_of(mod(d(x, 0), d(x, 3))).has_value());  // past may be 0
}

TEST(SymbolicGuards, OrderIsDecidedByTheLowerBoundsOnly) {
  EXPECT_TRUE(holds(ge(d(x, 0), integer(1))));
  EXPECT_TRUE(holds(gt(d(x, 0), integer(0))));
  EXPECT_TRUE(holds(gt(d(x, 0), real(0.5))));
  EXPECT_TRUE(holds(lt(real(0.5), d(x, 0))));
  EXPECT_FALSE(holds(gt(d(x, 0), integer(64))));
  EXPECT_FALSE(holds(lt(d(x, 0), integer(64))));
  EXPECT_FALSE(holds(not_(gt(d(x, 0), integer(64)))));
  // Decided false at every size: its negation holds.
  EXPECT_FALSE(holds(le(d(x, 0), integer(0))));
  EXPECT_TRUE(holds(not_(le(d(x, 0), integer(0)))));
  EXPECT_TRUE(holds(lt(d(x, 0), d(x, 2))));  // batch < 768*batch
  EXPECT_FALSE(holds(lt(d(x, 0), d(x, 1))));
  EXPECT_FALSE(holds(lt(d(x, 1), d(x, 0))));
  // The cache length may be 0.
  EXPECT_TRUE(holds(ge(d(x, 3), integer(0))));
  EXPECT_FALSE(holds(ge(d(x, 3), integer(1))));
  // Handles are never compared as the huge negative numbers they are.
  EXPECT_FALSE(holds(lt(d(x, 0), integer(0))));
  // Lists in lexicographic order: 0 < batch at every size; 1 < batch at some sizes only.
  EXPECT_TRUE(holds(lt(ints({0, 5}), shape(y))));
  EXPECT_FALSE(holds(lt(ints({1, 2}), shape(y))));
  EXPECT_FALSE(holds(ge(ints({1, 2}), shape(y))));
}

TEST(SymbolicGuards, ArithmeticBuildsDims) {
  EXPECT_EQ(value_of(floordiv(d(x, 2), integer(12))), ExprValue(ir::dim_product(64, batch())));
  EXPECT_EQ(value_of(div(d(x, 2), d(x, 0))), ExprValue(int64_t{768}));  // exact: an int
  EXPECT_EQ(value_of(sub(d(x, 2), d(x, 2))), ExprValue(int64_t{0}));
  EXPECT_EQ(value_of(add(d(x, 1), integer(1))), ExprValue(ir::dim_sum(sequence(), 1)));
  EXPECT_EQ(value_of(numel(y)), ExprValue(ir::dim_product({batch(), sequence(), 64})));
  EXPECT_EQ(value_of(shape(y)), ExprValue(std::vector<int64_t>{batch(), sequence(), 64}));
  // Not an integer polynomial at every size: undecided, not an error.
  EXPECT_FALSE(value_of(floordiv(d(x, 1), integer(2))).has_value());
  EXPECT_FALSE(value_of(div(d(x, 1), d(x, 0))).has_value());
  EXPECT_FALSE(value_of(mul(d(x, 1), real(0.5))).has_value());
  EXPECT_FALSE(holds(eq(floordiv(d(x, 1), integer(2)), integer(3))));
  SymbolicScope scope;
  EXPECT_THROW(evaluate(floordiv(d(x, 1), integer(2)), scope, [] { return std::string(); }),
               Undecided);
  EXPECT_EQ(to_string(*value_of(d(x, 1))), "sequence");
  EXPECT_EQ(to_string(*value_of(shape(y))), "[batch, sequence, 64]");
}

TEST(SymbolicGuards, LogicIsKleenes) {
  Expr unknown = gt(d(x, 0), integer(64));
  EXPECT_TRUE(holds(or_(unknown, eq(rank(x), integer(4)))));
  EXPECT_FALSE(holds(or_(unknown, eq(rank(x), integer(5)))));
  EXPECT_FALSE(holds(and_(unknown, eq(rank(x), integer(4)))));
  EXPECT_TRUE(holds(not_(and_(unknown, eq(rank(x), integer(5))))));
  EXPECT_TRUE(holds(or_(eq(rank(x), integer(4)), unknown)));
  EXPECT_FALSE(holds(and_(eq(rank(x), integer(4)), unknown)));
  // `in`: one item equal at every size, or each different at every size.
  EXPECT_FALSE(holds(in(d(x, 0), {integer(1), integer(2)})));
  EXPECT_FALSE(holds(not_(in(d(x, 0), {integer(1), integer(2)}))));
  EXPECT_TRUE(holds(in(d(x, 1), {integer(3), d(y, 1)})));
  EXPECT_TRUE(holds(not_(in(d(x, 0), {integer(0), d(x, 2)}))));
}

TEST(SymbolicGuards, ProvenTurnsUndecidedIntoFalseAndNothingElse) {
  Expr unknown = eq(d(x, 3), d(x, 1));  // past == sequence: at some sizes only
  EXPECT_FALSE(holds(unknown));
  EXPECT_FALSE(holds(not_(unknown)));
  // proven(c) and not proven(c) are both decided: exactly one of an if/else's paths holds.
  EXPECT_FALSE(holds(proven(unknown)));
  EXPECT_TRUE(holds(not_(proven(unknown))));
  EXPECT_TRUE(holds(proven(eq(d(x, 0), d(y, 0)))));   // batch == batch
  EXPECT_FALSE(holds(proven(eq(d(x, 0), d(x, 2)))));  // batch == 768*batch: never
  EXPECT_TRUE(holds(not_(proven(eq(d(x, 0), d(x, 2))))));
  EXPECT_EQ(to_string(*value_of(proven(unknown))), "False");
  // Errors stay errors: proven() decides sizes, it does not hide a malformed guard.
  SymbolicScope scope;
  EXPECT_THROW(evaluate(proven(eq(d(x, 0), text("a"))), scope, [] { return std::string(); }),
               PatternError);
}

TEST(SymbolicGuards, AListOfDimsIsAShape) {
  // [batch, sequence * 64]: what a rule writes as a reshape target from matched dims.
  Expr merged = list({d(x, 0), mul(d(y, 1), d(y, 2))});
  EXPECT_EQ(to_string(*value_of(merged)), "[batch, 64*sequence]");
  EXPECT_TRUE(holds(eq(list({d(x, 0), d(x, 1), integer(64)}), shape(y))));
  EXPECT_EQ(to_string(*value_of(list({}))), "[]");
  SymbolicScope scope;
  EXPECT_THROW(evaluate(list({d(x, 0), boolean(true)}), scope, [] { return std::string(); }),
               PatternError);
}

TEST(SymbolicGuards, LiteralsCannotPoseAsHandles) {
  SymbolicScope scope;
  EXPECT_THROW(evaluate(integer(ir::kFirstSymbolicDim), scope, [] { return std::string(); }),
               PatternError);
  EXPECT_THROW(evaluate(mul(integer(int64_t{1} << 31), integer(-(int64_t{1} << 31))), scope,
                        [] { return std::string(); }),
               PatternError);
}

// tanh(x) -> softmax(x, axis=AXIS) when GUARD, on a graph whose input has symbolic dims.
size_t applications(const ir::Dims& dims, Expr guard_expr, Expr axis) {
  Module module;
  module.source_file = "test.py";
  module.definitions.push_back(
      definition("Tanh", 1, {alternate({term("x")}, app("tanh", {v(0)}), {guard(guard_expr)})}));
  module.rules.push_back(
      rule("to_softmax", 0, {0}, tapp("softmax", {tv(0)}, {AttrExpr{"axis", std::move(axis)}})));
  check_module(module);
  ir::GraphBuilder b("g");
  b.output("y", b.tanh(b.input("x", dims)));
  return rewrite(std::move(b).finish(), module).applications;
}

TEST(SymbolicRewrites, GuardsAndAttributesMustHoldAtEverySize) {
  const ir::Dims dims = {batch(), ir::dim_product(2, sequence()), ir::dim_product(768, batch())};
  Expr last = integer(-1);
  EXPECT_EQ(applications(dims, eq(mod(d(0, 2), integer(12)), integer(0)), last), 1u);
  EXPECT_EQ(applications(dims, eq(mod(d(0, 0), integer(12)), integer(0)), last), 0u);
  EXPECT_EQ(applications(dims, gt(d(0, 0), integer(64)), last), 0u);
  EXPECT_EQ(applications(dims, ge(d(0, 0), integer(1)), last), 1u);
  // An attribute computed from dims: decided (768*batch // batch - 767 is 1) or not.
  Expr one = sub(floordiv(d(0, 2), d(0, 0)), integer(767));
  EXPECT_EQ(applications(dims, boolean(true), one), 1u);
  Expr depends = sub(floordiv(d(0, 0), integer(2)), integer(1));
  EXPECT_EQ(applications(dims, boolean(true), depends), 0u);
  // Its static twin (batch 4) decides at its sizes.
  EXPECT_EQ(applications({4, 6, 3072}, eq(mod(d(0, 0), integer(4)), integer(0)), last), 1u);
  EXPECT_EQ(applications({4, 6, 3072}, boolean(true), depends), 1u);
}

}  // namespace
}  // namespace saturate::pm
