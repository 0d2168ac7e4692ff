#include "passthrough_channel.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <sstream>

namespace flashccl_gpu_test::passthrough {
namespace {

// Messages are single lines; NCCL's error texts may hold newlines.
std::string oneLine(const std::string& text) {
  std::string line = text;
  for (char& ch : line)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return line;
}

}  // namespace

void ReportChannel::send(std::string line) {
  // Keep every message one atomic write (PIPE_BUF is at least 512 bytes; Linux has 4096).
  const size_t limit = PIPE_BUF - 1;
  if (line.size() > limit) line.resize(limit);
  line += '\n';
  const char* data = line.data();
  size_t left = line.size();
  while (left > 0) {
    const ssize_t written = write(fd_, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;  // the supervisor is gone; nobody to tell
    data += written;
    left -= static_cast<size_t>(written);
  }
}

void ReportChannel::caseIdentical(size_t index, int rank) {
  send("C " + std::to_string(index) + " " + std::to_string(rank) + " ok");
}

void ReportChannel::caseDiffers(size_t index, int rank, size_t element, const std::string& detail) {
  send("C " + std::to_string(index) + " " + std::to_string(rank) + " differs " +
       std::to_string(element) + " " + oneLine(detail));
}

void ReportChannel::caseError(size_t index, int rank, const std::string& what) {
  send("C " + std::to_string(index) + " " + std::to_string(rank) + " error " + oneLine(what));
}

void ReportChannel::rankError(int rank, const std::string& what) {
  send("E " + std::to_string(rank) + " " + oneLine(what));
}

void ReportChannel::fact(const std::string& key, const std::string& value) {
  send("F " + key + " " + oneLine(value));
}

bool parseMessage(const std::string& line, Message* message) {
  std::istringstream in(line);
  std::string kind;
  in >> kind;
  Message m;
  if (kind == "C") {
    std::string verdict;
    if (!(in >> m.index >> m.rank >> verdict)) return false;
    m.kind = Message::Kind::kCase;
    if (verdict == "ok") {
      m.verdict = Verdict::kIdentical;
    } else if (verdict == "differs") {
      m.verdict = Verdict::kDiffers;
      if (!(in >> m.element)) return false;
    } else if (verdict == "error") {
      m.verdict = Verdict::kError;
    } else {
      return false;
    }
  } else if (kind == "E") {
    m.kind = Message::Kind::kRankError;
    if (!(in >> m.rank)) return false;
  } else if (kind == "F") {
    m.kind = Message::Kind::kFact;
    if (!(in >> m.key)) return false;
  } else {
    return false;
  }
  std::getline(in >> std::ws, m.text);
  *message = m;
  return true;
}

}  // namespace flashccl_gpu_test::passthrough
