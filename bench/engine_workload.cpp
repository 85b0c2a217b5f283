// Runs a rewrite workload on Saturate's generic e-graph (src/egraph) and prints one JSON object:
// the e-graph size and elapsed time after every iteration, the totals and the peak RSS. The
// other half of the comparison, egglog, runs the same workload from bench/engine.py.
//
//   build/bin/engine_bench --workload W.txt --iter-limit 8 [--node-limit N] [--scheduler simple]
//                          [--search incremental|full]
//
// Workload file, one item a line ('#' starts a comment):
//   rule NAME LHS => RHS      an unconditional rewrite in egg's syntax, e.g. (+ ?a ?b) => (+ ?b ?a)
//   term EXPR                 a start term, added to the one e-graph before the run
//
// The language is egg's arithmetic (+ - * / pow over integers and symbols) without an analysis
// (NoAnalysis): purely syntactic rewriting, which is what egglog does without merge functions.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/rewrite.h"
#include "egraph/runner.h"
#include "egraph/scheduler.h"
#include "egraph/symbol.h"
#include "egraph/term.h"
#include "support/error.h"
#include "support/hash.h"
#include "support/strings.h"

using namespace saturate;
using namespace saturate::egraph;

namespace {

struct MathOp {
  enum class Kind : std::uint8_t { Num, Symbol, Add, Sub, Mul, Div, Pow };

  Kind kind = Kind::Num;
  std::int64_t value = 0;  // Num: the number; Symbol: the interned name's id

  friend auto operator<=>(const MathOp&, const MathOp&) = default;

  std::size_t hash() const {
    std::size_t seed = static_cast<std::size_t>(kind);
    hash_combine(seed, value);
    return seed;
  }
  std::uint32_t index() const { return static_cast<std::uint32_t>(kind); }
  std::string to_string() const {
    switch (kind) {
      case Kind::Num:
        return std::to_string(value);
      case Kind::Symbol:
        return Symbol::from_id(static_cast<std::uint32_t>(value)).to_string();
      case Kind::Add:
        return "+";
      case Kind::Sub:
        return "-";
      case Kind::Mul:
        return "*";
      case Kind::Div:
        return "/";
      case Kind::Pow:
        return "pow";
    }
    return "?";
  }
  static std::optional<MathOp> parse(std::string_view text, std::size_t arity) {
    if (arity == 2) {
      if (text == "+") return MathOp{Kind::Add, 0};
      if (text == "-") return MathOp{Kind::Sub, 0};
      if (text == "*") return MathOp{Kind::Mul, 0};
      if (text == "/") return MathOp{Kind::Div, 0};
      if (text == "pow") return MathOp{Kind::Pow, 0};
      return std::nullopt;
    }
    if (arity != 0) return std::nullopt;
    if (std::optional<std::int64_t> n = parse_int(text)) return MathOp{Kind::Num, *n};
    return MathOp{Kind::Symbol, Symbol(text).id()};
  }
};

static_assert(Operator<MathOp>);

using Rule = Rewrite<MathOp>;
using MathRunner = Runner<MathOp>;
using Clock = std::chrono::steady_clock;

struct Workload {
  std::vector<Rule> rules;
  std::vector<std::string> terms;
};

std::string trim(std::string_view text) {
  std::size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  std::size_t end = text.find_last_not_of(" \t\r");
  return std::string(text.substr(begin, end - begin + 1));
}

Workload read_workload(const std::string& path) {
  Workload workload;
  std::istringstream lines(read_file(path));
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::string text = trim(line.substr(0, line.find('#')));
    if (text.empty()) continue;
    std::string where = path + ":" + std::to_string(number) + ": ";
    if (text.rfind("rule ", 0) == 0) {
      std::string rest = trim(std::string_view(text).substr(5));
      std::size_t space = rest.find(' ');
      std::size_t arrow = rest.find("=>");
      if (space == std::string::npos || arrow == std::string::npos || arrow < space)
        throw Error(where + "expected 'rule NAME LHS => RHS'");
      std::string name = rest.substr(0, space);
      std::string lhs = trim(std::string_view(rest).substr(space + 1, arrow - space - 1));
      std::string rhs = trim(std::string_view(rest).substr(arrow + 2));
      workload.rules.push_back(Rule::parse(name, lhs, rhs));
    } else if (text.rfind("term ", 0) == 0) {
      workload.terms.push_back(trim(std::string_view(text).substr(5)));
    } else {
      throw Error(where + "expected 'rule' or 'term'");
    }
  }
  return workload;
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: KiB
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Run a rewrite workload on Saturate's e-graph and print JSON"};
  std::string workload_path;
  std::size_t iter_limit = 10;
  std::size_t node_limit = std::numeric_limits<std::size_t>::max() / 4;
  double time_limit = 3600;
  std::string scheduler = "simple";
  app.add_option("--workload", workload_path, "Workload file (rules and start terms)")->required();
  app.add_option("--iter-limit", iter_limit, "Iteration limit");
  app.add_option("--node-limit", node_limit, "E-node limit (default: none)");
  app.add_option("--time-limit", time_limit, "Time limit (s)");
  std::string search = "incremental";
  app.add_option("--search", search,
                 "incremental: after a rule's first search only matches new since its last "
                 "(semi-naive, as egglog); full: every match every iteration (as egg)")
      ->check(CLI::IsMember({"incremental", "full"}));
  app.add_option("--scheduler", scheduler, "simple: every match; backoff: egg's BackoffScheduler")
      ->check(CLI::IsMember({"simple", "backoff"}));
  CLI11_PARSE(app, argc, argv);

  try {
    double rss_before = peak_rss_mib();
    Workload workload = read_workload(workload_path);
    MathRunner runner;
    runner.with_iteration_limit(iter_limit)
        .with_node_limit(node_limit)
        .with_time_limit(std::chrono::duration<double>(time_limit));
    if (scheduler == "simple") runner.with_scheduler(std::make_unique<SimpleScheduler>());
    runner.with_incremental_search(search == "incremental");

    Clock::time_point start = Clock::now();
    for (const std::string& text : workload.terms) runner.add_term(Term<MathOp>::parse(text));

    struct Point {
      std::size_t nodes, classes;
      double seconds;
    };
    std::vector<Point> trace;
    runner.with_iteration_end_hook([&trace, start](MathRunner& r) {
      trace.push_back({r.egraph.node_count(), r.egraph.class_count(),
                       std::chrono::duration<double>(Clock::now() - start).count()});
      return true;
    });
    runner.run(workload.rules);
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    RunReport report = runner.report();

    std::ostringstream out;
    out.precision(9);
    out << "{\"engine\": \"saturate\", \"scheduler\": \"" << scheduler << "\", \"search\": \""
        << search << "\""
        << ", \"rules\": " << workload.rules.size() << ", \"terms\": " << workload.terms.size()
        << ", \"iterations\": " << report.iterations << ", \"stop_reason\": \""
        << (report.stop_reason ? report.stop_reason->kind_name() : std::string("none")) << "\""
        << ", \"enodes\": " << runner.egraph.node_count()
        << ", \"eclasses\": " << runner.egraph.class_count() << ", \"applied\": " << report.applied
        << ", \"seconds\": " << seconds << ", \"search_seconds\": " << report.search_seconds
        << ", \"apply_seconds\": " << report.apply_seconds
        << ", \"rebuild_seconds\": " << report.rebuild_seconds
        << ", \"peak_rss_mib\": " << peak_rss_mib() << ", \"rss_at_start_mib\": " << rss_before
        << ", \"trace\": [";
    // The hook does not run after an iteration that stopped on a limit; the last point is the end.
    if (trace.size() < report.iterations)
      trace.push_back({runner.egraph.node_count(), runner.egraph.class_count(), seconds});
    for (std::size_t i = 0; i < trace.size(); ++i) {
      // Matches found (old ones included: every iteration searches the whole e-graph) and
      // merges that changed the e-graph.
      std::size_t matches = 0;
      std::size_t applied = 0;
      if (i < report.iteration_stats.size()) {
        for (const RuleIterationStats& rule : report.iteration_stats[i].rules)
          matches += rule.matches;
        applied = report.iteration_stats[i].applied;
      }
      out << (i ? ", " : "") << "{\"iteration\": " << i + 1 << ", \"enodes\": " << trace[i].nodes
          << ", \"eclasses\": " << trace[i].classes << ", \"seconds\": " << trace[i].seconds
          << ", \"matches\": " << matches << ", \"applied\": " << applied << "}";
    }
    out << "]}";
    std::cout << out.str() << std::endl;
  } catch (const std::exception& error) {
    std::cerr << "engine_bench: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
