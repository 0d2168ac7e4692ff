#include "msccl/dependency_cycles.h"

#include <algorithm>

namespace flashccl::msccl {

namespace {

enum class EdgeKind { kProgramOrder, kDependency, kMessage };

struct Edge {
  int to;
  EdgeKind kind;
};

struct Node {
  int rank;
  int tb;
  int transmission;
};

class WaitGraph {
 public:
  explicit WaitGraph(const Program& program) : program_(program) {
    for (const Gpu& gpu : program.gpus) {
      firstNode_.emplace_back();
      for (const ThreadBlock& tb : gpu.threadBlocks) {
        firstNode_.back().push_back(static_cast<int>(nodes_.size()));
        for (size_t t = 0; t < tb.transmissions.size(); ++t) {
          nodes_.push_back({gpu.id, tb.id, static_cast<int>(t)});
        }
      }
    }
    edges_.resize(nodes_.size());
  }

  int node(int rank, int tb, int transmission) const {
    return firstNode_[rank][tb] + transmission;
  }
  void addEdge(int from, int to, EdgeKind kind) { edges_[from].push_back({to, kind}); }

  const Transmission& transmission(int n) const {
    const Node& nd = nodes_[n];
    return program_.gpus[nd.rank].threadBlocks[nd.tb].transmissions[nd.transmission];
  }
  const Node& info(int n) const { return nodes_[n]; }
  size_t size() const { return nodes_.size(); }
  const std::vector<Edge>& edges(int n) const { return edges_[n]; }

 private:
  const Program& program_;
  std::vector<std::vector<int>> firstNode_;
  std::vector<Node> nodes_;
  std::vector<std::vector<Edge>> edges_;
};

void addEdges(const Program& program, const ConnectionTable& table, WaitGraph* g) {
  for (const Gpu& gpu : program.gpus) {
    for (const ThreadBlock& tb : gpu.threadBlocks) {
      for (size_t t = 0; t < tb.transmissions.size(); ++t) {
        int self = g->node(gpu.id, tb.id, static_cast<int>(t));
        if (t > 0) g->addEdge(self, self - 1, EdgeKind::kProgramOrder);
        for (const Dependency& d : tb.transmissions[t].deps) {
          int producer = gpu.threadBlocks[d.tb].transmissionOfStep(d.step);
          if (producer >= 0) g->addEdge(self, g->node(gpu.id, d.tb, producer), EdgeKind::kDependency);
        }
      }
    }
  }
  for (const Connection& c : table.connections) {
    if (c.sendTb < 0 || c.recvTb < 0) continue;
    const ThreadBlock& sender = program.gpus[c.sender].threadBlocks[c.sendTb];
    const ThreadBlock& receiver = program.gpus[c.receiver].threadBlocks[c.recvTb];
    std::vector<int> sends, recvs;
    for (size_t t = 0; t < sender.transmissions.size(); ++t) {
      if (stepSends(sender.transmissions[t].type)) sends.push_back(static_cast<int>(t));
    }
    for (size_t t = 0; t < receiver.transmissions.size(); ++t) {
      if (stepReceives(receiver.transmissions[t].type)) recvs.push_back(static_cast<int>(t));
    }
    for (size_t k = 0; k < std::min(sends.size(), recvs.size()); ++k) {
      g->addEdge(g->node(c.receiver, c.recvTb, recvs[k]), g->node(c.sender, c.sendTb, sends[k]),
                 EdgeKind::kMessage);
    }
  }
}

// Iterative DFS; returns the nodes of one cycle in "waits for" order, or an empty vector.
std::vector<std::pair<int, EdgeKind>> findCycle(const WaitGraph& g) {
  enum Color : char { kWhite, kGrey, kBlack };
  std::vector<Color> color(g.size(), kWhite);
  std::vector<std::pair<int, EdgeKind>> parentEdge(g.size(), {-1, EdgeKind::kProgramOrder});
  struct Frame {
    int node;
    size_t next;
  };
  for (size_t root = 0; root < g.size(); ++root) {
    if (color[root] != kWhite) continue;
    std::vector<Frame> stack{{static_cast<int>(root), 0}};
    color[root] = kGrey;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next == g.edges(f.node).size()) {
        color[f.node] = kBlack;
        stack.pop_back();
        continue;
      }
      Edge e = g.edges(f.node)[f.next++];
      if (color[e.to] == kWhite) {
        color[e.to] = kGrey;
        parentEdge[e.to] = {f.node, e.kind};
        stack.push_back({e.to, 0});
      } else if (color[e.to] == kGrey) {
        // Back edge f.node -> e.to closes a cycle through the grey path e.to .. f.node.
        std::vector<std::pair<int, EdgeKind>> cycle;  // (node, kind of its edge to the next)
        cycle.push_back({f.node, e.kind});
        for (int n = f.node; n != e.to;) {
          auto [parent, kind] = parentEdge[n];
          cycle.push_back({parent, kind});
          n = parent;
        }
        std::reverse(cycle.begin(), cycle.end());
        return cycle;
      }
    }
  }
  return {};
}

}  // namespace

void checkDependencyCycles(const Program& program, const ConnectionTable& table,
                           std::vector<Diagnostic>* errors) {
  WaitGraph g(program);
  addEdges(program, table, &g);
  std::vector<std::pair<int, EdgeKind>> cycle = findCycle(g);
  if (cycle.empty()) return;
  // Start the description at the smallest node so that the message does not depend on where
  // the search happened to enter the cycle.
  auto first = std::min_element(cycle.begin(), cycle.end(),
                                [](const auto& a, const auto& b) { return a.first < b.first; });
  std::rotate(cycle.begin(), first, cycle.end());
  std::string text;
  int line = 0;
  for (size_t i = 0; i < cycle.size(); ++i) {
    auto [from, kind] = cycle[i];
    if (kind == EdgeKind::kProgramOrder) continue;  // implicit: a tb runs its steps in order
    int to = cycle[(i + 1) % cycle.size()].first;
    const Node& a = g.info(from);
    const Node& b = g.info(to);
    const Transmission& ta = g.transmission(from);
    const Transmission& tb = g.transmission(to);
    if (line == 0) line = ta.line;
    if (!text.empty()) text += "; ";
    text += formatString("gpu %d tb %d step %d (line %d) %s gpu %d tb %d step %d (line %d)", a.rank,
                         a.tb, ta.step, ta.line,
                         kind == EdgeKind::kDependency ? "waits for" : "receives from", b.rank,
                         b.tb, tb.step, tb.line);
  }
  errors->push_back({program.file, line, "dependency cycle: " + text});
}

}  // namespace flashccl::msccl
