// Shared helpers of the msccl_*_test.cc files.
#pragma once

#include <dirent.h>

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include <string>

#include "msccl/parser.h"
#include "msccl/program.h"

namespace flashccl::msccl::testing {

// The *.xml file names in `dir`, sorted (empty when the directory cannot be read).
inline std::vector<std::string> xmlFilesIn(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 4 && n.compare(n.size() - 4, 4, ".xml") == 0) names.push_back(n);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

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
