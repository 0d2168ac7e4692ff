#include "progress.h"

#include <unistd.h>

namespace flashccl {
namespace doctor {

Progress::Progress(FILE* out) : out_(out), terminal_(out != nullptr && isatty(fileno(out))) {}

Progress::~Progress() { done(); }

void Progress::step(const std::string& what) {
  if (out_ == nullptr) return;
  if (terminal_) {
    std::fprintf(out_, "\r\033[Kdoctor: %s ...", what.c_str());
    pending_ = true;
  } else {
    std::fprintf(out_, "doctor: %s ...\n", what.c_str());
  }
  std::fflush(out_);
}

void Progress::done() {
  if (out_ != nullptr && terminal_ && pending_) {
    std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
  }
  pending_ = false;
}

}  // namespace doctor
}  // namespace flashccl
