#include "msccl/algorithm_file.h"

#include <algorithm>

#include "msccl/parser.h"

namespace flashccl::msccl {

ncclResult_t loadAlgorithmFile(const std::string& path, const ValidationOptions& options,
                               Program* program, std::vector<Diagnostic>* errors) {
  errors->clear();
  Diagnostic parseError;
  ncclResult_t res = parseProgramFile(path, program, &parseError);
  if (res != ncclSuccess) {
    errors->push_back(parseError);
    return res;
  }
  return validateProgram(*program, options, errors);
}

std::string describeProgram(const Program& p) {
  size_t maxTbs = 0;
  for (const Gpu& g : p.gpus) maxTbs = std::max(maxTbs, g.threadBlocks.size());
  const char* placement = p.inplace && p.outofplace ? "in-place and out-of-place"
                          : p.inplace               ? "in-place only"
                          : p.outofplace            ? "out-of-place only"
                                                    : "never selected (inplace=0 outofplace=0)";
  return formatString("%s%s, %d gpus, %s, nchannels=%d, nchunksperloop=%d, %zu thread blocks/rank, %s",
                      p.collName.c_str(), p.coll ? "" : " (not run by flashccl)", p.ngpus,
                      protocolName(p.proto), p.nchannels, p.nchunksperloop, maxTbs, placement);
}

bool checkAlgorithmFile(const std::string& path, std::string* report) {
  Program program;
  std::vector<Diagnostic> errors;
  ncclResult_t res = loadAlgorithmFile(path, ValidationOptions(), &program, &errors);
  if (report) {
    *report = res == ncclSuccess ? path + ": OK: " + describeProgram(program) + "\n"
                                 : joinDiagnostics(errors);
  }
  return res == ncclSuccess;
}

}  // namespace flashccl::msccl
