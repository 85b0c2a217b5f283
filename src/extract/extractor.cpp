#include "extract/extractor.h"

#include "extract/bottom_up_extractor.h"
#include "extract/greedy_dag_extractor.h"
#include "extract/ilp_extractor.h"
#include "support/error.h"

namespace saturate::extract {

std::string_view to_string(CycleHandling cycles) {
  switch (cycles) {
    case CycleHandling::none:
      return "none";
    case CycleHandling::lazy:
      return "lazy";
    case CycleHandling::real_order:
      return "real";
    case CycleHandling::integer_order:
      return "integer";
  }
  return "?";
}

CycleHandling parse_cycle_handling(std::string_view text) {
  for (CycleHandling cycles : {CycleHandling::none, CycleHandling::lazy, CycleHandling::real_order,
                               CycleHandling::integer_order}) {
    if (text == to_string(cycles)) return cycles;
  }
  throw Error("unknown cycle handling '" + std::string(text) +
              "'; expected none, lazy, real or integer");
}

std::unique_ptr<Extractor> make_extractor(std::string_view name) {
  if (name == "bottom-up") return std::make_unique<BottomUpExtractor>();
  if (name == "greedy-dag") return std::make_unique<GreedyDagExtractor>();
  if (name == "ilp") return std::make_unique<IlpExtractor>();
  throw Error("unknown extractor '" + std::string(name) +
              "'; expected bottom-up, greedy-dag or ilp");
}

std::vector<std::string> extractor_names() {
  return {"bottom-up", "greedy-dag", "ilp"};
}

}  // namespace saturate::extract
