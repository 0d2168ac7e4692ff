// `flashccl plan --check FILE|DIR`: validate one MSCCL XML algorithm file, or every *.xml in a
// directory.
//
// The validation itself belongs to src/msccl/ (algorithm_file.h); this file only finds the files
// and reports, one line per file (docs/algorithms.md shows the output).
#pragma once

#include <ostream>
#include <string>

namespace flashccl {

// Validates one algorithm file. False with *error = "file:line: what is wrong" when invalid.
using AlgorithmFileCheck = bool (*)(const std::string& path, std::string* error);

// The checker this build has, or nullptr when it has none.
AlgorithmFileCheck algorithmFileCheck();

// Runs `check` on `path` when it is a file, or on every *.xml in it (file-name order) when it is a
// directory: one line per file on `out` ("ok       <path>" or "INVALID  <file:line: why>"), then
// "<n> of <m> algorithm files valid"; errors on `err`. Returns 0 when every file is valid, 1 when
// a file is invalid, the path cannot be read, a directory holds no *.xml, or `check` is null
// (nothing could be validated: never report success).
int checkAlgorithmFiles(const std::string& path, AlgorithmFileCheck check, std::ostream& out,
                        std::ostream& err);

}  // namespace flashccl
