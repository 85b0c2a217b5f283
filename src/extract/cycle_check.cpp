#include "extract/cycle_check.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <queue>
#include <set>
#include <utility>

namespace saturate::extract {

namespace {

enum class Mark : std::uint8_t { unvisited, on_path, done };

}  // namespace

std::vector<ClassCycle> find_choice_cycles(const ExtractionGraph& graph,
                                           const std::vector<NodeIndex>& choice,
                                           std::size_t max_cycles) {
  std::vector<ClassCycle> cycles;
  if (max_cycles == 0) return cycles;
  std::vector<Mark> mark(graph.class_count(), Mark::unvisited);
  // Depth-first search with an explicit stack (e-graphs can be thousands of classes deep): each
  // frame is a class and the position of the next child to visit.
  std::vector<std::pair<ClassIndex, std::size_t>> path;
  auto chosen = [&](ClassIndex c) { return c < choice.size() ? choice[c] : kNoNode; };
  for (ClassIndex root : graph.roots) {
    if (mark[root] != Mark::unvisited || chosen(root) == kNoNode) continue;
    mark[root] = Mark::on_path;
    path.emplace_back(root, 0);
    while (!path.empty()) {
      auto& [eclass, next] = path.back();
      const auto& children = graph.nodes[chosen(eclass)].children;
      if (next == children.size()) {
        mark[eclass] = Mark::done;
        path.pop_back();
        continue;
      }
      const ClassIndex child = children[next++];
      if (mark[child] == Mark::on_path) {
        auto start = std::find_if(path.begin(), path.end(),
                                  [&](const auto& frame) { return frame.first == child; });
        ClassCycle cycle;
        for (auto it = start; it != path.end(); ++it) cycle.push_back(it->first);
        cycles.push_back(std::move(cycle));
        if (cycles.size() >= max_cycles) return cycles;
      } else if (mark[child] == Mark::unvisited && chosen(child) != kNoNode) {
        mark[child] = Mark::on_path;
        path.emplace_back(child, 0);  // invalidates eclass and next; the loop re-reads them
      }
    }
  }
  return cycles;
}

bool choice_is_acyclic(const ExtractionGraph& graph, const std::vector<NodeIndex>& choice) {
  return find_choice_cycles(graph, choice, 1).empty();
}

std::vector<ClassCycle> find_light_cycles(const std::vector<std::vector<WeightedEdge>>& edges,
                                          const std::vector<double>& threshold,
                                          std::size_t max_cycles) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  constexpr ClassIndex kNone = std::numeric_limits<ClassIndex>::max();
  const std::size_t count = edges.size();
  std::vector<ClassIndex> sources;
  for (ClassIndex s = 0; s < count; ++s) {
    if (threshold[s] > 0 && !edges[s].empty()) sources.push_back(s);
  }
  std::stable_sort(sources.begin(), sources.end(),
                   [&](ClassIndex a, ClassIndex b) { return threshold[a] > threshold[b]; });

  std::vector<ClassCycle> cycles;
  std::set<ClassCycle> seen;
  std::vector<double> distance(count, kInfinity);
  std::vector<ClassIndex> parent(count, kNone);
  std::vector<ClassIndex> touched;
  using Entry = std::pair<double, ClassIndex>;
  for (ClassIndex source : sources) {
    if (cycles.size() >= max_cycles) break;
    for (ClassIndex c : touched) {
      distance[c] = kInfinity;
      parent[c] = kNone;
    }
    touched.clear();
    // Dijkstra from the source; an edge back into the source closes a cycle. Paths at or above
    // the threshold are not explored: they cannot give a violated cut.
    double best_cycle = threshold[source];
    ClassIndex closing = kNone;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    distance[source] = 0;
    touched.push_back(source);
    queue.emplace(0.0, source);
    while (!queue.empty()) {
      const auto [d, u] = queue.top();
      queue.pop();
      if (d > distance[u]) continue;
      if (d >= best_cycle) break;
      for (const WeightedEdge& edge : edges[u]) {
        const double next = d + edge.weight;
        if (edge.to == source) {
          if (next < best_cycle) {
            best_cycle = next;
            closing = u;
          }
          continue;
        }
        if (next < distance[edge.to] && next < best_cycle) {
          if (distance[edge.to] == kInfinity) touched.push_back(edge.to);
          distance[edge.to] = next;
          parent[edge.to] = u;
          queue.emplace(next, edge.to);
        }
      }
    }
    if (closing == kNone) continue;
    ClassCycle cycle;
    for (ClassIndex c = closing; c != source; c = parent[c]) cycle.push_back(c);
    cycle.push_back(source);
    std::reverse(cycle.begin(), cycle.end());
    ClassCycle key = cycle;
    std::rotate(key.begin(), std::min_element(key.begin(), key.end()), key.end());
    if (seen.insert(std::move(key)).second) cycles.push_back(std::move(cycle));
  }
  return cycles;
}

std::vector<ClassCycle> enumerate_short_cycles(
    const std::vector<std::vector<ClassIndex>>& successors, std::size_t max_length,
    std::size_t max_cycles, std::size_t max_steps) {
  // Depth-first search from each class s over classes greater than s only, so that each cycle is
  // found once, from its smallest class.
  std::vector<ClassCycle> cycles;
  std::vector<bool> on_path(successors.size(), false);
  ClassCycle path;
  std::vector<std::size_t> next;
  std::size_t steps = 0;
  for (ClassIndex start = 0;
       start < successors.size() && cycles.size() < max_cycles && steps < max_steps; ++start) {
    path.assign(1, start);
    next.assign(1, 0);
    on_path[start] = true;
    while (!path.empty() && cycles.size() < max_cycles && steps < max_steps) {
      const ClassIndex v = path.back();
      if (next.back() == successors[v].size()) {
        on_path[v] = false;
        path.pop_back();
        next.pop_back();
        continue;
      }
      const ClassIndex w = successors[v][next.back()++];
      ++steps;
      if (w == start) {
        cycles.push_back(path);
      } else if (w > start && !on_path[w] && path.size() < max_length) {
        on_path[w] = true;
        path.push_back(w);
        next.push_back(0);
      }
    }
    for (ClassIndex c : path) on_path[c] = false;
  }
  return cycles;
}

std::vector<std::size_t> strongly_connected_components(
    const std::vector<std::vector<ClassIndex>>& successors) {
  // Tarjan's algorithm, iterative.
  constexpr std::size_t kUnset = std::numeric_limits<std::size_t>::max();
  const std::size_t count = successors.size();
  std::vector<std::size_t> index(count, kUnset), lowlink(count, 0), component(count, kUnset);
  std::vector<bool> on_stack(count, false);
  std::vector<ClassIndex> stack;
  std::vector<std::pair<ClassIndex, std::size_t>> frames;
  std::size_t next_index = 0, next_component = 0;
  for (ClassIndex start = 0; start < count; ++start) {
    if (index[start] != kUnset) continue;
    frames.emplace_back(start, 0);
    index[start] = lowlink[start] = next_index++;
    stack.push_back(start);
    on_stack[start] = true;
    while (!frames.empty()) {
      auto& [v, next] = frames.back();
      if (next < successors[v].size()) {
        const ClassIndex w = successors[v][next++];
        if (index[w] == kUnset) {
          index[w] = lowlink[w] = next_index++;
          stack.push_back(w);
          on_stack[w] = true;
          frames.emplace_back(w, 0);
        } else if (on_stack[w]) {
          lowlink[v] = std::min(lowlink[v], index[w]);
        }
        continue;
      }
      const ClassIndex done = v;
      if (lowlink[done] == index[done]) {
        ClassIndex member;
        do {
          member = stack.back();
          stack.pop_back();
          on_stack[member] = false;
          component[member] = next_component;
        } while (member != done);
        ++next_component;
      }
      frames.pop_back();
      if (!frames.empty()) {
        const ClassIndex parent = frames.back().first;
        lowlink[parent] = std::min(lowlink[parent], lowlink[done]);
      }
    }
  }
  return component;
}

std::vector<std::size_t> component_sizes(const std::vector<std::size_t>& component) {
  std::vector<std::size_t> sizes;
  for (std::size_t c : component) {
    if (c >= sizes.size()) sizes.resize(c + 1, 0);
    ++sizes[c];
  }
  return sizes;
}

}  // namespace saturate::extract
