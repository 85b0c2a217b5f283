#include <gtest/gtest.h>

#include "ir/op_registry.h"
#include "pm/builder.h"
#include "pm/errors.h"
#include "pm/expr_eval.h"
#include "pm/pattern_text.h"

using namespace saturate;
using namespace saturate::pm;
using namespace saturate::pm::build;

namespace {

// x: a f32[2 3 4] value produced by a matmul with activation relu; f: the op symbol transpose
// with perm [1, 0]; u: an unbound term variable.
class FakeScope final : public ExprScope {
 public:
  FakeScope() {
    vars_ = {term("x"), op("f"), term("u")};
    type_.dims = {2, 3, 4};
    matmul_attrs_ =
        ir::complete_attributes(ir::op_info(ir::OpKind::MatMul), {{"activation", int64_t{2}}});
    transpose_attrs_ = {{"perm", std::vector<int64_t>{1, 0}}};
  }
  size_t num_variables() const override { return vars_.size(); }
  const Var& variable(uint32_t var) const override { return vars_[var]; }
  bool is_bound(uint32_t var) const override { return var != 2; }
  const ir::TensorType& type_of(uint32_t) const override { return type_; }
  ir::OpKind op_of(uint32_t var) const override {
    return var == 1 ? ir::OpKind::Transpose : ir::OpKind::MatMul;
  }
  const ir::Attributes& attrs_of(uint32_t var) const override {
    return var == 1 ? transpose_attrs_ : matmul_attrs_;
  }

 private:
  std::vector<Var> vars_;
  ir::TensorType type_;
  ir::Attributes matmul_attrs_;
  ir::Attributes transpose_attrs_;
};

const FakeScope scope;
enum { x, f, u };

ExprValue eval(const Expr& e) {
  return evaluate(e, scope, [] { return std::string("test.py:1: pattern 'T'"); });
}

// The PatternError message for an expression.
std::string error_of(const Expr& e) {
  try {
    eval(e);
  } catch (const PatternError& error) {
    return error.what();
  }
  return "<no error>";
}

}  // namespace

TEST(ExprEval, Literals) {
  EXPECT_EQ(eval(integer(3)), ExprValue(int64_t{3}));
  EXPECT_EQ(eval(real(2.5)), ExprValue(2.5));
  EXPECT_EQ(eval(boolean(true)), ExprValue(true));
  EXPECT_EQ(eval(text("relu")), ExprValue(std::string("relu")));
  EXPECT_EQ(eval(ints({1, 0})), ExprValue(std::vector<int64_t>{1, 0}));
}

TEST(ExprEval, ShapesAndTypes) {
  EXPECT_EQ(eval(rank(x)), ExprValue(int64_t{3}));
  EXPECT_EQ(eval(dim(x, integer(0))), ExprValue(int64_t{2}));
  EXPECT_EQ(eval(dim(x, integer(-1))), ExprValue(int64_t{4}));
  EXPECT_EQ(eval(numel(x)), ExprValue(int64_t{24}));
  EXPECT_EQ(eval(shape(x)), ExprValue(std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(eval(dtype(x)), ExprValue(std::string("f32")));
  EXPECT_NE(error_of(dim(x, integer(3))).find("index 3 is out of range for shape [2 3 4]"),
            std::string::npos);
  EXPECT_NE(error_of(dim(x, integer(-4))).find("out of range"), std::string::npos);
}

TEST(ExprEval, OperatorsAndAttributes) {
  EXPECT_EQ(eval(op_name(x)), ExprValue(std::string("matmul")));
  EXPECT_EQ(eval(op_name(f)), ExprValue(std::string("transpose")));
  EXPECT_EQ(eval(attr(x, "activation")), ExprValue(std::string("relu")));  // by name
  EXPECT_EQ(eval(attr(f, "perm")), ExprValue(std::vector<int64_t>{1, 0}));
  std::string missing = error_of(attr(x, "perm"));
  EXPECT_NE(missing.find("test.py:1: pattern 'T': in `x.attrs.perm`"), std::string::npos)
      << missing;
  EXPECT_NE(missing.find("operator 'matmul' has no attribute 'perm'"), std::string::npos);
  EXPECT_NE(error_of(rank(u)).find("variable 'u' is not bound yet"), std::string::npos);
}

TEST(ExprEval, ArithmeticMixesIntAndFloatAsPythonDoes) {
  EXPECT_EQ(eval(add(integer(2), integer(3))), ExprValue(int64_t{5}));
  EXPECT_EQ(eval(add(integer(2), real(0.5))), ExprValue(2.5));
  EXPECT_EQ(eval(mul(integer(3), integer(4))), ExprValue(int64_t{12}));
  EXPECT_EQ(eval(div(integer(7), integer(2))), ExprValue(3.5));  // true division
  EXPECT_EQ(eval(binary(BinaryOp::FloorDiv, integer(-7), integer(2))), ExprValue(int64_t{-4}));
  EXPECT_EQ(eval(binary(BinaryOp::Mod, integer(-7), integer(2))), ExprValue(int64_t{1}));
  EXPECT_EQ(eval(binary(BinaryOp::Mod, integer(7), integer(-2))), ExprValue(int64_t{-1}));
  EXPECT_EQ(eval(binary(BinaryOp::FloorDiv, real(7.5), integer(2))), ExprValue(3.0));
  EXPECT_EQ(eval(binary(BinaryOp::Mod, real(-1.0), real(3.0))), ExprValue(2.0));
  EXPECT_EQ(eval(neg(integer(4))), ExprValue(int64_t{-4}));
  EXPECT_EQ(eval(sub(numel(x), mul(dim(x, integer(0)), integer(2)))), ExprValue(int64_t{20}));
  EXPECT_EQ(eval(add(text("re"), text("lu"))), ExprValue(std::string("relu")));
  EXPECT_EQ(eval(add(ints({1}), ints({2}))), ExprValue(std::vector<int64_t>{1, 2}));
  EXPECT_NE(error_of(div(integer(1), integer(0))).find("division by zero"), std::string::npos);
  EXPECT_NE(error_of(binary(BinaryOp::Mod, integer(1), integer(0))).find("division by zero"),
            std::string::npos);
  EXPECT_NE(error_of(mul(integer(INT64_MAX), integer(2))).find("overflow"), std::string::npos);
  EXPECT_NE(error_of(add(text("a"), integer(1))).find("cannot apply '+' to string and int"),
            std::string::npos);
}

TEST(ExprEval, Comparisons) {
  EXPECT_EQ(eval(eq(integer(2), real(2.0))), ExprValue(true));
  EXPECT_EQ(eval(lt(integer(2), real(2.5))), ExprValue(true));
  EXPECT_EQ(eval(ge(rank(x), integer(3))), ExprValue(true));
  EXPECT_EQ(eval(eq(text("relu"), text("relu"))), ExprValue(true));
  EXPECT_EQ(eval(ne(shape(x), ints({2, 3, 4}))), ExprValue(false));  // structural
  EXPECT_EQ(eval(lt(text("a"), text("b"))), ExprValue(true));
  EXPECT_NE(error_of(eq(dtype(x), integer(3))).find("cannot compare string \"f32\" with int 3"),
            std::string::npos);
  EXPECT_NE(error_of(lt(boolean(true), integer(1))).find("cannot order"), std::string::npos);
}

TEST(ExprEval, LogicShortCircuits) {
  // The right-hand sides would be errors.
  EXPECT_EQ(eval(and_(boolean(false), attr(x, "perm"))), ExprValue(false));
  EXPECT_EQ(eval(or_(boolean(true), rank(u))), ExprValue(true));
  EXPECT_EQ(eval(not_(eq(rank(x), integer(2)))), ExprValue(true));
  EXPECT_NE(error_of(and_(integer(1), boolean(true))).find("expected a bool, got int 1"),
            std::string::npos);
  EXPECT_NE(error_of(not_(integer(1))).find("expected a bool"), std::string::npos);
}

TEST(ExprEval, Membership) {
  EXPECT_EQ(eval(in(op_name(x), {text("relu"), text("matmul")})), ExprValue(true));
  EXPECT_EQ(eval(in(op_name(x), {text("relu"), text("tanh")})), ExprValue(false));
  EXPECT_EQ(eval(in(rank(x), {real(3.0)})), ExprValue(true));
  EXPECT_EQ(eval(in(rank(x), {text("3")})), ExprValue(false));  // other kinds: not equal
}

TEST(ExprEval, GuardsMustBeBooleans) {
  auto where = [] { return std::string("here"); };
  EXPECT_TRUE(evaluate_guard(eq(rank(x), integer(3)), scope, where));
  EXPECT_THROW(evaluate_guard(rank(x), scope, where), PatternError);
}

TEST(ExprEval, AttributeConversions) {
  EXPECT_EQ(to_attribute(ExprValue(std::string("relu")), ir::AttrKind::Activation),
            ir::AttrValue(int64_t{2}));
  EXPECT_EQ(to_attribute(ExprValue(std::string("valid")), ir::AttrKind::Padding),
            ir::AttrValue(int64_t{1}));
  EXPECT_EQ(to_attribute(ExprValue(int64_t{3}), ir::AttrKind::Float), ir::AttrValue(3.0));
  EXPECT_FALSE(to_attribute(ExprValue(std::string("gelu")), ir::AttrKind::Activation));
  EXPECT_FALSE(to_attribute(ExprValue(2.5), ir::AttrKind::Int));
  const ir::AttrSpec* epsilon = ir::op_info(ir::OpKind::BatchNorm).find_attribute("epsilon");
  EXPECT_TRUE(attribute_matches(ir::AttrValue(1e-5), epsilon, ExprValue(1.0000001e-5)));
  EXPECT_FALSE(attribute_matches(ir::AttrValue(1e-5), epsilon, ExprValue(2e-5)));
}

TEST(ExprText, PrintsPythonLikeSource) {
  std::vector<Var> vars = {term("x"), op("f")};
  EXPECT_EQ(to_string(and_(eq(rank(0), integer(2)), ge(dim(0, neg(integer(1))), integer(4))), vars),
            "x.shape.rank == 2 and x.shape[-1] >= 4");
  EXPECT_EQ(to_string(mul(add(integer(1), integer(2)), integer(3)), vars), "(1 + 2) * 3");
  EXPECT_EQ(to_string(in(op_name(1), {text("relu")}), vars), "f.name in (\"relu\",)");
  EXPECT_EQ(to_string(not_(eq(attr(0, "perm"), ints({1, 0}))), vars), "not x.attrs.perm == [1, 0]");
}
