// The version of the NCCL that loaded the plugin, so an installed calibrated table is used only
// with the NCCL its <tuning> rows were measured on (docs/tuner.md, "Calibrated tables"). The tuner
// ABI does not pass it; the plugin asks NCCL itself, through ncclGetVersion, without linking it.
#pragma once

#include <string>

#include "base/nccl_version_text.h"

namespace flashccl {

// "2.28.9", or "" with *why set when no NCCL is loaded in this process. ncclGetVersion is looked
// up in the global scope first, then in a loaded libnccl.so* (PyTorch loads NCCL RTLD_LOCAL,
// which the global lookup does not see).
std::string loadedNcclVersion(std::string* why);

}  // namespace flashccl
