#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "egraph/analysis.h"
#include "egraph/chunked_vector.h"
#include "egraph/eclass.h"
#include "egraph/enode.h"
#include "egraph/hash_cons.h"
#include "egraph/term.h"
#include "egraph/union_find.h"
#include "support/error.h"

namespace saturate::egraph {

// An e-graph over the language whose labels are Op, with the e-class analysis A (egg's
// EGraph<L, N>).
//
//   EGraph<Symbol> egraph;
//   EClassId fa = egraph.add_term(Term<Symbol>::parse("(f a)"));
//   EClassId fb = egraph.add_term(Term<Symbol>::parse("(f b)"));
//   egraph.merge(egraph.add_term(Term<Symbol>::parse("a")),
//                egraph.add_term(Term<Symbol>::parse("b")));
//   egraph.rebuild();                     // congruence: (f a) and (f b) are now one class
//   assert(egraph.find(fa) == egraph.find(fb));
//
// Invariants after rebuild() (is_clean()): every stored child id is canonical; the hash-cons maps
// every canonical e-node to its class; equal nodes are in one class (congruence); class node
// lists are sorted and deduplicated; analysis data is up to date; classes_with_op() is exact.
// merge() merges the classes' contents at once but defers congruence repair to rebuild()
// (egg's deferred rebuilding), so a batch of merges costs one repair pass. Searching requires a
// clean e-graph; adding and merging do not.
//
// Every add() that creates a class also creates a node id equal to that class id; node ids name
// the node as it was added and are what parent lists and the rebuild worklist hold, so they stay
// 32-bit integers instead of node copies.
template <Operator Op, typename A = NoAnalysis>
class EGraph {
 public:
  using Node = ENode<Op>;
  using Label = Op;
  using Analysis = A;
  using Data = typename A::Data;
  using Class = EClass<Op, Data>;

  explicit EGraph(A analysis = A{}) : analysis_(std::move(analysis)) {}

  // Adds a node whose children are e-class ids; returns its class (an existing one if an equal
  // node is already present).
  EClassId add(Node node) {
    if (std::optional<EClassId> existing = hash_cons(node, "add"))
      return union_find_.find_compress(*existing);
    return make_class(std::move(node));
  }

  // merge(add(node), target) in one step: a node that is new goes straight into the target's
  // class, instead of into a class of its own that the merge then empties (what applying a
  // rewrite does for nearly every new node). Returns whether the e-graph changed: a new node, or
  // a merge of two classes. The same e-graph results either way.
  bool add_into(Node node, EClassId target) {
    // An analysis with a modify() hook may act on the new node's own class: keep it.
    if constexpr (requires { analysis_.modify(*this, target); }) {
      return merge(add(std::move(node)), target);
    } else {
      if (target.index() >= union_find_.size())
        throw Error("EGraph::add_into: e" + std::to_string(target.value()) +
                    " is not an e-class of this e-graph");
      if (std::optional<EClassId> existing = hash_cons(node, "add_into"))
        return merge(*existing, target);
      EClassId root = union_find_.find_compress(target);
      EClassId id = new_node_id(node);  // its class slot stays empty: never live
      union_find_.link(root, id);
      Data data = analysis_.make(*this, node);
      Class& into = classes_[root.index()];
      if (analysis_.merge(into.data, std::move(data)).into_changed) queue_analysis(into.parents);
      into.nodes.push_back(std::move(node));
      into.stamps.push_back(NodeStamp{next_generation(), next_generation()});
      touch(root);
      return true;
    }
  }

  // Adds every node of a term bottom-up; returns the root's class.
  EClassId add_term(const Term<Op>& term) {
    std::vector<EClassId> ids;
    ids.reserve(term.size());
    for (const Node& node : term.nodes()) ids.push_back(add(with_children(node, ids)));
    if (ids.empty()) throw Error("EGraph::add_term: the term is empty");
    return ids.back();
  }

  // The class of a node equal to this one (children compared canonically), if any. Exact on a
  // clean e-graph; before rebuild() it can miss nodes that only congruence would identify.
  std::optional<EClassId> lookup(Node node) const {
    for (EClassId& child : node.children) child = find(child);
    if (std::optional<EClassId> existing = memo_.find(node)) return find(*existing);
    return std::nullopt;
  }

  std::optional<EClassId> lookup_term(const Term<Op>& term) const {
    std::vector<EClassId> ids;
    ids.reserve(term.size());
    for (const Node& node : term.nodes()) {
      std::optional<EClassId> id = lookup(with_children(node, ids));
      if (!id) return std::nullopt;
      ids.push_back(*id);
    }
    if (ids.empty()) return std::nullopt;
    return ids.back();
  }

  // The stamp of a canonical node of class `id` (EClass::stamps); the e-graph must be clean.
  // Throws saturate::Error if the class has no such node.
  NodeStamp stamp_of(EClassId id, const Node& node) const {
    const Class& eclass = classes_[find(id).index()];
    auto it = std::lower_bound(eclass.nodes.begin(), eclass.nodes.end(), node);
    if (it == eclass.nodes.end() || !(*it == node))
      throw Error("EGraph::stamp_of: e" + std::to_string(id.value()) + " has no such node");
    return eclass.stamps[static_cast<std::size_t>(it - eclass.nodes.begin())];
  }

  EClassId find(EClassId id) const { return union_find_.find(id); }
  bool equivalent(EClassId a, EClassId b) const { return find(a) == find(b); }

  // Joins two classes; returns whether they were distinct. Contents and analysis data merge now;
  // congruence and the hash-cons are restored by the next rebuild().
  bool merge(EClassId a, EClassId b) {
    a = union_find_.find_compress(a);
    b = union_find_.find_compress(b);
    if (a == b) return false;
    // The class that keeps its id is the larger one, counting nodes and parents: the other's
    // nodes move, and its parents are what rebuild must re-canonicalize (and what incremental
    // e-matching must then see as new).
    const Class& class_a = classes_[a.index()];
    const Class& class_b = classes_[b.index()];
    if (class_a.parents.size() + class_a.nodes.size() <
        class_b.parents.size() + class_b.nodes.size())
      std::swap(a, b);
    union_find_.link(a, b);
    Class from = std::move(classes_[b.index()]);
    Class& into = classes_[a.index()];
    pending_.insert(pending_.end(), from.parents.begin(), from.parents.end());
    DidMerge changed = analysis_.merge(into.data, std::move(from.data));
    if (changed.into_changed) queue_analysis(into.parents);
    if (changed.from_changed) queue_analysis(from.parents);
    into.nodes.insert(into.nodes.end(), std::make_move_iterator(from.nodes.begin()),
                      std::make_move_iterator(from.nodes.end()));
    // The moved nodes are in a class with another id now.
    for (NodeStamp stamp : from.stamps)
      into.stamps.push_back(NodeStamp{stamp.form, next_generation()});
    into.parents.insert(into.parents.end(), from.parents.begin(), from.parents.end());
    touch(a);
    --class_count_;
    clean_ = false;
    modify(a);  // last: it may add classes, which invalidates `into`
    return true;
  }

  // Restores the invariants listed above; returns the number of merges congruence caused.
  std::size_t rebuild() {
    std::size_t unions = process_pending();
    rebuild_classes();
    if (memo_.size() > 2 * node_count_ + 1024) rebuild_memo();
    clean_ = true;
    ++rebuild_count_;
    return unions;
  }

  bool is_clean() const { return clean_; }
  // The number of rebuilds so far. A clean e-graph at generation g holds exactly the nodes
  // stamped at most g (EClass::stamps); a change made now is stamped g + 1.
  std::uint32_t generation() const { return static_cast<std::uint32_t>(rebuild_count_); }

  const Class& eclass(EClassId id) const { return classes_[find(id).index()]; }
  const Class& operator[](EClassId id) const { return eclass(id); }
  const Data& data(EClassId id) const { return eclass(id).data; }
  // For modify() hooks that refine data in place. Data must only grow (see analysis.h), and
  // parents are not re-analysed automatically.
  Data& data_mut(EClassId id) { return classes_[find(id).index()].data; }

  // The live classes, in id order.
  class ClassRange;
  ClassRange classes() const { return ClassRange(this); }
  // Canonical ids of the classes containing a node whose label has this index (see Operator).
  // Exact when the e-graph is clean.
  std::span<const EClassId> classes_with_op(std::uint32_t op_index) const {
    if (op_index >= classes_by_op_.size()) return {};
    return classes_by_op_[op_index];
  }

  std::size_t class_count() const { return class_count_; }
  // E-nodes in classes; duplicates that only congruence would remove count until rebuild().
  std::size_t node_count() const { return node_count_; }
  // Entries in the hash-cons, stale ones included (egg's total_size).
  std::size_t memo_size() const { return memo_.size(); }
  std::size_t rebuild_count() const { return rebuild_count_; }
  // Upper bound (exclusive) of all class ids ever created, for id-indexed side tables.
  std::size_t id_bound() const { return classes_.size(); }

  // Nodes for which the filter returns false are invisible to e-matching and to TreeExtractor,
  // though they stay in their classes and in the hash-cons: TENSAT's filter list of nodes
  // "considered removed" after cycle resolution. Called with the node's class and canonical node.
  using NodeFilter = std::function<bool(EClassId, const Node&)>;
  void set_node_filter(NodeFilter filter) { node_filter_ = std::move(filter); }
  const NodeFilter& node_filter() const { return node_filter_; }
  bool is_visible(EClassId id, const Node& node) const {
    return !node_filter_ || node_filter_(id, node);
  }

  A& analysis() { return analysis_; }
  const A& analysis() const { return analysis_; }

  class ClassRange {
   public:
    class Iterator {
     public:
      using value_type = Class;
      using difference_type = std::ptrdiff_t;
      Iterator() = default;
      Iterator(const EGraph* egraph, std::size_t index) : egraph_(egraph), index_(index) {
        skip_dead();
      }
      const Class& operator*() const { return egraph_->classes_[index_]; }
      const Class* operator->() const { return &egraph_->classes_[index_]; }
      Iterator& operator++() {
        ++index_;
        skip_dead();
        return *this;
      }
      Iterator operator++(int) {
        Iterator old = *this;
        ++*this;
        return old;
      }
      friend bool operator==(const Iterator& a, const Iterator& b) { return a.index_ == b.index_; }

     private:
      void skip_dead() {
        while (index_ < egraph_->classes_.size() && !egraph_->union_find_.is_root(EClassId(index_)))
          ++index_;
      }
      const EGraph* egraph_ = nullptr;
      std::size_t index_ = 0;
    };
    explicit ClassRange(const EGraph* egraph) : egraph_(egraph) {}
    Iterator begin() const { return Iterator(egraph_, 0); }
    Iterator end() const { return Iterator(egraph_, egraph_->classes_.size()); }

   private:
    const EGraph* egraph_;
  };

 private:
  static Node with_children(const Node& node, const std::vector<EClassId>& ids) {
    Node copy = node;
    for (EClassId& child : copy.children) child = ids[child.index()];
    return copy;
  }

  void canonicalize(Node& node) {
    for (EClassId& child : node.children) child = union_find_.find_compress(child);
  }

  // Checks and canonicalizes `node` and looks it up in the hash-cons with one probe that, if it
  // is new, registers it under the id new_node_id() will give it next; returns the id stored for
  // an equal node, or nullopt when it is new (the caller must then create it).
  std::optional<EClassId> hash_cons(Node& node, const char* what) {
    check_children(node, what);
    canonicalize(node);
    return memo_.try_insert(node, EClassId(static_cast<std::uint32_t>(union_find_.size())));
  }

  // The bookkeeping of a new node, shared by make_class and add_into: its id (a union-find set
  // and an empty class slot), parent links, its copy by id, and the counts.
  EClassId new_node_id(const Node& node) {
    EClassId id = union_find_.make_set();
    link_parents(node, id);
    nodes_.push_back(node);
    analysis_queued_.push_back(false);
    classes_.emplace_back();
    ++node_count_;
    clean_ = false;
    return id;
  }

  // The caller has put the node in the hash-cons (hash_cons) under the id this returns.
  EClassId make_class(Node node) {
    EClassId id = new_node_id(node);
    Data data = analysis_.make(*this, node);
    const NodeStamp stamp{next_generation(), next_generation()};
    Class& created = classes_[id.index()];  // filled in place: no copies of the vectors
    created.id = id;
    created.nodes.push_back(std::move(node));
    created.data = std::move(data);
    created.stamps.push_back(stamp);
    created.newest = stamp;
    touch(id);
    ++class_count_;
    modify(id);
    return find(id);
  }

  std::uint32_t next_generation() const { return generation() + 1; }

  void check_children(const Node& node, const char* what) const {
    for (EClassId child : node.children) {
      if (child.index() >= union_find_.size()) {
        throw Error(std::string("EGraph::") + what + ": child e" + std::to_string(child.value()) +
                    " is not an e-class of this e-graph");
      }
    }
  }

  // Records node id `id` as a parent of each of its (canonical) children.
  void link_parents(const Node& node, EClassId id) {
    for (std::size_t i = 0; i < node.children.size(); ++i) {
      EClassId child = node.children[i];
      // (+ a a) needs one parent entry in a, not two.
      if (i > 0 && std::find(node.children.begin(), node.children.begin() + i, child) !=
                       node.children.begin() + i)
        continue;
      classes_[child.index()].parents.push_back(id.value());
    }
  }

  // Lists a class for rebuild_classes, once per id.
  void touch(EClassId id) {
    if (id.index() >= is_touched_.size()) is_touched_.resize(classes_.size(), false);
    if (is_touched_[id.index()]) return;
    is_touched_[id.index()] = true;
    touched_classes_.push_back(id);
  }

  void modify(EClassId id) {
    if constexpr (requires { analysis_.modify(*this, id); }) analysis_.modify(*this, id);
  }

  void queue_analysis(const std::vector<std::uint32_t>& node_ids) {
    for (std::uint32_t node_id : node_ids) {
      if (analysis_queued_[node_id]) continue;
      analysis_queued_[node_id] = true;
      analysis_pending_.push_back(node_id);
    }
  }

  // egg's process_unions: re-canonicalize the parents of merged-away classes (merging the ones
  // that became equal) and propagate analysis data upwards, until neither has work left.
  std::size_t process_pending() {
    std::size_t unions = 0;
    while (!pending_.empty() || !analysis_pending_.empty()) {
      while (!pending_.empty()) {
        std::uint32_t node_id = pending_.back();
        pending_.pop_back();
        Node& node = nodes_[node_id];
        canonicalize(node);
        touch(union_find_.find_compress(EClassId(node_id)));
        if (std::optional<EClassId> existing = memo_.try_insert(node, EClassId(node_id))) {
          if (merge(*existing, EClassId(node_id))) ++unions;
        }
      }
      while (!analysis_pending_.empty()) {
        std::uint32_t node_id = analysis_pending_.back();
        analysis_pending_.pop_back();
        analysis_queued_[node_id] = false;
        EClassId id = union_find_.find_compress(EClassId(node_id));
        Data data = analysis_.make(*this, nodes_[node_id]);
        Class& eclass = classes_[id.index()];
        if (analysis_.merge(eclass.data, std::move(data)).into_changed) {
          queue_analysis(eclass.parents);
          modify(id);
        }
      }
    }
    return unions;
  }

  // Re-canonicalizes, sorts and deduplicates only the classes touched since the last rebuild and
  // updates the operator index for them. Untouched classes cannot hold stale nodes: a node goes
  // stale only when a child class is merged away, and then it is on the pending list.
  void rebuild_classes() {
    for (EClassId& id : touched_classes_) {
      is_touched_[id.index()] = false;
      id = union_find_.find_compress(id);
    }
    std::sort(touched_classes_.begin(), touched_classes_.end());
    touched_classes_.erase(std::unique(touched_classes_.begin(), touched_classes_.end()),
                           touched_classes_.end());
    for (EClassId id : touched_classes_) {
      Class& eclass = classes_[id.index()];
      std::size_t before = eclass.nodes.size();
      canonicalize_sort_dedup(eclass);
      node_count_ -= before - eclass.nodes.size();
      sort_parents(eclass);
      for (const Node& node : eclass.nodes) {
        std::uint32_t op = node.op.index();
        if (op >= classes_by_op_.size()) {
          classes_by_op_.resize(op + 1);
          op_stamp_.resize(op + 1, EClassId());
          op_listed_before_.resize(op + 1, kNotTouched);
        }
        // A class is listed once per operator, however many of its nodes carry it.
        if (op_stamp_[op] == id) continue;
        op_stamp_[op] = id;
        if (op_listed_before_[op] == kNotTouched) {
          op_listed_before_[op] = classes_by_op_[op].size();
          touched_ops_.push_back(op);
        }
        classes_by_op_[op].push_back(id);
      }
    }
    touched_classes_.clear();
    // Each touched list is its sorted part from the last rebuild followed by the touched classes,
    // appended in increasing order. A merged-away class's operators all reappear in the class it
    // joined, which is touched: dropping stale ids and merging the two sorted runs keeps the list
    // exact in linear time.
    for (std::uint32_t op : touched_ops_) {
      std::vector<EClassId>& ids = classes_by_op_[op];
      auto appended = ids.begin() + static_cast<std::ptrdiff_t>(op_listed_before_[op]);
      auto kept_end = std::remove_if(ids.begin(), appended,
                                     [this](EClassId id) { return !union_find_.is_root(id); });
      auto kept = kept_end - ids.begin();
      ids.erase(kept_end, appended);
      std::inplace_merge(ids.begin(), ids.begin() + kept, ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      op_listed_before_[op] = kNotTouched;
      op_stamp_[op] = EClassId();
    }
    touched_ops_.clear();
  }

  // Canonicalizes a class's nodes (stamping the ones that change), sorts them and drops
  // duplicates, keeping the oldest stamps of equal nodes: each copy's stamps were true of it.
  void canonicalize_sort_dedup(Class& eclass) {
    std::uint32_t now = next_generation();
    // Most touched classes only had nodes re-canonicalized in place, or none: if the list is
    // still strictly increasing, there is nothing to sort or drop.
    bool in_order = true;
    for (std::size_t i = 0; i < eclass.nodes.size(); ++i) {
      Node& node = eclass.nodes[i];
      for (EClassId& child : node.children) {
        EClassId canonical = union_find_.find_compress(child);
        if (canonical != child) {
          child = canonical;
          eclass.stamps[i] = NodeStamp{now, now};
        }
      }
      if (i > 0 && !(eclass.nodes[i - 1] < node)) in_order = false;
    }
    if (in_order) {
      update_newest(eclass);
      return;
    }
    // Sort positions rather than nodes (which are large to move), then lay the nodes out once.
    std::vector<std::uint32_t>& order = order_scratch_;
    order.resize(eclass.nodes.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&eclass](std::uint32_t a, std::uint32_t b) {
      return eclass.nodes[a] < eclass.nodes[b];
    });
    // Laid out in scratch, then moved back into the class's own buffers: no allocation.
    std::vector<Node>& nodes = node_scratch_;
    std::vector<NodeStamp>& stamps = stamp_scratch_;
    nodes.clear();
    stamps.clear();
    for (std::uint32_t i : order) {
      if (!nodes.empty() && nodes.back() == eclass.nodes[i]) {
        NodeStamp& kept = stamps.back();
        kept.form = std::min(kept.form, eclass.stamps[i].form);
        kept.placed = std::min(kept.placed, eclass.stamps[i].placed);
        continue;
      }
      nodes.push_back(std::move(eclass.nodes[i]));
      stamps.push_back(eclass.stamps[i]);
    }
    eclass.nodes.assign(std::make_move_iterator(nodes.begin()),
                        std::make_move_iterator(nodes.end()));
    eclass.stamps.assign(stamps.begin(), stamps.end());
    update_newest(eclass);
  }

  // Sorts and deduplicates a class's parent list. Only the tail appended since the last rebuild
  // is unsorted; long lists (a leaf used everywhere) are merged in linear time, not re-sorted.
  static void sort_parents(Class& eclass) {
    std::vector<std::uint32_t>& parents = eclass.parents;
    auto tail = parents.begin() + static_cast<std::ptrdiff_t>(
                                      std::min<std::size_t>(eclass.sorted_parents, parents.size()));
    std::sort(tail, parents.end());
    std::inplace_merge(parents.begin(), tail, parents.end());
    parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
    eclass.sorted_parents = parents.size();
  }

  static void update_newest(Class& eclass) {
    eclass.newest = NodeStamp{};
    for (const NodeStamp& stamp : eclass.stamps) {
      eclass.newest.form = std::max(eclass.newest.form, stamp.form);
      eclass.newest.placed = std::max(eclass.newest.placed, stamp.placed);
    }
  }

  // Drops stale keys (nodes whose children were merged away), which the insert-only map keeps.
  void rebuild_memo() {
    memo_.clear();
    for (const Class& eclass : classes()) {
      for (const Node& node : eclass.nodes) memo_.try_insert(node, eclass.id);
    }
  }

  UnionFind union_find_;
  ChunkedVector<Node> nodes_;     // by node id: the node as added, re-canonicalized when pending
  ChunkedVector<Class> classes_;  // by id; only roots of union_find_ are live
  HashCons<Op> memo_;
  std::vector<std::uint32_t> pending_;           // node ids to re-canonicalize
  std::vector<std::uint32_t> analysis_pending_;  // node ids whose data to recompute
  std::vector<bool> analysis_queued_;            // by node id: already in analysis_pending_
  std::vector<EClassId> touched_classes_;        // classes whose node lists changed
  std::vector<bool> is_touched_;                 // by class id: in touched_classes_
  std::vector<std::vector<EClassId>> classes_by_op_;
  std::vector<EClassId> op_stamp_;  // scratch for rebuild_classes: last class listed per op
  static constexpr std::size_t kNotTouched = static_cast<std::size_t>(-1);
  std::vector<std::size_t> op_listed_before_;  // per op: list length before this rebuild
  std::vector<std::uint32_t> touched_ops_;
  std::vector<std::uint32_t> order_scratch_;  // for canonicalize_sort_dedup
  std::vector<Node> node_scratch_;
  std::vector<NodeStamp> stamp_scratch_;
  std::size_t class_count_ = 0;
  std::size_t node_count_ = 0;
  std::size_t rebuild_count_ = 0;
  bool clean_ = true;
  NodeFilter node_filter_;
  A analysis_;
};

}  // namespace saturate::egraph
