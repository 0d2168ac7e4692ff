// XML steps -> transmissions, the way the reference executor's parser builds them
// (msccl-format.md §2.4, EX msccl_parser.cc):
//  - a nop with depid >= 0 pushes its dependency onto a pending list; the next transmission that
//    is not a fused re takes the whole list. A nop with depid -1 is dropped.
//  - a re joins the previous transmission if that one is a re with the same dstbuf, dstoff and
//    srcbuf, had hasdep=0, has fewer than kMaxReduceFusion sources, and this re has depid -1.
//  - a transmission publishes (when hasdep) the XML s of the last step folded into it.
//
// Decoding never fails: it does what the executor would do and notes each place where that is
// not what the author can have meant. The validator turns every note into an error.
#pragma once

#include <vector>

#include "msccl/program.h"

namespace flashccl::msccl {

enum class DecodeIssue : int {
  kNopWithoutDependency,       // nop with depid -1: dropped, step numbering desynchronises
  kChainWithoutDependency,     // real step after a nop chain has depid -1 (EX rejects the file)
  kNopInsideFusedReduction,    // nop between two fused re steps: its dependency moves later
  kTrailingNop,                // nop(s) at the end of a tb: the dependency is never waited on
  kFusedCountMismatch,         // fused re steps with different cnt: EX runs all with the last
};

struct DecodeNote {
  DecodeIssue issue;
  int stepIndex;  // position of the offending step in ThreadBlock::steps
};

// Decodes one thread block's steps. `notes` may be null.
std::vector<Transmission> decodeThreadBlock(const std::vector<Step>& steps,
                                            std::vector<DecodeNote>* notes);

}  // namespace flashccl::msccl
