// What a healthy machine of this type should reach, where the hardware alone does not say it:
// collective busbw floors per (collective, ranks, size), and optional floors that replace the
// ones doctor derives from the hardware (host link, memory, GPU pairs, NIC rate).
//
// Two sources, the second winning where both speak:
//   1. the <doctor> element of the topologies/*.xml file that matches this machine:
//        <doctor>
//          <busbw coll="allreduce" ranks="2" bytes="256M" min="224"/>
//        </doctor>
//   2. `--expect FILE`, JSON:
//        {"busbw": [{"collective": "allreduce", "ranks": 2, "bytes": "256M", "min_gbps": 224}],
//         "h2d_gbps": 50, "d2h_gbps": 50, "memory_gbps": 4000, "pair_copy_engine_gbps": 350,
//         "pair_sm_store_gbps": 300, "pair_latency_us": 1.0, "nic_rate_gbps": 400}
//      Every key is optional; an unknown key is an error (a misspelt floor would otherwise be
//      silently ignored).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace flashccl {
namespace doctor {

// "allreduce", "allgather", "reducescatter", "alltoall" (the spelling shared by all flashccl
// subcommands). Accepts "all_reduce", "AllReduce", ...; false for anything else.
bool normalizeCollectiveName(const std::string& text, std::string* name);
const std::vector<std::string>& collectiveNames();

struct BusbwFloor {
  std::string collective;  // normalized
  int ranks = 0;           // 0 = any rank count
  size_t bytes = 0;
  double minGBps = 0.0;
  std::string source;      // "hopper-2gpu-nvlink.xml:42", "--expect x.json"
};

struct Expectations {
  std::vector<BusbwFloor> busbw;
  // Floors in GB/s (latency: a ceiling in us); 0 = derive from the hardware.
  double h2dGBps = 0.0;
  double d2hGBps = 0.0;
  double memoryGBps = 0.0;
  double pairCopyEngineGBps = 0.0;
  double pairSmStoreGBps = 0.0;
  double pairLatencyMicros = 0.0;
  double nicRateGbps = 0.0;  // Gb/s, as NICs are rated
  std::vector<std::string> sources;  // where these came from, for the report

  // The floor for one measurement, or nullptr.
  const BusbwFloor* floorFor(const std::string& collective, int ranks, size_t bytes) const;
};

bool parseExpectationJson(const std::string& text, const std::string& source, Expectations* out,
                          std::string* error);
bool loadExpectationFile(const std::string& path, Expectations* out, std::string* error);
// The <doctor> element of a topology file; a file without one gives no floors and no error.
bool parseTopologyExpectations(const std::string& xmlText, const std::string& path,
                               Expectations* out, std::string* error);
// `override`'s floors replace `base`'s: busbw floors with the same (collective, ranks, bytes),
// and every non-zero scalar.
void mergeExpectations(Expectations* base, const Expectations& override);

}  // namespace doctor
}  // namespace flashccl
