// Shared helpers of the msccl_*_test.cc files.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "msccl/parser.h"
#include "msccl/program.h"

namespace flashccl::msccl::testing {

inline std::string sourcePath(const std::string& relative) {
  return std::string(FLASHCCL_SOURCE_DIR) + "/" + relative;
}

inline std::string dataPath(const std::string& name) {
  return sourcePath("tests/unit/data/msccl/" + name);
}

// Parses or fails the test with the parser's message.
inline Program parseOrDie(const std::string& xml, const std::string& name = "test.xml") {
  Program p;
  Diagnostic error;
  ncclResult_t res = parseProgramString(xml, name, &p, &error);
  EXPECT_EQ(res, ncclSuccess) << error.str();
  return p;
}

inline Program parseFileOrDie(const std::string& path) {
  Program p;
  Diagnostic error;
  ncclResult_t res = parseProgramFile(path, &p, &error);
  EXPECT_EQ(res, ncclSuccess) << error.str();
  return p;
}

}  // namespace flashccl::msccl::testing
