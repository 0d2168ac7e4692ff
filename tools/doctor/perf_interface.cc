#include "perf_interface.h"

#include <nlohmann/json.hpp>

#include "expectations.h"

namespace flashccl {
namespace doctor {

std::vector<std::string> perfArguments(const PerfRunSettings& settings, const std::string& jsonPath) {
  // perf reads sizes in bytes (with K/M/G) and runs every visible GPU, one thread each, by
  // default: one communicator over the node's GPUs. Out of place only: perf's default adds an
  // in-place row per size, which would make two checks of one name (and one median of both).
  return {"perf",
          "--coll", settings.collective,
          "--placement", "out",
          "-b", std::to_string(settings.minBytes),
          "-e", std::to_string(settings.maxBytes),
          "-f", std::to_string(settings.stepFactor),
          "-n", std::to_string(settings.iters),
          "-w", std::to_string(settings.warmupIters),
          "--pairs", std::to_string(settings.pairs),
          "--json", jsonPath};
}

bool parsePerfJson(const std::string& text, PerfRun* run, std::string* error) {
  using json = nlohmann::json;
  try {
    const json document = json::parse(text);
    PerfRun parsed;
    parsed.ranks = document.at("ranks").get<int>();
    parsed.ncclVersion = document.value("nccl_version", "");
    parsed.flashcclVersion = document.value("flashccl_version", "");
    for (const json& row : document.at("results")) {
      PerfMeasurement m;
      if (!normalizeCollectiveName(row.at("collective").get<std::string>(), &m.collective)) {
        *error = "perf JSON: unknown collective '" + row.at("collective").get<std::string>() + "'";
        return false;
      }
      m.bytes = row.at("size_bytes").get<size_t>();
      const json& nccl = row.at("nccl");
      const json& flashccl = row.at("flashccl");
      // perf writes null for a number it could not compute.
      auto number = [](const json& value) { return value.is_number() ? value.get<double>() : 0.0; };
      m.ncclBusbw = number(nccl.at("busbw_gbps"));
      m.flashcclBusbw = number(flashccl.at("busbw_gbps"));
      m.ncclMicros = number(nccl.at("time_us"));
      m.flashcclMicros = number(flashccl.at("time_us"));
      m.checked = row.value("checked", false);
      m.wrong = row.at("wrong").is_number() ? row.at("wrong").get<uint64_t>() : 0;
      m.algorithm = row.value("algorithm", "");
      parsed.results.push_back(m);
    }
    *run = parsed;
    return true;
  } catch (const json::exception& e) {
    *error = std::string("perf JSON: ") + e.what();
    return false;
  }
}

}  // namespace doctor
}  // namespace flashccl
