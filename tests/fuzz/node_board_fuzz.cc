// The node board's shared memory as another process may leave it (transport/p2p/node_board.h,
// growth_board.h): any bytes over every slot, then a collect of the set-up rounds and one of the
// growth rounds. Whatever a peer wrote, a record read back stays inside its slot, a growth post's
// reason ends inside its field, and a round nobody posted ends at the timeout with the words.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "transport/p2p/growth_board.h"
#include "transport/p2p/node_board.h"

using namespace flashccl;
using flashccl::fuzz::FuzzInput;

namespace {

const std::string& boardName() {
  static const std::string name = [] {
    std::string n = NodeBoard::newName();
    static std::string forExit = n;
    std::atexit([] { NodeBoard::unlink(forExit); });
    return n;
  }();
  return name;
}

// Overwrites the whole shared object with the input's bytes (repeated), as a hostile peer could.
void scribble(FuzzInput& in) {
  const int fd = shm_open(boardName().c_str(), O_RDWR, 0600);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    void* mapped = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapped != MAP_FAILED) {
      size_t got = 0;
      const uint8_t* bytes = in.take(in.left(), &got);
      char* out = static_cast<char*>(mapped);
      for (size_t i = 0; i < static_cast<size_t>(st.st_size); ++i) out[i] = got ? static_cast<char>(bytes[i % got]) : 0;
      munmap(mapped, static_cast<size_t>(st.st_size));
    }
  }
  close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  const int nranks = 1 + in.byte() % kMaxPeerRanks;
  const uint64_t round = in.u64();
  std::string why;
  std::unique_ptr<NodeBoard> board = NodeBoard::open(boardName(), nranks, /*create=*/true, &why);
  std::unique_ptr<GrowthBoard> growth = GrowthBoard::open(boardName(), nranks, &why);
  if (!board || !growth) std::abort();  // a fresh name in /dev/shm must open
  scribble(in);

  std::vector<std::vector<char>> records;
  if (board->collect(round, &records, [] { return false; }, 0.0, "a fuzzed round", &why)) {
    if (records.size() != static_cast<size_t>(nranks)) std::abort();
    for (const std::vector<char>& record : records) {
      if (record.size() > NodeBoard::kMaxRecordBytes) std::abort();
    }
  } else if (why.find("a fuzzed round") == std::string::npos) {
    std::abort();
  }
  std::vector<GrowthPost> posts;
  if (growth->collect(round, &posts, [] { return false; }, 0.0, &why)) {
    for (const GrowthPost& post : posts) {
      if (strnlen(post.reason, sizeof(post.reason)) >= sizeof(post.reason)) std::abort();
    }
  }
  return 0;
}
