#include "runtime/comm_table.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "runtime/comm_context.h"

namespace flashccl {

namespace {

struct TableState {
  std::mutex mutex;
  std::unordered_map<ncclComm_t, std::unique_ptr<CommContext>> contexts;
  // Bumped (under the mutex) by every insert and remove; a thread's cached lookup is valid only
  // while the generation it read under the mutex is still current.
  std::atomic<uint64_t> generation{1};
};

TableState& state() {
  // Never destroyed: NCCL-internal threads and atexit handlers may still call in during exit,
  // and destroying contexts then would call into a CUDA runtime that is being torn down.
  static TableState* s = new TableState();
  return *s;
}

// Trivially destructible, so the thread_local costs no init guard on the hot path.
struct LookupCache {
  uint64_t generation = 0;  // 0 never matches: the table starts at 1
  ncclComm_t comm = nullptr;
  CommContext* ctx = nullptr;  // nullptr is cached too: unknown comms are the pass-through case
};
thread_local LookupCache tCache;

}  // namespace

CommTable& CommTable::instance() {
  static CommTable table;
  return table;
}

void CommTable::insert(std::unique_ptr<CommContext> ctx) {
  TableState& s = state();
  std::unique_ptr<CommContext> replaced;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    std::unique_ptr<CommContext>& slot = s.contexts[ctx->comm];
    replaced = std::move(slot);
    slot = std::move(ctx);
    s.generation.fetch_add(1, std::memory_order_release);
  }
  // A stale context for a reused address: destroyed outside the lock (it frees CUDA memory).
}

std::unique_ptr<CommContext> CommTable::remove(ncclComm_t comm) {
  TableState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.contexts.find(comm);
  if (it == s.contexts.end()) return nullptr;
  std::unique_ptr<CommContext> ctx = std::move(it->second);
  s.contexts.erase(it);
  s.generation.fetch_add(1, std::memory_order_release);
  return ctx;
}

CommContext* CommTable::find(ncclComm_t comm) {
  TableState& s = state();
  LookupCache& cache = tCache;
  if (cache.comm == comm && cache.generation == s.generation.load(std::memory_order_acquire)) {
    return cache.ctx;
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.contexts.find(comm);
  cache.ctx = it == s.contexts.end() ? nullptr : it->second.get();
  cache.comm = comm;
  cache.generation = s.generation.load(std::memory_order_relaxed);
  return cache.ctx;
}

size_t CommTable::size() {
  TableState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.contexts.size();
}

std::vector<CommContext*> CommTable::all() {
  TableState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::vector<CommContext*> result;
  result.reserve(s.contexts.size());
  for (auto& entry : s.contexts) result.push_back(entry.second.get());
  return result;
}

}  // namespace flashccl
