// `flashccl trace` with its streams passed in, for tests (traceMain uses std::cout/std::cerr).
#pragma once

#include <ostream>

namespace flashccl {

int runTrace(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace flashccl
