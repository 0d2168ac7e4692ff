#include "base/thread_state.h"

namespace flashccl {

ThreadState& threadState() {
  static thread_local ThreadState state;
  return state;
}

}  // namespace flashccl
