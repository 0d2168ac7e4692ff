#include "transport/p2p/node_board.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>

namespace flashccl {

namespace {
constexpr int kMaxBoardRanks = 64;
}

// One rank's record of one round parity. A rank posts round R + 2 into the slot of round R only
// after it has collected round R + 1 from everyone, which every rank posts only after collecting
// round R: so nobody still reads a slot when it is overwritten.
struct alignas(128) NodeBoard::Slot {
  std::atomic<uint64_t> round;  // the round the record belongs to; written last
  uint32_t bytes;
  char record[kMaxRecordBytes];
};

static_assert(std::atomic<uint64_t>::is_always_lock_free, "the board's rounds are shared between processes");

NodeBoard::~NodeBoard() {
  if (slots_ != nullptr) munmap(slots_, bytes_);
}

std::string NodeBoard::newName() {
  std::random_device random;
  const uint64_t token = (static_cast<uint64_t>(random()) << 32) ^ random();
  char name[48];
  std::snprintf(name, sizeof(name), "/flashccl-%d-%016llx", static_cast<int>(getpid()),
                static_cast<unsigned long long>(token));
  return name;
}

std::unique_ptr<NodeBoard> NodeBoard::open(const std::string& name, int nranks, bool create, std::string* why) {
  if (nranks < 1 || nranks > kMaxBoardRanks || name.size() < 2 || name[0] != '/' ||
      name.find('/', 1) != std::string::npos) {
    *why = "node board: bad name or rank count";
    return nullptr;
  }
  const size_t bytes = sizeof(Slot) * 2 * static_cast<size_t>(nranks);
  const int fd = shm_open(name.c_str(), O_RDWR | (create ? O_CREAT : 0), 0600);
  if (fd < 0) {
    *why = "node board " + name + ": shm_open: " + std::strerror(errno);
    return nullptr;
  }
  // Every rank sets the same size; a fresh object reads as zeros: round 0, nothing posted.
  struct stat st;
  if ((fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) < bytes) && ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    *why = "node board " + name + ": ftruncate: " + std::strerror(errno);
    close(fd);
    return nullptr;
  }
  void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (mapped == MAP_FAILED) {
    *why = "node board " + name + ": mmap: " + std::strerror(errno);
    return nullptr;
  }
  std::unique_ptr<NodeBoard> board(new NodeBoard());
  board->slots_ = static_cast<Slot*>(mapped);
  board->bytes_ = bytes;
  board->nranks_ = nranks;
  return board;
}

void NodeBoard::unlink(const std::string& name) { shm_unlink(name.c_str()); }

void NodeBoard::post(int rank, uint64_t round, const void* record, size_t bytes) {
  Slot& slot = slots_[rank * 2 + (round & 1)];
  const size_t n = bytes < kMaxRecordBytes ? bytes : kMaxRecordBytes;
  if (n > 0) std::memcpy(slot.record, record, n);
  slot.bytes = static_cast<uint32_t>(n);
  slot.round.store(round, std::memory_order_release);
}

bool NodeBoard::read(int rank, uint64_t round, std::vector<char>* out) const {
  const Slot& slot = slots_[rank * 2 + (round & 1)];
  if (slot.round.load(std::memory_order_acquire) != round) return false;
  // Another process wrote the length: never past the slot.
  const size_t n = slot.bytes < kMaxRecordBytes ? slot.bytes : kMaxRecordBytes;
  out->assign(slot.record, slot.record + n);
  return true;
}

uint64_t NodeBoard::nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void NodeBoard::pause() { std::this_thread::sleep_for(std::chrono::microseconds(20)); }

double NodeBoard::secondsSince(uint64_t startNs) const {
  std::this_thread::yield();  // a peer in this process may need the core to post
  return static_cast<double>(nowNs() - startNs) * 1e-9;
}

}  // namespace flashccl
