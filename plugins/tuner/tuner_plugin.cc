// libnccl-tuner-flashccl.so's exports: ncclTunerPlugin_v5, v4, v3 and v2, which NCCL looks up in
// that order (exports.map keeps everything else local). Each version is a thin adapter over one
// TunerContext per communicator.
//
// Every entry point returns ncclSuccess whatever happens: NCCL 2.28 fails the communicator when
// init fails and the collective when getCollInfo fails. A table that cannot be used is one WARN,
// and NCCL keeps its own choices.
#include <exception>
#include <memory>
#include <string>

#include "base/data_dirs.h"
#include "loaded_nccl.h"
#include "machine_probe.h"
#include "nccl_tuner_abi.h"
#include "table_choice.h"
#include "tuner_context.h"
#include "tuner_log.h"

namespace flashccl {

namespace {

constexpr const char* kPluginName = "flashccl";
constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

std::string tableSummary(const TableChoice& choice, const TunerContext& context, size_t nRanks,
                         size_t nNodes) {
  const std::string communicator =
      std::to_string(nRanks) + " ranks, " + std::to_string(nNodes) + " nodes";
  if (choice.table.rows.empty()) return "no table (" + choice.why + "); NCCL chooses for " + communicator;
  return std::to_string(context.rowCount()) + " of " + std::to_string(choice.table.rows.size()) +
         " rows apply to " + communicator + " (" + choice.why + ")";
}

void initContext(void** context, size_t nRanks, size_t nNodes, nccl_abi::Logger logger) noexcept {
  if (context == nullptr) return;
  *context = nullptr;
  try {
    const TunerEnvironment environment = TunerEnvironment::fromProcess();
    CalibratedSearch calibrated;
    calibrated.dirs = calibratedTableDirs(environment.tableDir);
    calibrated.ncclVersion = loadedNcclVersion(&calibrated.ncclVersionWhy);
    calibrated.nRanks = int(nRanks);
    calibrated.nNodes = int(nNodes);
    const TableChoice choice = chooseTuningTable(
        environment, dataDirectories("topologies"),
        [](std::string* why) { return probeMachineWithNvml(kNvmlLibrary, why); }, calibrated);
    if (!choice.warning.empty()) tunerWarn(logger, choice.warning);
    for (const std::string& note : choice.notes) tunerInitInfo(logger, note);
    std::unique_ptr<TunerContext> tuner(
        new TunerContext(choice.table, int(nRanks), int(nNodes), logger));
    tunerInitInfo(logger, std::string("flashccl tuner " FLASHCCL_VERSION_STRING ": ") +
                              tableSummary(choice, *tuner, nRanks, nNodes));
    *context = tuner.release();
  } catch (const std::exception& error) {
    tunerWarn(logger, std::string("init failed (") + error.what() + "); NCCL keeps its own choices");
  } catch (...) {
    tunerWarn(logger, "init failed; NCCL keeps its own choices");
  }
}

ncclResult_t initV5(void** context, uint64_t /*commId*/, size_t nRanks, size_t nNodes,
                    nccl_abi::Logger logger, nccl_abi::NvlDomainInfoV5* /*nvlDomainInfo*/,
                    nccl_abi::TunerConstantsV5* /*constants*/) {
  initContext(context, nRanks, nNodes, logger);
  return ncclSuccess;
}

ncclResult_t initV4(size_t nRanks, size_t nNodes, nccl_abi::Logger logger, void** context) {
  initContext(context, nRanks, nNodes, logger);
  return ncclSuccess;
}

ncclResult_t getCollInfoV5(void* context, nccl_abi::Func coll, size_t nBytes, int numPipeOps,
                           float** costTable, int numAlgo, int numProto, int regBuff,
                           int* nChannels) {
  if (context != nullptr) {
    static_cast<TunerContext*>(context)->chooseInCostTable({coll, nBytes, numPipeOps, regBuff != 0},
                                                           costTable, numAlgo, numProto, nChannels);
  }
  return ncclSuccess;
}

// v3 predates registered-buffer tuning: calls count as unregistered.
ncclResult_t getCollInfoV3(void* context, nccl_abi::Func coll, size_t nBytes, int numPipeOps,
                           float** costTable, int numAlgo, int numProto, int* nChannels) {
  return getCollInfoV5(context, coll, nBytes, numPipeOps, costTable, numAlgo, numProto, 0, nChannels);
}

ncclResult_t getCollInfoV2(void* context, nccl_abi::Func coll, size_t nBytes, int collNetSupport,
                           int nvlsSupport, int numPipeOps, int* algorithm, int* protocol,
                           int* nChannels) {
  if (context != nullptr) {
    static_cast<TunerContext*>(context)->chooseByName({coll, nBytes, numPipeOps, false},
                                                      collNetSupport != 0, nvlsSupport != 0,
                                                      algorithm, protocol, nChannels);
  }
  return ncclSuccess;
}

ncclResult_t finalize(void* context) {
  delete static_cast<TunerContext*>(context);
  return ncclSuccess;
}

}  // namespace

}  // namespace flashccl

extern "C" {
#define FLASHCCL_TUNER_EXPORT __attribute__((visibility("default")))
FLASHCCL_TUNER_EXPORT extern const flashccl::nccl_abi::TunerV5 ncclTunerPlugin_v5;
FLASHCCL_TUNER_EXPORT extern const flashccl::nccl_abi::TunerV4 ncclTunerPlugin_v4;
FLASHCCL_TUNER_EXPORT extern const flashccl::nccl_abi::TunerV3 ncclTunerPlugin_v3;
FLASHCCL_TUNER_EXPORT extern const flashccl::nccl_abi::TunerV2 ncclTunerPlugin_v2;

const flashccl::nccl_abi::TunerV5 ncclTunerPlugin_v5 = {
    flashccl::kPluginName, flashccl::initV5, flashccl::getCollInfoV5, flashccl::finalize};
const flashccl::nccl_abi::TunerV4 ncclTunerPlugin_v4 = {
    flashccl::kPluginName, flashccl::initV4, flashccl::getCollInfoV5, flashccl::finalize};
const flashccl::nccl_abi::TunerV3 ncclTunerPlugin_v3 = {
    flashccl::kPluginName, flashccl::initV4, flashccl::getCollInfoV3, flashccl::finalize};
const flashccl::nccl_abi::TunerV2 ncclTunerPlugin_v2 = {
    flashccl::kPluginName, flashccl::initV4, flashccl::getCollInfoV2, flashccl::finalize};
}
