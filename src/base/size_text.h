// Sizes written as text: "8", "64K", "1M", "4G" (powers of 1024; "64KB" and "64KiB" mean the same).
// The one parser for FLASHCCL_* variables, topology files and the flashccl command's options.
// Depends on nothing else of ours, so the tools' option parsers link it without the CUDA-bound core.
#pragma once

#include <cstddef>
#include <string>

namespace flashccl {

// A whole number of bytes with an optional B, K, M, G or T suffix (K/M/G/T may be followed by B or
// iB), in any case; spaces around it are ignored, spaces inside it are not. False (and *bytes
// untouched) for anything else, including fractions, signs and values that overflow size_t.
bool parseBytes(const std::string& text, size_t* bytes);

// "8 B", "64 KiB", "1 MiB", "1.5 MiB": for messages and tables.
std::string formatBytes(size_t bytes);

}  // namespace flashccl
