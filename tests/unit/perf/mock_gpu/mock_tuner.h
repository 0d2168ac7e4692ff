// The mock NCCL with libnccl-tuner-flashccl.so loaded, for `flashccl tune` end to end
// (tests/unit/tune/mock_tune_test.cc). Off unless MOCK_TUNER_DELAYS is set; then each "real NCCL"
// call is chosen as NCCL with the plugin would choose it, from FLASHCCL_TUNER_FORCE or
// FLASHCCL_TUNER_FILE read with the plugin's own parsers, takes the time that choice is given, and
// is logged as NCCL and the plugin log (NCCL_DEBUG, NCCL_DEBUG_SUBSYS, NCCL_DEBUG_FILE with %h and %p):
//
//   MOCK_TUNER_DELAYS="nccl=1500,ring/ll=300,ring/simple/2=900"
//       microseconds per call of NCCL's own choice ("nccl", logged as RING/SIMPLE on 8 channels)
//       and of each algorithm/protocol[/channels]; a choice not listed takes NCCL's own time.
//   MOCK_TUNER_REFUSED="allgather:tree"
//       collective:algorithm cells NCCL marks unusable: the plugin WARNs (forced) and NCCL's own
//       choice runs.
//   MOCK_FLASHCCL_DELAYS="selection=1000,allreduce_oneshot=200"
//       flashccl's side: its own choice ("selection"), and the algorithms FLASHCCL_ALGO forces;
//       a forced algorithm not listed is one flashccl cannot run: it forwards ("NCCL"). With
//       FLASHCCL_TOPO_FILE (and no FLASHCCL_ALGO entry for the collective), flashccl's own choice is
//       the file's first <selection> row that matches the call, as the library's Selector takes
//       it: a row naming a listed algorithm runs it, any other forwards.
#pragma once

#include <cstddef>
#include <string>

namespace mocktuner {

bool active();  // MOCK_TUNER_DELAYS is set

// At each rank's communicator init: the plugin's init line.
void onCommInit(int rank, int nranks);

// An NCCL-side call: its time in microseconds (logged as NCCL would on rank 0).
int ncclCallMicros(int rank, int nranks, const char* collective, size_t bytes);

// A flashccl-side call: the algorithm that runs and its time.
int flashcclCallMicros(int nranks, const char* collective, size_t bytes, std::string* algorithm);

}  // namespace mocktuner
