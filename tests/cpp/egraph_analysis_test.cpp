#include <gtest/gtest.h>

#include "egraph/term.h"
#include "egraph_math_language.h"

namespace saturate::egraph::testing {
namespace {

EClassId add(MathGraph& egraph, const char* text) {
  return egraph.add_term(Term<MathOp>::parse(text));
}

TEST(MathLanguage, ParsesNumbersSymbolsAndOperators) {
  Term<MathOp> term = Term<MathOp>::parse("(+ 1 (<< x -2))");
  EXPECT_EQ(term.to_string(), "(+ 1 (<< x -2))");
  EXPECT_EQ(term[term.root()].op.kind, MathOp::Kind::Add);
  EXPECT_THROW(Term<MathOp>::parse("(+ 1)"), ParseError);  // + takes two children
}

TEST(ConstantFolding, MakeComputesConstantsAndModifyAddsTheNumber) {
  MathGraph egraph;
  EClassId sum = add(egraph, "(+ 1 (* 2 3))");
  egraph.rebuild();
  ASSERT_TRUE(egraph.data(sum).has_value());
  EXPECT_EQ(*egraph.data(sum), 7);
  // modify() merged the literal 7 into the class.
  EXPECT_EQ(egraph.lookup_term(Term<MathOp>::parse("7")), egraph.find(sum));
  // 6 was folded too, and is the class of (* 2 3).
  EXPECT_EQ(egraph.lookup_term(Term<MathOp>::parse("6")),
            egraph.lookup_term(Term<MathOp>::parse("(* 2 3)")));
  EXPECT_FALSE(egraph.data(add(egraph, "(+ x 1)")).has_value());
}

TEST(ConstantFolding, FoldingMergesEqualConstants) {
  MathGraph egraph;
  EClassId a = add(egraph, "(+ 2 2)");
  EClassId b = add(egraph, "(* 2 2)");
  EClassId c = add(egraph, "(<< 1 2)");
  egraph.rebuild();
  EXPECT_TRUE(egraph.equivalent(a, b));
  EXPECT_TRUE(egraph.equivalent(a, c));
}

TEST(ConstantFolding, DataMergesOnUnionAndPropagatesToParents) {
  MathGraph egraph;
  EClassId x = add(egraph, "x");
  EClassId sum = add(egraph, "(+ x 1)");
  EClassId product = add(egraph, "(* (+ x 1) 10)");
  EXPECT_FALSE(egraph.data(sum).has_value());
  // Learning x = 4 must flow up through the parents during rebuild.
  egraph.merge(x, add(egraph, "4"));
  EXPECT_EQ(egraph.data(x), 4);
  egraph.rebuild();
  EXPECT_EQ(egraph.data(sum), 5);
  EXPECT_EQ(egraph.data(product), 50);
  EXPECT_EQ(egraph.lookup_term(Term<MathOp>::parse("50")), egraph.find(product));
  EXPECT_TRUE(egraph.equivalent(sum, add(egraph, "5")));
}

TEST(ConstantFolding, CongruenceAndAnalysisTogether) {
  MathGraph egraph;
  EClassId fx = add(egraph, "(- x y)");
  EClassId fz = add(egraph, "(- z y)");
  egraph.merge(add(egraph, "x"), add(egraph, "z"));
  egraph.merge(add(egraph, "y"), add(egraph, "3"));
  egraph.merge(add(egraph, "z"), add(egraph, "10"));
  egraph.rebuild();
  EXPECT_TRUE(egraph.equivalent(fx, fz));
  EXPECT_EQ(egraph.data(fx), 7);
  EXPECT_TRUE(egraph.equivalent(fx, add(egraph, "7")));
}

}  // namespace
}  // namespace saturate::egraph::testing
