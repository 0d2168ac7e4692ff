// Every rank of a communicator must select from the same table (docs/topologies.md, "Calibrated
// tables"): a rank whose per-user cache holds a calibrated table and a rank without one would
// otherwise pair different kernels. Each rank publishes its table's identity in the set-up
// exchange; if they differ, every rank stays on NCCL for the communicator, with words naming both.
#pragma once

#include <cstdint>
#include <string>

namespace flashccl {

class Selector;

// Plain bytes: it travels in the set-up record (src/runtime/peer_setup.cc).
struct TableIdentity {
  uint64_t hash;   // SelectionTable::contentHash (0: the built-in table)
  char name[64];   // the table's name, cut to fit; for the words only
};

// Zeroed, then filled from `selector` (null: no selector, an all-zero identity).
TableIdentity tableIdentityOf(const Selector* selector);

// "" when rank `rank`'s table is rank 0's (`first`), else why not, the same words on every rank:
// "rank 1 selects from the table 'x' (content 0123...) but rank 0 from 'y' (content ...); ...".
std::string tableDisagreement(int rank, const TableIdentity& theirs, const TableIdentity& first);

}  // namespace flashccl
