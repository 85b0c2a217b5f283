#include <gtest/gtest.h>

#include <filesystem>

#include "eqsat/rule_file.h"
#include "source_dir.h"

using namespace saturate;
using namespace saturate::eqsat;

namespace {

const std::filesystem::path kTensatRules =
    saturate::tests::source_dir() / ".." / "shared" / "data" / "tensat-rules";

ParseError parse_failure(const std::string& text,
                         RuleFileFormat format = RuleFileFormat::Saturate) {
  try {
    parse_rules(text, "bad.rules", format);
  } catch (const ParseError& error) {
    return error;
  }
  ADD_FAILURE() << "expected a parse error for:\n" << text;
  return ParseError({}, "none");
}

}  // namespace

TEST(RuleFile, ReadsNamedRulesBothDirectionsAndConditions) {
  RuleSet set = parse_rules(R"(
; a comment line
assoc: (matmul none (matmul none ?a ?b) ?c) <=> (matmul none ?a (matmul none ?b ?c))
(relu (conv2d 1 1 same none ?x ?w))=>(conv2d 1 1 0 2 ?x ?w)
cat: (concat 1 4 (conv2d ?sh ?sw ?p ?act ?x ?a) (conv2d ?sh ?sw ?p ?act ?x ?b)) => (conv2d ?sh ?sw ?p ?act ?x (concat 0 4 ?a ?b)) if (= (dim ?x 1) (dim ?a 1))
)",
                            "lib.rules");
  ASSERT_EQ(set.rules.size(), 4u);
  EXPECT_EQ(set.rules[0].name, "assoc");
  EXPECT_EQ(set.rules[1].name, "assoc-reverse");
  EXPECT_EQ(set.rules[1].lhs.to_string(), "(matmul none ?a (matmul none ?b ?c))");
  EXPECT_EQ(set.rules[2].name, "lib.rules:4");
  EXPECT_EQ(set.rules[2].rhs.to_string(), "(conv2d 1 1 same relu ?x ?w)");
  ASSERT_EQ(set.rules[3].conditions.size(), 1u);
  EXPECT_EQ(set.rules[3].conditions[0].to_string(), "(= (dim ?x 1) (dim ?a 1))");
  EXPECT_TRUE(set.multi_rules.empty());
}

TEST(RuleFile, ARightHandSideMayBeAVariable) {
  RuleSet set = parse_rules("(relu (relu ?x)) => ?x", "v.rules");
  ASSERT_EQ(set.rules.size(), 1u);
  EXPECT_EQ(set.rules[0].rhs.kind, Term::Kind::TensorVariable);
  EXPECT_EQ(set.rules[0].rhs.to_string(), "?x");
}

TEST(RuleFile, ReadsMultiPatternRules) {
  RuleSet set = parse_rules(R"(
merge: (matmul ?act ?x ?a) => (split_0 (split 1 (matmul ?act ?x (concat 1 2 ?a ?b))))
     & (matmul ?act ?x ?b) => (split_1 (split 1 (matmul ?act ?x (concat 1 2 ?a ?b))))
)",
                            "m.rules");
  ASSERT_EQ(set.multi_rules.size(), 1u);
  EXPECT_EQ(set.multi_rules[0].parts.size(), 2u);
  EXPECT_EQ(set.multi_rules[0].name, "merge");
  EXPECT_FALSE(set.multi_rules[0].unordered);

  // (unordered) marks interchangeable parts; it is not a condition.
  RuleSet unordered = parse_rules(R"(
merge: (matmul ?act ?x ?a) => (split_0 (split 1 (matmul ?act ?x (concat 1 2 ?a ?b))))
     & (matmul ?act ?x ?b) => (split_1 (split 1 (matmul ?act ?x (concat 1 2 ?a ?b)))) if (= (rank ?x) 2) (unordered)
)",
                                  "m.rules");
  ASSERT_EQ(unordered.multi_rules.size(), 1u);
  EXPECT_TRUE(unordered.multi_rules[0].unordered);
  EXPECT_EQ(unordered.multi_rules[0].parts[1].conditions.size(), 1u);
}

TEST(RuleFile, ReportsErrorsWithLineAndColumn) {
  ParseError unknown = parse_failure("ok: (relu ?x) => (relu ?x)\n(frob ?x) => (relu ?x)");
  EXPECT_EQ(unknown.location().line, 2);
  EXPECT_EQ(unknown.location().column, 2);
  EXPECT_NE(std::string(unknown.what()).find("bad.rules:2:2"), std::string::npos);

  ParseError arity = parse_failure("(matmul ?a ?b) => (matmul none ?a ?b)");
  EXPECT_NE(std::string(arity.what()).find("takes 3 arguments"), std::string::npos) << arity.what();

  ParseError unbound = parse_failure("(relu ?x) => (ewadd ?x ?y)");
  EXPECT_NE(std::string(unbound.what()).find("?y"), std::string::npos);
  EXPECT_EQ(unbound.location().column, 24);

  ParseError sorts = parse_failure("(matmul ?a ?b ?c) => (relu ?a)");
  EXPECT_NE(std::string(sorts.what()).find("?a"), std::string::npos) << sorts.what();

  ParseError attribute = parse_failure("(matmul maybe ?a ?b) => (relu ?a)");
  EXPECT_NE(std::string(attribute.what()).find("activation"), std::string::npos)
      << attribute.what();
}

TEST(RuleFile, RejectsMalformedLines) {
  const char* cases[] = {
      "(relu ?x)",
      "(relu ?x) =>",
      "?x => (relu ?x)",
      "(relu ?x) <=> ?x",
      "(matmul ?act ?a ?b) => ?act",
      "(relu ?x) -> (relu ?x)",
      "(relu ?x) => (relu ?x) if",
      "(relu ?x) => (relu ?x) when (= 1 1)",
      "(relu ?x) => (relu ?x) if (= (dim ?y 0) 1)",
      "(relu ?x) => (relu ?x) if (~ 1 1)",
      "& (relu ?x) => (relu ?x)",
      "(split 1 ?x) => (relu ?x)",
      "(relu (split 1 ?x)) => (relu ?x)",
      "(split_0 ?t) => (relu ?t)",
      "(concat 0 2) => (relu ?x)",
      "(relu ?x) => (relu ?x) (relu ?x)",
      "(relu ?x => (relu ?x)",
      "a: (relu ?x) => (relu ?x)\n& b: (tanh ?x) => (tanh ?x)",
      "m: (relu ?x) => (relu ?x)\n& (tanh ?x) <=> (tanh ?x)",
      "(relu ?x) => (relu ?x) if (unordered)",  // a single pattern has nothing to swap
  };
  for (const char* text : cases) {
    EXPECT_THROW(parse_rules(text, "bad.rules"), ParseError) << text;
  }
  EXPECT_THROW(parse_rules("(relu ?x) => (relu ?x)", "odd", RuleFileFormat::TensatMulti),
               ParseError);
}

TEST(RuleFile, ReadsTensatPublishedFilesAsTheyAre) {
  if (!std::filesystem::exists(kTensatRules)) {
    GTEST_SKIP() << "TENSAT's rule files are not at " << kTensatRules << " (../shared absent)";
  }
  RuleSet single = load_rules((kTensatRules / "converted.txt").string());
  EXPECT_EQ(single.rules.size(), 120u);
  EXPECT_TRUE(single.multi_rules.empty());
  RuleSet multi =
      load_rules((kTensatRules / "converted_multi.txt").string(), RuleFileFormat::TensatMulti);
  EXPECT_EQ(multi.multi_rules.size(), 13u);
  for (const auto& rule : multi.multi_rules) EXPECT_EQ(rule.parts.size(), 2u);
}

// Rule files go through the same S-expression reader, which overflowed its stack on 100,000
// open parentheses (issue 15); deep but legal patterns still parse.
TEST(RuleFile, RejectsNestingDeeperThanTheLimit) {
  ParseError error = parse_failure("deep: " + std::string(100000, '(') + "relu ?x => ?x");
  EXPECT_NE(std::string(error.what()).find("nesting deeper than 1000 levels"), std::string::npos)
      << error.what();
  EXPECT_EQ(error.location().line, 1);

  std::string chain = "?x";
  for (int i = 0; i < 999; ++i) chain = "(relu " + chain + ")";
  RuleSet set = parse_rules("deep: " + chain + " => ?x", "deep.rules");
  ASSERT_EQ(set.rules.size(), 1u);
}
