// NCCL_VERSION_CODE as text, for the library (base/real_nccl.cc) and the tuner plugin, which
// compares it with the nccl= of a table's <measurement>. Header-only: the plugin links nothing.
#pragma once

#include <string>

namespace flashccl {

// NCCL_VERSION(X,Y,Z): X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z since 2.9. 22809 -> "2.28.9".
inline std::string ncclVersionText(int code) {
  int major, minor, patch;
  if (code >= 10000) {
    major = code / 10000, minor = (code % 10000) / 100, patch = code % 100;
  } else {
    major = code / 1000, minor = (code % 1000) / 100, patch = code % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace flashccl
