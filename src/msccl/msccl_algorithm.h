// An MSCCL XML program as an Algorithm: supports() applies MSCCL's selection rules (collective,
// rank count, byte range, in-place or out-of-place, chunk divisibility, ops without avg or
// PreMulSum) and the limits of our buffers; launch() runs the executor (executor.h).
//
// One object per communicator: prepare() uploads that rank's image and allocates its scratch on
// the communicator's device; both are freed with the object (the communicator's Selector).
#pragma once

#include <memory>
#include <string>

#include "algo/algorithm.h"
#include "algo/reduce_spec.h"
#include "msccl/exec_image.h"
#include "msccl/program.h"

namespace flashccl::msccl {

// Scratch of one communicator's XML program that uses scratch chunks: calls needing more go to
// the next selection row or NCCL.
constexpr size_t kExecutorScratchBytes = 8u << 20;

class MscclAlgorithm final : public Algorithm {
 public:
  MscclAlgorithm(std::string name, std::shared_ptr<const Program> program);
  ~MscclAlgorithm() override;
  MscclAlgorithm(const MscclAlgorithm&) = delete;
  MscclAlgorithm& operator=(const MscclAlgorithm&) = delete;

  const char* name() const override { return name_.c_str(); }
  CollKind kind() const override { return *program_->coll; }
  bool supports(const CollCall& call, const CommView& ctx) const override;
  ncclResult_t launch(const CollCall& call, const CommView& ctx) override;
  bool prepare(const CommView& ctx, std::string* why) override;
  uint64_t contentFingerprint() const override { return program_->sourceHash; }
  // Its calls' tiles and channels are fitted to the layout's slots and lanes (exec_image.h).
  bool needsFullBufferAtSetUp() const override { return true; }

  const Program& program() const { return *program_; }

 private:
  // The call's shape and reduction, or false with *why when this program cannot run it.
  bool planCall(const CollCall& call, const CommView& ctx, ExecCallShape* shape, ReduceSpec* spec,
                const char** why) const;

  std::string name_;
  std::shared_ptr<const Program> program_;
  ExecProgramFacts facts_;
  size_t scratchCapacity_ = 0;
  // Set by prepare(): this rank's image on the device, and scratch.
  void* deviceImage_ = nullptr;
  int threadBlocks_ = 0;
  char* scratch_ = nullptr;
};

}  // namespace flashccl::msccl
