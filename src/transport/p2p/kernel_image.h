// Whether this build of the library has GPU code a device can run. The wheel carries Hopper code
// only (sm_90 and its PTX, which newer GPUs compile at load); on an older GPU every kernel of ours
// would fail to launch with "no kernel image". Asked once per communicator at set-up, so such a
// GPU stays on NCCL with the reason named (docs/design.md, "Forward when unsure"), instead of an
// error from the first collective.
#pragma once

#include <string>

namespace flashccl {

// "" when the library's kernels can run on `device` (the current device must be `device`); else
// why not, naming the device's compute capability and the architectures this build has code for
// (docs/troubleshooting.md says how to build for others).
std::string kernelImageProblem(int device);

}  // namespace flashccl
