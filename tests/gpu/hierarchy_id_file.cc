#include "hierarchy_id_file.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

namespace flashccl_gpu_test::hierarchy {

std::string writeIdFile(const std::string& path, const ncclUniqueId& id) {
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(id.internal, sizeof(id.internal));
    if (!out) return "cannot write " + partial;
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) return "cannot rename " + partial + " to " + path;
  return "";
}

std::string readIdFile(const std::string& path, double timeoutS, ncclUniqueId* id) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutS);
  while (true) {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      in.read(id->internal, sizeof(id->internal));
      if (in.gcount() == static_cast<std::streamsize>(sizeof(id->internal))) return "";
      return path + " holds " + std::to_string(in.gcount()) + " bytes, not a whole unique id";
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return "no unique id in " + path + " after " + std::to_string(static_cast<int>(timeoutS)) + " s (did rank 0 start?)";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace flashccl_gpu_test::hierarchy
