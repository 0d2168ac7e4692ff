// Connections between thread blocks of different ranks.
//
// A tb sends and receives over the NCCL connection of (chan, peer) (msccl-format.md §1.4), so a
// connection (channel, sender -> receiver) is owned by exactly one sending tb on the sender and
// one receiving tb on the receiver, and its messages pair up in order: the k-th send-side
// transmission of the one with the k-th receive-side transmission of the other.
#pragma once

#include <vector>

#include "msccl/diagnostic.h"
#include "msccl/program.h"

namespace flashccl::msccl {

struct Connection {
  int channel = 0;
  int sender = 0;     // rank
  int receiver = 0;   // rank
  int sendTb = -1;    // tb id on the sender; -1 if no tb there declares it
  int recvTb = -1;    // tb id on the receiver; -1 if no tb there declares it
  int sendLine = 0;   // <tb> lines, for messages
  int recvLine = 0;
};

struct ConnectionTable {
  std::vector<Connection> connections;
  // Per rank, per tb id: index into `connections` of the tb's send and receive side, or -1.
  std::vector<std::vector<int>> sendConnection;
  std::vector<std::vector<int>> recvConnection;
};

// Builds the table from the tbs' (chan, send, recv). Reports two tbs of one rank that claim the
// same (chan, send peer) or (chan, recv peer). Needs gpus[r].id == r, tbs[i].id == i and peers
// in range (the validator checks those first).
void buildConnectionTable(const Program& program, ConnectionTable* table,
                          std::vector<Diagnostic>* errors);

// Reports connections declared on one side only, and message sequences that do not pair up
// (different number of messages, or different cnt for the k-th message).
void checkMessagePairing(const Program& program, const ConnectionTable& table,
                         std::vector<Diagnostic>* errors);

}  // namespace flashccl::msccl
