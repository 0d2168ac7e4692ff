// MSCCL XML programs (what FLASHCCL_MSCCL_ALGO_DIR's files hold): parsed, validated as the loader
// does (simulation included), and, when valid, described and flattened for every rank as the
// executor would get them. Nothing may crash, leak or take unbounded memory or time.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "msccl/algorithm_file.h"
#include "msccl/exec_image.h"
#include "msccl/parser.h"
#include "msccl/validator.h"

using namespace flashccl::msccl;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  Program program;
  Diagnostic error;
  if (parseProgramString(xml, "fuzz.xml", &program, &error) != ncclSuccess) return 0;
  ValidationOptions options;
  std::vector<Diagnostic> errors;
  if (validateProgram(program, options, &errors) != ncclSuccess) return 0;
  (void)describeProgram(program);
  (void)programFacts(program);
  for (int rank = 0; rank < program.ngpus; ++rank) {
    std::string why;
    (void)buildExecImage(program, rank, &why);
  }
  return 0;
}
