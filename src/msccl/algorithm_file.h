// One algorithm file, end to end: what the algorithm loader and `flashccl plan --check` call.
#pragma once

#include <nccl.h>

#include <string>
#include <vector>

#include "msccl/diagnostic.h"
#include "msccl/program.h"
#include "msccl/validator.h"

namespace flashccl::msccl {

// Parses and validates `path`. ncclSuccess: *program is safe to run. ncclSystemError: the file
// cannot be read. ncclInvalidUsage: it is not a valid algorithm; *errors say why, one
// `file:line: what is wrong` each. The loader skips such a file with a WARN per error.
ncclResult_t loadAlgorithmFile(const std::string& path, const ValidationOptions& options,
                               Program* program, std::vector<Diagnostic>* errors);

// For `flashccl plan --check`: true when the file is valid with the default options. *report
// (may be null) gets one line "path: OK: <what it is>" or the errors, one per line.
bool checkAlgorithmFile(const std::string& path, std::string* report);

// One line about a valid program: "allreduce, 8 gpus, LL, nchannels=4, nchunksperloop=32,
// 32 thread blocks/rank, in-place and out-of-place".
std::string describeProgram(const Program& program);

}  // namespace flashccl::msccl
