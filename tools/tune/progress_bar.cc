#include "progress_bar.h"

#include <cmath>

namespace flashccl {
namespace tune {

std::string progressBar(size_t done, size_t total, int width) {
  const size_t filled = total == 0 ? 0 : size_t(width) * done / total;
  return "[" + std::string(filled, '#') + std::string(size_t(width) - filled, '-') + "] " +
         std::to_string(done) + "/" + std::to_string(total);
}

std::string durationText(double seconds) {
  char text[32];
  if (seconds < 9.95) {
    std::snprintf(text, sizeof(text), "%.1fs", seconds < 0 ? 0.0 : seconds);
    return text;
  }
  const long s = long(std::lround(seconds));
  if (s >= 3600) std::snprintf(text, sizeof(text), "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60) std::snprintf(text, sizeof(text), "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(text, sizeof(text), "%lds", s);
  return text;
}

void ProgressBar::begin(size_t index, size_t total, const std::string& label, double secondsSoFar) {
  if (!out_) return;
  if (terminal_) {
    // The time left assumes the runs still to come take as long as those done so far.
    const std::string left =
        index == 0 ? "" : "  ~" + durationText(secondsSoFar / double(index) * double(total - index)) + " left";
    std::fprintf(out_, "\r\033[Ktune %s  %s%s", progressBar(index, total, 24).c_str(), label.c_str(), left.c_str());
    pending_ = true;
  } else {
    std::fprintf(out_, "tune: run %zu/%zu: %s ...\n", index + 1, total, label.c_str());
  }
  std::fflush(out_);
}

void ProgressBar::end(size_t index, size_t total, const std::string& label, double seconds,
                      const std::string& outcome) {
  if (!out_ || terminal_) return;  // the terminal's line is rewritten by the next begin()
  std::fprintf(out_, "tune: run %zu/%zu: %s: %s in %s\n", index + 1, total, label.c_str(), outcome.c_str(),
               durationText(seconds).c_str());
  std::fflush(out_);
}

void ProgressBar::clear() {
  if (out_ && terminal_ && pending_) {
    std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
  }
  pending_ = false;
}

}  // namespace tune
}  // namespace flashccl
