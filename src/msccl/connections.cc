#include "msccl/connections.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace flashccl::msccl {

namespace {

using ConnectionKey = std::tuple<int, int, int>;  // channel, sender, receiver

int findOrAdd(std::map<ConnectionKey, int>* index, ConnectionTable* table, int channel, int sender,
              int receiver) {
  ConnectionKey key{channel, sender, receiver};
  auto it = index->find(key);
  if (it != index->end()) return it->second;
  Connection c;
  c.channel = channel;
  c.sender = sender;
  c.receiver = receiver;
  table->connections.push_back(c);
  int id = static_cast<int>(table->connections.size()) - 1;
  index->emplace(key, id);
  return id;
}

// The send-side (or receive-side) transmissions of a tb, in order.
std::vector<const Transmission*> messagesOf(const ThreadBlock& tb, bool sendSide) {
  std::vector<const Transmission*> out;
  for (const Transmission& t : tb.transmissions) {
    if (sendSide ? stepSends(t.type) : stepReceives(t.type)) out.push_back(&t);
  }
  return out;
}

}  // namespace

void buildConnectionTable(const Program& program, ConnectionTable* table,
                          std::vector<Diagnostic>* errors) {
  *table = ConnectionTable();
  std::map<ConnectionKey, int> index;
  table->sendConnection.resize(program.gpus.size());
  table->recvConnection.resize(program.gpus.size());
  for (const Gpu& gpu : program.gpus) {
    const int rank = gpu.id;
    table->sendConnection[rank].assign(gpu.threadBlocks.size(), -1);
    table->recvConnection[rank].assign(gpu.threadBlocks.size(), -1);
    for (const ThreadBlock& tb : gpu.threadBlocks) {
      if (tb.sendPeer >= 0) {
        int id = findOrAdd(&index, table, tb.channel, rank, tb.sendPeer);
        Connection& c = table->connections[id];
        if (c.sendTb >= 0) {
          errors->push_back({program.file, tb.line,
                             formatString("thread blocks %d and %d of gpu %d both send to gpu %d "
                                          "on channel %d (one connection, one thread block)",
                                          c.sendTb, tb.id, rank, tb.sendPeer, tb.channel)});
        } else {
          c.sendTb = tb.id;
          c.sendLine = tb.line;
          table->sendConnection[rank][tb.id] = id;
        }
      }
      if (tb.recvPeer >= 0) {
        int id = findOrAdd(&index, table, tb.channel, tb.recvPeer, rank);
        Connection& c = table->connections[id];
        if (c.recvTb >= 0) {
          errors->push_back({program.file, tb.line,
                             formatString("thread blocks %d and %d of gpu %d both receive from "
                                          "gpu %d on channel %d (one connection, one thread block)",
                                          c.recvTb, tb.id, rank, tb.recvPeer, tb.channel)});
        } else {
          c.recvTb = tb.id;
          c.recvLine = tb.line;
          table->recvConnection[rank][tb.id] = id;
        }
      }
    }
  }
}

void checkMessagePairing(const Program& program, const ConnectionTable& table,
                         std::vector<Diagnostic>* errors) {
  for (const Connection& c : table.connections) {
    // Connections are set up from both ends at init; a one-sided one hangs the setup.
    if (c.recvTb < 0) {
      errors->push_back({program.file, c.sendLine,
                         formatString("gpu %d tb %d sends to gpu %d on channel %d, but no thread "
                                      "block of gpu %d receives from gpu %d on channel %d",
                                      c.sender, c.sendTb, c.receiver, c.channel, c.receiver,
                                      c.sender, c.channel)});
      continue;
    }
    if (c.sendTb < 0) {
      errors->push_back({program.file, c.recvLine,
                         formatString("gpu %d tb %d receives from gpu %d on channel %d, but no "
                                      "thread block of gpu %d sends to gpu %d on channel %d",
                                      c.receiver, c.recvTb, c.sender, c.channel, c.sender,
                                      c.receiver, c.channel)});
      continue;
    }
    const ThreadBlock& sender = program.gpus[c.sender].threadBlocks[c.sendTb];
    const ThreadBlock& receiver = program.gpus[c.receiver].threadBlocks[c.recvTb];
    std::vector<const Transmission*> sends = messagesOf(sender, /*sendSide=*/true);
    std::vector<const Transmission*> recvs = messagesOf(receiver, /*sendSide=*/false);
    size_t common = std::min(sends.size(), recvs.size());
    bool countMismatch = false;
    for (size_t k = 0; k < common && !countMismatch; ++k) {
      if (sends[k]->count != recvs[k]->count) {
        errors->push_back(
            {program.file, sends[k]->line,
             formatString("message %zu from gpu %d to gpu %d on channel %d is sent with cnt=%d "
                          "here but received with cnt=%d (line %d)",
                          k, c.sender, c.receiver, c.channel, sends[k]->count, recvs[k]->count,
                          recvs[k]->line)});
        countMismatch = true;
      }
    }
    if (!countMismatch && sends.size() != recvs.size()) {
      errors->push_back({program.file, sender.line,
                         formatString("gpu %d tb %d sends %zu messages to gpu %d on channel %d, "
                                      "but gpu %d tb %d (line %d) receives %zu",
                                      c.sender, c.sendTb, sends.size(), c.receiver, c.channel,
                                      c.receiver, c.recvTb, receiver.line, recvs.size())});
    }
  }
}

}  // namespace flashccl::msccl
