// `flashccl plan --check DIR`: validate a directory of MSCCL XML algorithm files.
//
// The validation itself belongs to src/msccl/ (algorithm_file.h, another engineer's part); this
// file only walks the directory and reports. MERGE HOOK: algorithmFileCheck() returns nullptr until
// the msccl checker is wired in there (one line in algorithm_check.cc).
#pragma once

#include <ostream>
#include <string>

namespace flashccl {

// Validates one algorithm file. False with *error = "file:line: what is wrong" when invalid.
using AlgorithmFileCheck = bool (*)(const std::string& path, std::string* error);

// The checker this build has, or nullptr when it has none.
AlgorithmFileCheck algorithmFileCheck();

// Runs `check` on every *.xml in `dir` in file-name order, one line per file on `out`, errors on
// `err`. Returns 0 when every file is valid, 1 when a file is invalid, the directory cannot be
// read, it holds no *.xml, or `check` is null (nothing could be validated: never report success).
int checkAlgorithmDirectory(const std::string& dir, AlgorithmFileCheck check, std::ostream& out,
                            std::ostream& err);

}  // namespace flashccl
