// The progress line doctor prints on stderr while it measures: rewritten in place on a
// terminal, one line per step otherwise (logs, CI), so a long run is never silent.
#pragma once

#include <cstdio>
#include <string>

namespace flashccl {
namespace doctor {

class Progress {
 public:
  explicit Progress(FILE* out);
  ~Progress();
  void step(const std::string& what);  // "gpu 0: memory bandwidth"
  void done();                         // clears the line on a terminal

 private:
  FILE* out_;
  bool terminal_;
  bool pending_ = false;
};

}  // namespace doctor
}  // namespace flashccl
