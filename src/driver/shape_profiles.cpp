#include "driver/shape_profiles.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <variant>

#include "ir/op_registry.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::driver {
namespace {

constexpr const char* kProfileSyntax =
    "write NAME=SIZE,NAME=SIZE[@WEIGHT], e.g. batch=1,sequence=128 or batch=8,sequence=512@0.5";

std::string_view trim(std::string_view text) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

bool is_batch(std::string_view symbol) {
  return lowercase(symbol).find("batch") != std::string::npos;
}

int64_t lower_bound_of(std::string_view symbol) {
  auto id = ir::find_symbol(symbol);
  return id ? ir::symbol_lower_bound(*id) : 0;
}

void collect_symbols(int64_t dim, std::set<std::string>& names) {
  if (!ir::is_symbolic(dim)) return;
  for (ir::SymbolId id : ir::to_expr(dim).symbols()) names.insert(ir::symbol_name(id));
}

// Every dimension of the graph at the profile is a size (an integer, not negative); throws
// saturate::Error naming the value otherwise.
void check_graph_at(const ir::Graph& graph, const ShapeProfile& profile) {
  for (const auto& assumption : ir::assumptions()) {
    auto value = ir::to_expr(assumption.dim).evaluate(profile.sizes);
    auto bound = ir::to_expr(assumption.bound).evaluate(profile.sizes);
    if (value && bound && *value > *bound) {
      const std::string bound_text =
          ir::is_symbolic(assumption.bound)
              ? ir::dim_to_string(assumption.bound) + " = " + std::to_string(*bound)
              : std::to_string(*bound);
      throw Error("profile '" + profile.name + "': the model accepts " +
                  ir::dim_to_string(assumption.dim) + " <= " + ir::dim_to_string(assumption.bound) +
                  " only (" + assumption.reason + "), and this profile makes it " +
                  std::to_string(*value) + " > " + bound_text);
    }
  }
  for (const ir::Node& node : graph.nodes()) {
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      try {
        ir::evaluate_dims(node.outputs[k].dims, profile.sizes);
      } catch (const Error& error) {
        const std::string& value =
            k < node.output_names.size() ? node.output_names[k] : node.name();
        throw Error("profile '" + profile.name + "': value '" + value + "' of shape " +
                    ir::to_string(node.outputs[k].dims) + ": " + error.what());
      }
    }
  }
}

bool fits(const ir::Graph& graph, const ShapeProfile& profile) {
  try {
    check_graph_at(graph, profile);
    return true;
  } catch (const Error&) {
    return false;
  }
}

// Sizes chosen by Saturate (defaults, adversarial sizes) brought within the assumptions over
// several symbols (`past_sequence_length + sequence_length <= 64` for positions read from a
// table, `<= total_sequence_length` for positions read from a mask): the largest length of a
// violated one's left side is halved, rounding up (odd sizes stay odd), until it holds or nothing
// can shrink. Batch symbols and the symbols of the bound are left as they are.
void fit_to_assumptions(ir::SymbolBinding& sizes) {
  for (const auto& assumption : ir::assumptions()) {
    const std::vector<ir::SymbolId> bound_symbols = ir::to_expr(assumption.bound).symbols();
    for (int step = 0; step < 64; ++step) {
      auto value = ir::to_expr(assumption.dim).evaluate(sizes);
      auto bound = ir::to_expr(assumption.bound).evaluate(sizes);
      if (!value || !bound || *value <= *bound) break;
      std::string largest;
      for (ir::SymbolId id : ir::to_expr(assumption.dim).symbols()) {
        const std::string name = ir::symbol_name(id);
        auto it = sizes.find(name);
        if (it == sizes.end() || is_batch(name) || it->second <= lower_bound_of(name)) continue;
        if (std::find(bound_symbols.begin(), bound_symbols.end(), id) != bound_symbols.end()) {
          continue;
        }
        if (largest.empty() || it->second > sizes.at(largest)) largest = name;
      }
      if (largest.empty()) break;
      int64_t& size = sizes.at(largest);
      // Half, rounded up; an odd size stays odd (7 -> 3, 37 -> 19), so that the odd
      // adversarial sizes still probe odd lengths once shrunk.
      int64_t half = size - size / 2;
      if (size % 2 == 1 && half % 2 == 0) --half;
      size = std::max(lower_bound_of(largest), half);
    }
  }
}

}  // namespace

int64_t default_symbol_size(std::string_view symbol) {
  int64_t size = is_batch(symbol) ? kDefaultBatchSize : kDefaultLength;
  // A length the model accepts only up to a table's size (ir::assume_at_most) stays within it.
  if (auto id = ir::find_symbol(symbol)) {
    const int64_t dim = ir::symbol_dim(*id);
    for (const auto& assumption : ir::assumptions()) {
      if (assumption.dim == dim && !ir::is_symbolic(assumption.bound)) {
        size = std::min(size, assumption.bound);
      }
    }
  }
  return std::max(size, lower_bound_of(symbol));
}

ShapeProfile parse_shape_profile(std::string_view text) {
  const std::string quoted = "profile '" + std::string(text) + "'";
  auto fail = [&](const std::string& why) { return Error(quoted + ": " + why); };
  ShapeProfile profile;
  std::string_view sizes = trim(text);
  if (const size_t at = sizes.find('@'); at != std::string_view::npos) {
    const std::string_view weight = trim(sizes.substr(at + 1));
    auto value = parse_double(weight);
    if (!value || !std::isfinite(*value) || !(*value > 0)) {
      throw fail("the weight '" + std::string(weight) + "' is not a positive number (" +
                 kProfileSyntax + ")");
    }
    profile.weight = *value;
    sizes = trim(sizes.substr(0, at));
  }
  if (sizes.empty()) throw fail(std::string("no sizes given (") + kProfileSyntax + ")");
  profile.name = std::string(sizes);
  size_t start = 0;
  while (start <= sizes.size()) {
    size_t end = sizes.find(',', start);
    if (end == std::string_view::npos) end = sizes.size();
    const std::string_view item = trim(sizes.substr(start, end - start));
    start = end + 1;
    const size_t equals = item.find('=');
    if (item.empty() || equals == std::string_view::npos) {
      throw fail("'" + std::string(item) + "' is not NAME=SIZE (" + kProfileSyntax + ")");
    }
    const std::string name(trim(item.substr(0, equals)));
    const std::string_view size_text = trim(item.substr(equals + 1));
    if (name.empty()) throw fail("a size without a name (" + std::string(kProfileSyntax) + ")");
    auto size = parse_int(size_text);
    if (!size) {
      throw fail("the size of " + name + ", '" + std::string(size_text) + "', is not an integer (" +
                 kProfileSyntax + ")");
    }
    if (*size < 0) {
      throw fail("the size of " + name + " cannot be negative, got " + std::to_string(*size));
    }
    if (!profile.sizes.emplace(name, *size).second) throw fail(name + " is given twice");
  }
  return profile;
}

std::vector<std::string> graph_symbols(const ir::Graph& graph) {
  std::set<std::string> names;
  for (const ir::Node& node : graph.nodes()) {
    for (const ir::TensorType& type : node.outputs) {
      for (int64_t dim : type.dims) collect_symbols(dim, names);
    }
    for (const auto& [name, value] : node.attrs.entries()) {
      if (const auto* number = std::get_if<int64_t>(&value)) collect_symbols(*number, names);
      if (const auto* numbers = std::get_if<std::vector<int64_t>>(&value)) {
        for (int64_t dim : *numbers) collect_symbols(dim, names);
      }
    }
  }
  return {names.begin(), names.end()};
}

std::vector<ShapeProfile> complete_profiles(const ir::Graph& graph,
                                            std::vector<ShapeProfile> given) {
  const std::vector<std::string> symbols = graph_symbols(graph);
  auto defaults = [&] {
    ir::SymbolBinding sizes;
    for (const std::string& symbol : symbols) sizes.emplace(symbol, default_symbol_size(symbol));
    fit_to_assumptions(sizes);
    return sizes;
  };
  if (given.empty()) return {ShapeProfile{"default", defaults(), 1}};

  const std::string known =
      symbols.empty()
          ? "the model has no symbolic dimensions"
          : "its symbols: " + join(symbols, ", ", [](const std::string& s) { return s; });
  std::set<std::string> names;
  for (ShapeProfile& profile : given) {
    if (!names.insert(profile.name).second) {
      throw Error("profile '" + profile.name + "' is given twice");
    }
    if (!std::isfinite(profile.weight) || !(profile.weight > 0)) {
      throw Error("profile '" + profile.name + "': the weight " + format_double(profile.weight) +
                  " is not a positive number");
    }
    for (const auto& [symbol, size] : profile.sizes) {
      if (!std::binary_search(symbols.begin(), symbols.end(), symbol)) {
        throw Error("profile '" + profile.name + "': " + symbol +
                    " is not a symbolic dimension of the model (" + known + ")");
      }
      const int64_t least = lower_bound_of(symbol);
      if (size < least) {
        throw Error("profile '" + profile.name + "': " + symbol + "=" + std::to_string(size) +
                    " is below the least size " + symbol + " may take, " + std::to_string(least));
      }
    }
    for (auto& [symbol, size] : defaults()) profile.sizes.emplace(symbol, size);
    check_graph_at(graph, profile);
  }
  return given;
}

std::vector<ShapeProfile> parse_shape_profiles(const ir::Graph& graph,
                                               const std::vector<std::string>& texts) {
  std::vector<ShapeProfile> profiles;
  profiles.reserve(texts.size());
  for (const std::string& text : texts) profiles.push_back(parse_shape_profile(text));
  return complete_profiles(graph, std::move(profiles));
}

std::vector<ShapeProfile> adversarial_bindings(const ir::Graph& graph,
                                               const std::vector<ShapeProfile>& profiles) {
  const std::vector<std::string> symbols = graph_symbols(graph);
  if (symbols.empty()) return {};
  auto binding = [&](const std::string& name, auto size_of) {
    ShapeProfile profile{name, {}, 1};
    for (const std::string& symbol : symbols) {
      profile.sizes.emplace(symbol, std::max(size_of(symbol), lower_bound_of(symbol)));
    }
    fit_to_assumptions(profile.sizes);
    return profile;
  };
  const ShapeProfile candidates[] = {
      binding("ones", [](const std::string&) -> int64_t { return 0; }),
      binding("odd-7", [](const std::string&) -> int64_t { return 7; }),
      binding("odd-37",
              [](const std::string& symbol) -> int64_t { return is_batch(symbol) ? 3 : 37; }),
  };
  std::vector<ShapeProfile> chosen;
  auto seen = [](const std::vector<ShapeProfile>& list, const ShapeProfile& candidate) {
    return std::any_of(list.begin(), list.end(), [&](const ShapeProfile& profile) {
      return profile.sizes == candidate.sizes;
    });
  };
  for (const ShapeProfile& candidate : candidates) {
    if (seen(profiles, candidate) || seen(chosen, candidate) || !fits(graph, candidate)) continue;
    chosen.push_back(candidate);
  }
  return chosen;
}

ir::Dims concrete_dims(const ir::Dims& dims, const ShapeProfile& profile) {
  try {
    return ir::evaluate_dims(dims, profile.sizes);
  } catch (const Error& error) {
    throw Error("profile '" + profile.name + "': shape " + ir::to_string(dims) + ": " +
                error.what());
  }
}

ir::Graph concrete_graph(const ir::Graph& graph, const ShapeProfile& profile) {
  ir::Graph bound(graph.name());
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& node = graph.node(id);
    try {
      std::vector<ir::TensorType> inputs;
      inputs.reserve(node.inputs.size());
      for (const ir::ValueRef& input : node.inputs) inputs.push_back(graph.type(input));
      const cost::OwnedOpConfig config =
          cost::bind_config({node.op, node.attrs, inputs, node.outputs}, profile.sizes);
      const ir::NodeId added =
          bound.add_node(node.op, node.inputs, config.attrs, node.output_names);
      if (bound.node(added).outputs != config.outputs) {
        throw Error("its bound output shape " + ir::to_string(bound.node(added).outputs.front()) +
                    " differs from its shape " + ir::to_string(node.outputs.front()) +
                    " evaluated at the profile, " + ir::to_string(config.outputs.front()));
      }
    } catch (const Error& error) {
      throw Error("profile '" + profile.name + "': cannot bind node '" + node.name() + "' (" +
                  std::string(ir::to_string(node.op)) + ") of graph '" + graph.name() +
                  "': " + error.what());
    }
  }
  for (const ir::GraphOutput& output : graph.outputs()) bound.add_output(output.name, output.value);
  return bound;
}

std::vector<cost::WeightedBinding> weighted_bindings(const std::vector<ShapeProfile>& profiles) {
  std::vector<cost::WeightedBinding> bindings;
  bindings.reserve(profiles.size());
  for (const ShapeProfile& profile : profiles) bindings.push_back({profile.sizes, profile.weight});
  return bindings;
}

std::unique_ptr<cost::CostModel> price_at_profiles(std::unique_ptr<cost::CostModel> model,
                                                   const ir::Graph& graph,
                                                   const std::vector<ShapeProfile>& profiles) {
  if (graph_symbols(graph).empty()) return model;
  return std::make_unique<cost::ProfiledCostModel>(std::move(model), weighted_bindings(profiles));
}

std::string to_string(const ShapeProfile& profile) {
  std::string text = join(profile.sizes, ",", [](const auto& entry) {
    return entry.first + "=" + std::to_string(entry.second);
  });
  if (profile.weight != 1) text += "@" + format_double(profile.weight);
  return text;
}

nlohmann::ordered_json to_json(const ShapeProfile& profile) {
  nlohmann::ordered_json sizes = nlohmann::ordered_json::object();
  for (const auto& [symbol, size] : profile.sizes) sizes[symbol] = size;
  nlohmann::ordered_json json;
  json["name"] = profile.name;
  json["sizes"] = std::move(sizes);
  json["weight"] = profile.weight;
  return json;
}

nlohmann::ordered_json to_json(const std::vector<ShapeProfile>& profiles) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ShapeProfile& profile : profiles) list.push_back(to_json(profile));
  return list;
}

}  // namespace saturate::driver
