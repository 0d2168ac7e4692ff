// How the worker processes report to the supervisor: one text line per message on a pipe. A
// write() of one line shorter than PIPE_BUF is atomic, so the rank threads of one process share a
// pipe without a lock, and the supervisor sees whole lines from every rank.
//
//   C <case> <rank> ok
//   C <case> <rank> differs <element> <detail>
//   C <case> <rank> error <what>
//   E <rank> <what>             a rank failed outside any case (set-up)
//   F <key> <value>             a fact: device count, NCCL version, communicator state
#pragma once

#include <cstddef>
#include <string>

namespace flashccl_gpu_test::passthrough {

class ReportChannel {
 public:
  explicit ReportChannel(int fd) : fd_(fd) {}
  void caseIdentical(size_t index, int rank);
  void caseDiffers(size_t index, int rank, size_t element, const std::string& detail);
  void caseError(size_t index, int rank, const std::string& what);
  void rankError(int rank, const std::string& what);
  void fact(const std::string& key, const std::string& value);

 private:
  void send(std::string line);
  int fd_;
};

enum class Verdict { kNoResult, kIdentical, kDiffers, kError };

struct Message {
  enum class Kind { kCase, kRankError, kFact } kind = Kind::kFact;
  size_t index = 0;      // kCase
  int rank = -1;         // kCase, kRankError
  Verdict verdict = Verdict::kNoResult;
  size_t element = 0;    // kCase with kDiffers
  std::string key;       // kFact
  std::string text;      // detail, error or fact value
};

// False for a line that is not one of the messages above.
bool parseMessage(const std::string& line, Message* message);

}  // namespace flashccl_gpu_test::passthrough
