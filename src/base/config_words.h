// The FLASHCCL_* variables that take one of a few words, with their words: config.cc checks them
// at first use (Config::get), so a typo (FLASHCCL_TRACE=maybe) is one WARN naming the variable, the
// value, the words and the default, and the default is used. A row of envParams() (config.h) that
// takes words has its entry here; a unit test keeps each default among its words.
#pragma once

#include <vector>

namespace flashccl {

struct EnvWords {
  const char* name;   // as in envParams()
  const char* words;  // space-separated, compared without case: "0 1 full off on"
};

const std::vector<EnvWords>& envWords();

}  // namespace flashccl
