// The check's processes meet through a file: rank 0 writes NCCL's unique id there (written under
// another name, then renamed, so a reader never sees half of it), the others wait for it.
#pragma once

#include <string>

#include <nccl.h>

namespace flashccl_gpu_test::hierarchy {

// "" or what failed.
std::string writeIdFile(const std::string& path, const ncclUniqueId& id);
// Waits up to `timeoutS` seconds for the file; "" or what failed (time-out, short file).
std::string readIdFile(const std::string& path, double timeoutS, ncclUniqueId* id);

}  // namespace flashccl_gpu_test::hierarchy
