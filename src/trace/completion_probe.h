// How the recorder learns that a call forwarded to NCCL started and completed on the GPU: NCCL's
// kernels do not stamp our progress words, so a probe marks the call's stream before and after it
// (CUDA events in the library, a fake in the tests). Used only while tracing is fully on
// (FLASHCCL_TRACE=full): marking a stream costs about a microsecond per call.
#pragma once

#include <cstddef>

namespace flashccl {

class CompletionProbe {
 public:
  virtual ~CompletionProbe() = default;

  // The writer thread, around one forwarded call that occupies ring slot `slot`. markBefore runs
  // just before the call is handed to NCCL, markAfter just after. Either may decline (false), e.g.
  // on a stream that is capturing a CUDA graph, where a mark would become part of the graph.
  virtual bool markBefore(size_t slot, const void* stream) = 0;
  virtual bool markAfter(size_t slot, const void* stream) = 0;

  enum class Reached { kNo, kYes, kUnknown };
  // The observer thread: whether the stream got past the marks of `slot`.
  virtual Reached reachedBefore(size_t slot) = 0;
  virtual Reached reachedAfter(size_t slot) = 0;
};

}  // namespace flashccl
