#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "pm/builder.h"
#include "pm/errors.h"
#include "pm/format_reader.h"
#include "pm/format_writer.h"
#include "pm/module_check.h"
#include "pm_test_support.h"

using namespace saturate;
using namespace saturate::pm;
using namespace saturate::pm::build;

namespace {

// A module that uses every tag of the format: all pattern, head, call argument, constraint,
// expression (every binary operator) and term tags.
Module every_tag_module() {
  Module m;
  m.source_file = "every_tag.py";
  // 0: Leaf(x) := x || 1.5
  m.definitions.push_back(
      definition("Leaf", 1, {alternate({term("x")}, alt({v(0), constant(1.5)}), {}, 2)}, 1));
  // 1: Chain(x, f) := f(Chain(x, f)) | f(x), also called with a fixed head.
  m.definitions.push_back(
      definition("Chain", 2,
                 {alternate({term("x"), op("f")},
                            app(head_var(1), {call(1, {arg(v(0)), arg(head_var(1))})}), {}, 5),
                  alternate({term("x"), op("f")}, app(head_var(1), {v(0)}), {}, 6)},
                 4));
  // 2: Everything(x, f) with locals y, z, g, w.
  enum { x, f, y, z, g, w };
  Expr arithmetic = or_(and_(lt(add(integer(1), integer(2)), sub(integer(5), integer(1))),
                             le(mul(real(2.0), integer(3)), div(integer(12), integer(2)))),
                        and_(gt(binary(BinaryOp::FloorDiv, integer(7), integer(2)), integer(2)),
                             ne(binary(BinaryOp::Mod, integer(7), integer(2)), integer(0))));
  Expr all_guard = and_(arithmetic, ge(numel(x), real(1.5)));
  m.definitions.push_back(definition(
      "Everything", 2,
      {alternate({term("x"), op("f"), term("y"), term("z"), op("g"), term("w")},
                 app(head_var(f),
                     {call(0, {arg(v(y))}),
                      app("split", {v(z)}, {{"axis", integer(0)}, {"sizes", ints({2, 2})}}, 1)}),
                 {guard(all_guard, 10), guard(eq(dim(x, neg(integer(1))), integer(4)), 11),
                  guard(eq(dtype(x), text("f32")), 12),
                  guard(in(op_name(y), {text("relu"), text("tanh")}), 13),
                  guard(eq(attr(f, "activation"), text("none")), 14),
                  guard(eq(shape(x), list({integer(4), dim(x, integer(0))})), 15),
                  guard(not_(proven(boolean(false))), 16),
                  guard(eq(op_name(f), text("matmul")), 17), guard(ge(rank(x), integer(1)), 18),
                  match(w, call(1, {arg(v(z)), arg(head("relu"))}), 19),
                  match(y, app(head_var(g), {v(z)}), 20)},
                 9)},
      8));
  m.rules.push_back(rule(
      "everything_rule", 2, {0, 1},
      tapp(head_var(1), {tv(0), tapp("mul", {tv(0), tconst(0.5)})}, {{"activation", text("relu")}}),
      {eq(op_name(1), text("matmul")), gt(rank(0), integer(0))}, 30));
  m.rules.push_back(rule("leaf_rule", 0, {0},
                         tapp("matmul", {tv(0), tv(0)}, {{"activation", text("relu")}}), {}, 31));
  return m;
}

std::string every_tag_bytes() {
  return write_pmb(every_tag_module());
}

// Expects read_pmb to throw a FormatError whose message contains `part`; returns its offset.
size_t expect_format_error(const std::string& bytes, const std::string& part) {
  try {
    read_pmb(bytes);
  } catch (const FormatError& error) {
    EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
        << "message: " << error.what() << "\nexpected to contain: " << part;
    return error.offset();
  }
  ADD_FAILURE() << "no FormatError; expected one mentioning: " << part;
  return 0;
}

// A one-definition module: P(x) := body.
Module single(Pattern body, std::vector<Var> vars = {term("x")}, uint32_t params = 1) {
  Module m;
  m.definitions.push_back(definition("P", params, {alternate(std::move(vars), std::move(body))}));
  return m;
}

void replace_all(std::string& bytes, const std::string& from, const std::string& to) {
  ASSERT_EQ(from.size(), to.size());
  size_t at = bytes.find(from);
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, from.size(), to);
}

}  // namespace

TEST(PmbFormat, RoundTripsEveryTag) {
  Module module = every_tag_module();
  check_module(module);
  std::string bytes = write_pmb(module);
  Module loaded = read_pmb(bytes);
  EXPECT_EQ(loaded, module);
  EXPECT_EQ(write_pmb(loaded), bytes);
}

TEST(PmbFormat, RoundTripsTheExamples) {
  Module module = testing_support::example_module();
  std::string bytes = write_pmb(module);
  EXPECT_EQ(read_pmb(bytes), module);
  EXPECT_EQ(write_pmb(read_pmb(bytes)), bytes);
}

TEST(PmbFormat, HeaderLayout) {
  std::string bytes = write_pmb(Module{});
  // magic, version 1, flags 0, one string (the empty source file name), source file = string 0,
  // no definitions, no rules.
  std::string expected(
      "SPMB\x01\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"
      "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
      28);
  EXPECT_EQ(bytes, expected);
  EXPECT_EQ(read_pmb(bytes), Module{});
}

TEST(PmbFormat, SavesAndLoadsFiles) {
  std::string path = ::testing::TempDir() + "pm_format_test.pmb";
  save_pmb(path, every_tag_module());
  EXPECT_EQ(load_pmb(path), every_tag_module());
  EXPECT_THROW(load_pmb(path + ".missing"), Error);
}

TEST(PmbLoader, RejectsBadMagic) {
  std::string bytes = every_tag_bytes();
  bytes[3] = 'X';
  EXPECT_EQ(expect_format_error(bytes, "magic"), 0u);
  EXPECT_EQ(expect_format_error("SP", "end of file"), 0u);
}

// A module whose rule also replaces a value its pattern bound: version 2.
Module further_replacement_module() {
  Module m = single(app("relu", {app("tanh", {v(0)})}), {term("x")}, 1);
  Rule r = rule("r", 0, {0}, tapp("sigmoid", {tv(0)}));
  r.also.push_back({0, tapp("relu", {tv(0)})});
  m.rules.push_back(std::move(r));
  return m;
}

TEST(PmbFormat, FurtherReplacementsNeedVersionTwoAndRoundTrip) {
  Module module = further_replacement_module();
  check_module(module);
  std::string bytes = write_pmb(module);
  EXPECT_EQ(bytes[4], 2);
  EXPECT_EQ(read_pmb(bytes), module);
  EXPECT_EQ(write_pmb(read_pmb(bytes)), bytes);
  // Without them the same module is written as version 1, byte for byte as before.
  module.rules[0].also.clear();
  EXPECT_EQ(write_pmb(module)[4], 1);
}

TEST(PmbLoader, RejectsFurtherReplacementsOfNonVariables) {
  Module module = further_replacement_module();
  module.rules[0].also[0].var = 3;
  expect_format_error(write_pmb(module), "also replaces variable 3");
  EXPECT_THROW(check_module(module), PatternError);
  module = further_replacement_module();
  module.rules[0].also.push_back(module.rules[0].also[0]);
  EXPECT_THROW(check_module(module), PatternError);
}

TEST(PmbLoader, RejectsBadVersionAndFlags) {
  std::string bytes = every_tag_bytes();
  bytes[4] = 3;
  EXPECT_EQ(expect_format_error(bytes, "unsupported version 3"), 4u);
  bytes = every_tag_bytes();
  bytes[6] = 1;
  EXPECT_EQ(expect_format_error(bytes, "flags"), 6u);
}

TEST(PmbLoader, RejectsTruncationAtEveryOffset) {
  std::string bytes = every_tag_bytes();
  for (size_t length = 0; length < bytes.size(); ++length) {
    try {
      read_pmb(bytes.substr(0, length));
      ADD_FAILURE() << "a prefix of " << length << " bytes loaded";
    } catch (const FormatError& error) {
      EXPECT_LE(error.offset(), length);
    }
  }
}

TEST(PmbLoader, RejectsTrailingBytes) {
  std::string bytes = every_tag_bytes();
  size_t size = bytes.size();
  EXPECT_EQ(expect_format_error(bytes + '\0', "1 trailing bytes"), size);
}

TEST(PmbLoader, RejectsBadStringIndices) {
  // The source file name is string 7 of an empty table.
  std::string bytes("SPMB\x01\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00", 16);
  EXPECT_EQ(expect_format_error(bytes, "string index 7"), 12u);
  std::string bad_utf8("SPMB\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\xff", 17);
  EXPECT_EQ(expect_format_error(bad_utf8, "UTF-8"), 12u);
}

TEST(PmbLoader, RejectsHugeCountsWithoutAllocating) {
  std::string bytes("SPMB\x01\x00\x00\x00\xff\xff\xff\xff", 12);
  EXPECT_EQ(expect_format_error(bytes, "cannot fit"), 8u);
}

TEST(PmbLoader, RejectsBadVariableIndices) {
  expect_format_error(write_pmb(single(v(5))), "variable 5 does not exist");
  Module m = single(app("relu", {v(0)}), {term("x")});
  m.definitions[0].alternates[0].constraints.push_back(guard(eq(rank(3), integer(1))));
  expect_format_error(write_pmb(m), "variable 3 does not exist");
}

TEST(PmbLoader, RejectsWrongVariableKinds) {
  expect_format_error(write_pmb(single(v(0), {op("f")}, 1)), "where a term variable is needed");
  expect_format_error(write_pmb(single(app(head_var(0), {v(0)}))), "used as an operator");
  Module m = single(app(head_var(1), {v(0)}), {term("x"), op("f")}, 2);
  m.definitions[0].alternates[0].constraints.push_back(guard(eq(rank(1), integer(1))));
  expect_format_error(write_pmb(m), "where a term variable is needed");
  Module subject = single(app(head_var(1), {v(0)}), {term("x"), op("f")}, 2);
  subject.definitions[0].alternates[0].constraints.push_back(match(1, v(0)));
  expect_format_error(write_pmb(subject), "subject of a match");
}

TEST(PmbLoader, RejectsBadDefinitionIndices) {
  expect_format_error(write_pmb(single(call(7, {arg(v(0))}))), "call of definition 7");
  Module m = single(app("relu", {v(0)}));
  m.rules.push_back(rule("r", 3, {0}, tv(0)));
  expect_format_error(write_pmb(m), "names definition 3");
  Module p = single(app("relu", {v(0)}));
  p.rules.push_back(rule("r", 0, {4}, tv(0)));
  expect_format_error(write_pmb(p), "names parameter 4");
}

TEST(PmbLoader, RejectsUnknownOperators) {
  std::string bytes = write_pmb(single(app("relu", {v(0)})));
  replace_all(bytes, "relu", "rxlu");
  expect_format_error(bytes, "unknown operator 'rxlu'");
}

TEST(PmbLoader, RejectsWrongArity) {
  expect_format_error(write_pmb(single(app("relu", {v(0), v(0)}))),
                      "'relu' takes 1 inputs, the pattern gives 2");
  Module m = single(app("relu", {v(0)}));
  m.rules.push_back(rule("r", 0, {0}, tapp("matmul", {tv(0)})));
  expect_format_error(write_pmb(m), "'matmul' takes 2 inputs");
}

TEST(PmbLoader, RejectsUnknownAttributeNames) {
  expect_format_error(write_pmb(single(app("relu", {v(0)}, {{"perm", ints({1, 0})}}))),
                      "'relu' has no attribute 'perm'");
  Module m = single(app("relu", {v(0)}));
  m.rules.push_back(rule("r", 0, {0}, tapp("transpose", {tv(0)})));
  expect_format_error(write_pmb(m), "without its required attribute 'perm'");
}

TEST(PmbLoader, RejectsCallArityAndKindMismatches) {
  Module m = testing_support::example_module();
  m.definitions[1].alternates[0].body = call(0, {arg(v(0))});  // TransposedProduct has 2
  expect_format_error(write_pmb(m), "with 1 arguments; it has 2 parameters");
  Module k = testing_support::example_module();
  k.definitions[2].alternates[0].body =
      app(head_var(1), {call(2, {arg(v(0)), arg(v(0))})});  // f given a pattern
  expect_format_error(write_pmb(k), "is a pattern, but parameter 'f' is an op variable");
}

TEST(PmbLoader, RejectsParameterKindsThatDisagree) {
  Module m = testing_support::example_module();
  m.definitions[2].alternates[1].vars[1].kind = VarKind::Term;
  m.definitions[2].alternates[1].body = app("relu", {v(0)});
  expect_format_error(write_pmb(m), "in the first alternate");
}

TEST(PmbLoader, RejectsRecursionWithoutBaseCase) {
  Module m = testing_support::example_module();
  m.definitions[2].alternates.pop_back();  // UnaryChain without f(x)
  m.rules.clear();
  expect_format_error(write_pmb(m), "recursion without a base case");
  // Mutual: A(x) := relu(B(x)), B(x) := tanh(A(x)).
  Module mutual;
  mutual.definitions.push_back(
      definition("A", 1, {alternate({term("x")}, app("relu", {call(1, {arg(v(0))})}))}));
  mutual.definitions.push_back(
      definition("B", 1, {alternate({term("x")}, app("tanh", {call(0, {arg(v(0))})}))}));
  expect_format_error(write_pmb(mutual), "recursion without a base case");
}

TEST(PmbLoader, RejectsLeftRecursion) {
  // L(x) := L(x) | relu(x): the first alternate calls L at the same value.
  Module m;
  m.definitions.push_back(definition(
      "L", 1,
      {alternate({term("x")}, call(0, {arg(v(0))})), alternate({term("x")}, app("relu", {v(0)}))}));
  expect_format_error(write_pmb(m), "left recursion: 'L' -> 'L'");
  // A -> B -> A through an inline choice.
  Module mutual;
  mutual.definitions.push_back(definition(
      "A", 1, {alternate({term("x")}, alt({app("relu", {v(0)}), call(1, {arg(v(0))})}))}));
  mutual.definitions.push_back(definition("B", 1, {alternate({term("x")}, call(0, {arg(v(0))}))}));
  expect_format_error(write_pmb(mutual), "left recursion: 'A' -> 'B' -> 'A'");
  // Through a match constraint on the root variable: S(x) := x where x <= S(x) | relu(x).
  Module constrained;
  constrained.definitions.push_back(
      definition("S", 1,
                 {alternate({term("x")}, v(0), {match(0, call(0, {arg(v(0))}))}),
                  alternate({term("x")}, app("relu", {v(0)}))}));
  expect_format_error(write_pmb(constrained), "left recursion");
  // Recursion that consumes a node is fine (UnaryChain), and so is a constraint on a deeper
  // value: D(x) := relu(y) where y <= D(z).
  Module deeper;
  deeper.definitions.push_back(
      definition("D", 1,
                 {alternate({term("x"), term("y"), term("z")}, app("relu", {v(1)}),
                            {match(1, call(0, {arg(v(2))})), match(0, v(2))}),
                  alternate({term("x")}, v(0))}));
  EXPECT_NO_THROW(read_pmb(write_pmb(deeper)));
}

TEST(PmbLoader, RejectsUnknownTags) {
  Module m = single(app("relu", {v(0)}));
  std::string bytes = write_pmb(m);
  // The body starts after the variable list: tag 1 (APP). Find it from the end: the body is
  // APP(1) head NAME(0) str | u32 output | u32 nargs | VAR(0) u32 | u32 nattrs, then 0
  // constraints and 0 rules.
  size_t body = bytes.size() - 4 - 4 - (1 + 1 + 4 + 4 + 4 + 5 + 4);
  ASSERT_EQ(bytes[body], 1);
  std::string bad_pattern = bytes;
  bad_pattern[body] = 9;
  EXPECT_EQ(expect_format_error(bad_pattern, "unknown pattern tag 9"), body);
  std::string bad_head = bytes;
  bad_head[body + 1] = 5;
  expect_format_error(bad_head, "unknown head tag 5");
  Module g = single(app("relu", {v(0)}));
  g.definitions[0].alternates[0].constraints.push_back(guard(boolean(true)));
  std::string guarded = write_pmb(g);
  std::string bad_expr = guarded;
  bad_expr[guarded.size() - 4 - 2] = 99;  // the BOOL tag of the guard
  expect_format_error(bad_expr, "unknown expression tag 99");
  std::string bad_bool = guarded;
  bad_bool[guarded.size() - 4 - 1] = 2;
  expect_format_error(bad_bool, "must be 0 or 1");
  std::string bad_constraint = guarded;
  bad_constraint[guarded.size() - 4 - 2 - 4 - 1] = 7;
  expect_format_error(bad_constraint, "unknown constraint tag 7");
}

TEST(PmbLoader, RejectsEmptyChoicesAndDefinitions) {
  expect_format_error(write_pmb(single(alt({}))), "at least one option");
  Module m;
  m.definitions.push_back(definition("Empty", 0, {}));
  expect_format_error(write_pmb(m), "has no alternates");
}

TEST(PmbLoader, LimitsNesting) {
  Expr deep = boolean(true);
  for (int i = 0; i < 5000; ++i) deep = not_(std::move(deep));
  Module m = single(app("relu", {v(0)}));
  m.definitions[0].alternates[0].constraints.push_back(guard(std::move(deep)));
  std::string bytes = write_pmb(m);
  // Free the deeply nested Expr iteratively would need care; let the module go out of scope
  // normally (5000 levels of destructors is fine).
  expect_format_error(bytes, "nesting deeper than");
}

// A long chain of definitions, each calling the next below a relu (the last one is the base
// case), listed callers first. The checks visit callees first, so this loads in a fraction of a
// second (a sweep per link took 6.5 s); the time is not asserted, since machines are noisy.
TEST(PmbLoader, LoadsLongCallChains) {
  Module m;
  const uint32_t n = 20000;
  for (uint32_t d = 0; d < n; ++d) {
    Pattern body = d + 1 < n ? app("relu", {call(d + 1, {arg(v(0))})}) : app("relu", {v(0)});
    m.definitions.push_back(
        definition("D" + std::to_string(d), 1, {alternate({term("x")}, std::move(body))}));
  }
  Module loaded = read_pmb(write_pmb(m));
  EXPECT_EQ(loaded.definitions.size(), n);
}

// Random corruptions of a valid file: every outcome is a loaded module or a FormatError.
TEST(PmbLoader, SurvivesRandomCorruption) {
  std::string valid = every_tag_bytes();
  std::mt19937 random(1234);
  int loaded = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string bytes = valid;
    int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = random() % bytes.size();
      switch (random() % 4) {
        case 0:
          bytes[at] = static_cast<char>(random() & 0xff);
          break;
        case 1:
          bytes[at] = static_cast<char>(bytes[at] ^ (1 << (random() % 8)));
          break;
        case 2:
          bytes.erase(at, 1 + random() % 8);
          break;
        default:
          bytes.insert(at, 1, static_cast<char>(random() & 0xff));
          break;
      }
      if (bytes.empty()) bytes = "S";
    }
    try {
      Module module = read_pmb(bytes);
      check_module(module);  // whatever loads is a valid module
      ++loaded;
    } catch (const FormatError&) {
    }
  }
  EXPECT_GT(loaded, 0);  // some edits are harmless (a line number, a float)
  // Pure noise, too.
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bytes = "SPMB\x01";
    bytes += std::string(3, '\0');
    size_t length = random() % 64;
    for (size_t i = 0; i < length; ++i) bytes.push_back(static_cast<char>(random() & 0xff));
    try {
      read_pmb(bytes);
    } catch (const FormatError&) {
    }
  }
}

TEST(ModuleCheck, AcceptsTheExamplesAndRejectsWhatTheLoaderRejects) {
  EXPECT_NO_THROW(check_module(testing_support::example_module()));
  Module m = testing_support::example_module();
  m.definitions[2].alternates.pop_back();
  try {
    check_module(m);
    ADD_FAILURE() << "no error";
  } catch (const PatternError& error) {
    EXPECT_NE(std::string(error.what()).find("rules.py:17: pattern 'UnaryChain'"),
              std::string::npos)
        << error.what();
  }
  Module bad_var = single(v(3));
  EXPECT_THROW(check_module(bad_var), PatternError);
  Module bad_rule = testing_support::example_module();
  bad_rule.rules[0].replacement = tv(7);
  EXPECT_THROW(check_module(bad_rule), PatternError);
}
