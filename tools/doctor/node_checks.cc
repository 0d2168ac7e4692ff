#include "node_checks.h"

#include <flashccl/flashccl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>

#include "bandwidth_checks.h"
#include "base/config.h"
#include "collective_checks.h"
#include "gpu_health_checks.h"
#include "gpu_measure.h"
#include "iommu_check.h"
#include "link_rates.h"
#include "nic_checks.h"
#include "nic_inventory.h"
#include "numa_binding.h"
#include "nvml_health.h"
#include "pair_checks.h"
#include "pcie_acs.h"
#include "perf_interface.h"
#include "rail_traffic.h"
#include "software_checks.h"
#include "subprocess.h"
#include "sysfs_files.h"
#include "topo/machine_table.h"
#include "topo/topology_detect.h"
#include "variable_checks.h"
#include "verbs_probe.h"

extern char** environ;

namespace flashccl {
namespace doctor {

namespace {

// Everything the families share: the machine as detected once, and the run's settings.
struct Machine {
  Machine(const DoctorOptions& o, Progress& p) : options(o), progress(p) {}
  const DoctorOptions& options;
  Progress& progress;
  Expectations expectations;
  std::string expectationProblem;  // a topology file whose <doctor> part is broken
  MeasureSettings settings;
  std::map<std::string, std::string> environment;
  Topology topology;
  std::unique_ptr<NvmlHealth> nvml;
  std::string nvmlError;
  std::vector<GpuHealth> health;  // NVML order
  NicInventory nics;
  int cudaCount = 0;
  std::string cudaWhy;

  const GpuHealth* healthOf(const std::string& busId) const {
    for (const GpuHealth& gpu : health) {
      if (!busId.empty() && gpu.busId == busId) return &gpu;
    }
    return nullptr;
  }
  // "GPU 3 (0000:5d:00.0)", numbered as NVML and nvidia-smi number them when NVML is there.
  std::string label(const std::string& busId, int fallbackIndex) const {
    const GpuHealth* gpu = healthOf(busId);
    return gpuSubject(gpu ? gpu->index : fallbackIndex, busId);
  }
  int numaNodeOf(const std::string& busId) const {
    for (const GpuInfo& gpu : topology.gpus) {
      if (gpu.pciBusId == busId) return gpu.numaNode;
    }
    return -1;
  }
};

std::string envValue(const Machine& m, const std::string& name) {
  auto it = m.environment.find(name);
  return it == m.environment.end() ? std::string() : it->second;
}

void add(NodeReport* report, const std::vector<CheckResult>& checks) {
  report->checks.insert(report->checks.end(), checks.begin(), checks.end());
}

// ---------------------------------------------------------------------------------------------
// environment

void environmentChecks(Machine& m, NodeReport* report) {
  m.progress.step("environment: versions, variables, PCIe ACS, IOMMU");
  SoftwareFacts facts;
  if (m.nvml) facts.driverVersion = m.nvml->driverVersion();
  if (!facts.driverVersion.known) {
    std::string text;
    const std::string path = m.options.procRoot + "/driver/nvidia/version";
    const std::string fromProc = readWholeFile(path, &text) ? driverVersionFromProc(text) : "";
    if (!fromProc.empty()) {
      facts.driverVersion.known = true;
      facts.driverVersion.value = fromProc;
    } else {
      facts.driverVersion.why = "NVML: " + (m.nvml ? facts.driverVersion.why : m.nvmlError) +
                                "; no " + path;
    }
  }
  facts.cudaDriverVersion = cudaDriverVersion(&facts.cudaDriverWhy);
  facts.cudaRuntimeVersion = cudaRuntimeVersion();
  // libflashccl.so's own discovery (src/base/real_nccl.cc) answers "which NCCL": the answer
  // for a program that loads no NCCL of its own, with this environment.
  facts.ncclPath = flashcclRealLibraryPath();
  using GetVersion = ncclResult_t (*)(int*);
  if (auto getVersion = reinterpret_cast<GetVersion>(flashcclRealFunction("ncclGetVersion"))) {
    getVersion(&facts.ncclVersion);
  }
  facts.ncclError = "flashccl found no libnccl.so.2 (its WARN line on stderr lists what it tried)";
  facts.flashcclVersion = flashcclVersion();
  facts.ldPreload = envValue(m, "LD_PRELOAD");
  facts.flashcclDisable = envValue(m, "FLASHCCL_DISABLE");
  add(report, judgeSoftware(facts, [](const std::string& path) { return pathExists(path); }));

  VariableContext context;
  for (const auto& entry : m.environment) {
    if (entry.first.compare(0, 5, "NCCL_") == 0 || entry.first == "CUDA_VISIBLE_DEVICES") {
      context.environment.insert(entry);
    }
  }
  context.rdmaDevices = m.nics.rdmaDevices;
  for (const RdmaPort& port : m.nics.rdmaPorts) context.rdmaPorts[port.device].push_back(port.port);
  context.interfaces = m.nics.interfaces;
  context.nvmlGpuCount = m.nvml ? m.nvml->gpuCount() : -1;
  for (const GpuHealth& gpu : m.health) context.gpuUuids.push_back(gpu.uuid);
  context.nvswitch = m.topology.interconnect() == Interconnect::kNvswitch;
  add(report, judgeVariables(context));

  std::vector<std::string> devices;
  for (const GpuInfo& gpu : m.topology.gpus) {
    if (!gpu.pciBusId.empty()) devices.push_back(gpu.pciBusId);
  }
  for (const RdmaPort& port : m.nics.rdmaPorts) {
    if (!port.pciBusId.empty() && std::find(devices.begin(), devices.end(), port.pciBusId) == devices.end()) {
      devices.push_back(port.pciBusId);
    }
  }
  report->checks.push_back(judgeAcs(scanAcs(m.options.sysRoot, devices), !devices.empty()));
  report->checks.push_back(judgeIommu(readIommuFacts(m.options.sysRoot, m.options.procRoot, devices)));
}

// ---------------------------------------------------------------------------------------------
// gpu (NVML) and bandwidth (CUDA)

bool visibleToCuda(const Machine& m, const std::string& busId) {
  for (int device = 0; device < m.cudaCount; ++device) {
    if (cudaBusId(device) == busId) return true;
  }
  return false;
}

void gpuChecks(Machine& m, NodeReport* report) {
  if (!m.nvml) {
    report->checks.push_back(skipCheck(kFamilyGpu, "nvml", "node",
                                       "NVML unavailable (" + m.nvmlError + "): ECC, remapped rows, "
                                       "clocks and the PCIe link are read through it"));
    return;
  }
  if (m.health.empty()) {
    report->checks.push_back(skipCheck(kFamilyGpu, "nvml", "node", "NVML lists no GPU"));
    return;
  }
  for (const GpuHealth& gpu : m.health) {
    const std::string subject = gpuSubject(gpu.index, gpu.busId);
    m.progress.step(subject + ": NVML state");
    add(report, judgeMemoryHealth(gpu, subject));
    // Clocks and the link are judged under load by the bandwidth family when it measures this
    // GPU; otherwise here, at rest.
    if (m.options.wants(kFamilyBandwidth) && visibleToCuda(m, gpu.busId)) continue;
    report->checks.push_back(judgeClocks(gpu.atRest.clocks, gpu.atRest.throttleReasons, false, subject));
    report->checks.push_back(judgePcieLink(gpu.atRest.pcie, false, subject));
  }
}

void bandwidthChecks(Machine& m, NodeReport* report) {
  for (int device = 0; device < m.cudaCount; ++device) {
    const std::string busId = cudaBusId(device);
    const std::string subject = m.label(busId, device);
    const GpuHealth* health = m.healthOf(busId);
    const int nvmlIndex = m.nvml && health ? health->index : -1;

    // The link is sampled while host copies keep it busy, the clocks while copy kernels keep the
    // SMs busy: an idle GPU lowers both to save power.
    m.progress.step(subject + ": host <-> device copies");
    LoadSample linkBusy, clocksBusy;
    bool linkSampled = false, clocksSampled = false;
    HostLinkResult link;
    {
      ScopedNumaBinding binding(m.options.sysRoot, m.numaNodeOf(busId));
      link = measureHostLink(device, m.settings, [&] {
        if (nvmlIndex < 0) return;
        linkBusy = m.nvml->sample(nvmlIndex);
        linkSampled = true;
      });
    }
    const Reading<PcieLinkState>& pcie = linkSampled ? linkBusy.pcie : (health ? health->atRest.pcie : linkBusy.pcie);
    if (!link.error.empty()) {
      report->checks.push_back(makeCheck(kFamilyBandwidth, "h2d", subject, Verdict::kFail,
                                         "error: " + link.error, "plain copies work",
                                         "a GPU that fails a pinned-memory copy fails every job"));
    } else {
      report->checks.push_back(judgeHostCopy("h2d", link.h2dGBps, pcie, m.expectations.h2dGBps, subject));
      report->checks.push_back(judgeHostCopy("d2h", link.d2hGBps, pcie, m.expectations.d2hGBps, subject));
    }

    m.progress.step(subject + ": device memory copy kernel");
    const MemoryResult memory = measureMemory(device, m.settings, [&] {
      if (nvmlIndex < 0) return;
      clocksBusy = m.nvml->sample(nvmlIndex);
      clocksSampled = true;
    });
    if (health && m.options.wants(kFamilyGpu)) {
      const LoadSample& clocks = clocksSampled ? clocksBusy : health->atRest;
      report->checks.push_back(judgeClocks(clocks.clocks, clocks.throttleReasons, clocksSampled, subject));
      report->checks.push_back(judgePcieLink(pcie, linkSampled, subject));
    }
    if (!memory.error.empty()) {
      report->checks.push_back(makeCheck(kFamilyBandwidth, "memory", subject, Verdict::kFail,
                                         "error: " + memory.error, "the copy kernel runs",
                                         "a GPU that fails a device copy fails every job"));
      continue;
    }
    double spec = 0.0;
    std::string source;
    if (health && health->memoryBusWidth.known && health->memoryClockMaxMHz.known) {
      spec = memoryGBps(health->memoryBusWidth.value, health->memoryClockMaxMHz.value);
      source = "NVML: " + std::to_string(health->memoryBusWidth.value) + "-bit x " +
               std::to_string(health->memoryClockMaxMHz.value) + " MHz x 2";
    } else {
      spec = memoryGBps(memory.busWidthBits, memory.memoryClockMHz);
      source = "CUDA: " + std::to_string(memory.busWidthBits) + "-bit x " +
               std::to_string(memory.memoryClockMHz) + " MHz x 2";
    }
    report->checks.push_back(judgeMemoryBandwidth(memory.copyGBps, spec, source, m.expectations.memoryGBps, subject));
  }
}

// ---------------------------------------------------------------------------------------------
// pairs

PairPath pathBetween(const Machine& m, const std::string& busA, const std::string& busB) {
  PairPath path;
  path.name = "unknown path";
  int a = -1, b = -1;
  for (size_t i = 0; i < m.topology.gpus.size(); ++i) {
    if (m.topology.gpus[i].pciBusId == busA) a = int(i);
    if (m.topology.gpus[i].pciBusId == busB) b = int(i);
  }
  if (a < 0 || b < 0) return path;
  const GpuLink& link = m.topology.links[size_t(a)][size_t(b)];
  const GpuHealth* health = m.healthOf(busA);
  if (link.path == GpuPath::kNvlink || link.path == GpuPath::kNvswitch) {
    path.nvlink = true;
    path.name = link.nvlinks > 0 ? "NV" + std::to_string(link.nvlinks) : "NVLink";
    if (link.nvlinks > 0 && health && health->nvlinkMBpsPerLink.known && health->nvlinkMBpsPerLink.value > 0) {
      const double perLink = health->nvlinkMBpsPerLink.value;
      path.rawGBps = nvlinkGBps(link.nvlinks, perLink);
      path.rawSource = std::to_string(link.nvlinks) + " links x " + formatNumber(perLink / 1000.0, 2) +
                       " GB/s (NVML)";
    }
    return path;
  }
  path.name = std::string("PCIe ") + pcieDistanceName(link.pcie);
  const GpuHealth* other = m.healthOf(busB);
  if (health && other && health->atRest.pcie.known && other->atRest.pcie.known) {
    const PcieLinkState& la = health->atRest.pcie.value;
    const PcieLinkState& lb = other->atRest.pcie.value;
    const double ra = pcieLinkGBps(la.maxGeneration, la.maxWidth);
    const double rb = pcieLinkGBps(lb.maxGeneration, lb.maxWidth);
    path.rawGBps = std::min(ra, rb);
    path.rawSource = ra <= rb ? pcieLinkName(la.maxGeneration, la.maxWidth)
                              : pcieLinkName(lb.maxGeneration, lb.maxWidth);
  }
  return path;
}

void pairChecks(Machine& m, NodeReport* report) {
  if (m.cudaCount < 2) {
    report->checks.push_back(skipCheck(kFamilyPairs, "pairs", "node",
                                       "needs two GPUs; this process sees " + std::to_string(m.cudaCount) +
                                           (envValue(m, "CUDA_VISIBLE_DEVICES").empty() ? "" : " (CUDA_VISIBLE_DEVICES)")));
    return;
  }
  std::vector<std::string> labels, busIds;
  for (int device = 0; device < m.cudaCount; ++device) {
    busIds.push_back(cudaBusId(device));
    labels.push_back(m.label(busIds.back(), device));
  }
  std::vector<PairMeasurement> pairs;
  for (int from = 0; from < m.cudaCount; ++from) {
    for (int to = 0; to < m.cudaCount; ++to) {
      if (from == to) continue;
      m.progress.step("pair " + labels[size_t(from)] + " -> " + labels[size_t(to)]);
      const PairResult result = measurePair(from, to, m.settings);
      PairMeasurement pair;
      pair.from = from;
      pair.to = to;
      pair.path = pathBetween(m, busIds[size_t(from)], busIds[size_t(to)]);
      pair.peerAccess = result.peerAccess;
      if (result.copyEngineGBps > 0) pair.copyEngineGBps = result.copyEngineGBps;
      if (result.smStoreGBps > 0) pair.smStoreGBps = result.smStoreGBps;
      if (result.latencyMicros > 0) pair.latencyMicros = result.latencyMicros;
      pair.note = result.note;
      pairs.push_back(pair);
    }
  }
  add(report, judgePairs(pairs, labels, m.expectations, &report->matrices));
}

// ---------------------------------------------------------------------------------------------
// NICs, collectives, rails

void nicChecks(Machine& m, NodeReport* report) {
  m.progress.step("NICs");
  VerbsProbe verbs;
  if (!m.nics.rdmaDevices.empty()) verbs = probeVerbs(m.options.verbsLibrary);
  add(report, judgeNics(m.nics, verbs, m.expectations.nicRateGbps));
  std::vector<GpuPlacement> gpus;
  for (size_t i = 0; i < m.topology.gpus.size(); ++i) {
    const GpuInfo& gpu = m.topology.gpus[i];
    gpus.push_back(GpuPlacement{m.label(gpu.pciBusId, int(i)), gpu.pciBusId, gpu.numaNode});
  }
  add(report, judgeNicLocality(gpus, m.nics, m.options.sysRoot));
}

std::string perfProgram(const DoctorOptions& options) {
  if (!options.perfCommand.empty()) return options.perfCommand;
  const std::string self = resolvePath("/proc/self/exe");
  return self.empty() ? std::string("/proc/self/exe") : self;
}

PerfRunSettings perfSettings(const std::string& collective, bool full) {
  PerfRunSettings settings;
  settings.collective = collective;
  if (full) {
    settings.minBytes = 64u << 10;
    settings.maxBytes = 1u << 30;
    settings.stepFactor = 4;
  }
  return settings;
}

CollectiveOutcome runOneCollective(Machine& m, const std::string& collective, const std::string& dir,
                                   bool* keepLogs) {
  CollectiveOutcome outcome;
  outcome.collective = collective;
  const std::string json = dir + "/" + collective + ".json";
  const std::string log = dir + "/" + collective + ".log";
  const ProgramOutcome run = runProgram(perfProgram(m.options), perfArguments(perfSettings(collective, m.options.full), json),
                                        log, /*timeoutSeconds=*/1800);
  std::string text, error;
  if (!run.started) {
    outcome.status = CollectiveOutcome::Status::kFailed;
    outcome.message = run.error;
  } else if (run.exitStatus == 2) {
    // perf refused the request (a usage error, e.g. a collective it does not have).
    outcome.status = CollectiveOutcome::Status::kUnsupported;
    outcome.message = run.lastLine;
  } else if ((run.exitStatus == 0 || run.exitStatus == 1) && readWholeFile(json, &text) &&
             parsePerfJson(text, &outcome.run, &error)) {
    outcome.status = CollectiveOutcome::Status::kMeasured;
    if (run.exitStatus != 0) *keepLogs = true;
  } else {
    outcome.status = CollectiveOutcome::Status::kFailed;
    outcome.message = (run.timedOut ? "stopped after 1800 s" :
                       run.signal ? "killed by signal " + std::to_string(run.signal)
                                  : "exit status " + std::to_string(run.exitStatus)) +
                      (error.empty() ? "" : "; " + error) +
                      (run.lastLine.empty() ? "" : "; last line: " + run.lastLine) + "; log " + log;
    *keepLogs = true;
  }
  return outcome;
}

void collectiveChecks(Machine& m, NodeReport* report, std::vector<PortTraffic>* before,
                      std::vector<PortTraffic>* after) {
  if (m.cudaCount < 2) {
    report->checks.push_back(skipCheck(kFamilyCollectives, "busbw", "node",
                                       "needs two GPUs; this process sees " + std::to_string(m.cudaCount)));
    return;
  }
  if (!m.expectationProblem.empty()) {
    report->checks.push_back(makeCheck(kFamilyCollectives, "floors", "node", Verdict::kWarn,
                                       m.expectationProblem, "a readable <doctor> element",
                                       "the busbw floors of this machine type could not be read"));
  } else if (m.expectations.busbw.empty()) {
    report->checks.push_back(skipCheck(kFamilyCollectives, "floors", "node",
                                       "no busbw floors for this machine (no <doctor> element in "
                                       "a matching topologies/*.xml, no --expect): sizes are judged "
                                       "against NCCL only"));
  }
  char pattern[] = "/tmp/flashccl-doctor-XXXXXX";
  const char* dir = mkdtemp(pattern);
  if (dir == nullptr) {
    report->checks.push_back(makeCheck(kFamilyCollectives, "busbw", "node", Verdict::kFail,
                                       "cannot make a directory under /tmp", "-",
                                       "perf's JSON goes there"));
    return;
  }
  bool keepLogs = false;
  std::vector<CollectiveOutcome> outcomes;
  *before = readPortTraffic(m.options.sysRoot, m.nics);
  for (const std::string& collective : collectiveNames()) {
    m.progress.step("collectives: " + collective + " (flashccl perf, NCCL and flashccl side by side)");
    outcomes.push_back(runOneCollective(m, collective, dir, &keepLogs));
  }
  *after = readPortTraffic(m.options.sysRoot, m.nics);
  add(report, judgeCollectives(outcomes, m.expectations));
  if (!keepLogs) {
    for (const std::string& name : listDirectory(dir)) std::remove((std::string(dir) + "/" + name).c_str());
    rmdir(dir);
  }
}

void railChecks(Machine& m, NodeReport* report, bool collectivesRan,
                const std::vector<PortTraffic>& before, const std::vector<PortTraffic>& after) {
  if (m.nics.rdmaDevices.empty()) return;  // the nics family already said there is none
  if (!collectivesRan) {
    report->checks.push_back(skipCheck(kFamilyNics, "rails", "node",
                                       "rail traffic is read around the collective run, which did "
                                       "not run (--checks without collectives, or fewer than two GPUs)"));
    return;
  }
  std::vector<std::string> active;
  for (const RdmaPort& port : m.nics.rdmaPorts) {
    if (port.active()) active.push_back(port.name());
  }
  add(report, judgeRailTraffic(before, after, active, "the collective run"));
}

void loadTopologyExpectations(Machine& m, const Expectations& explicitExpectations) {
  const MachineTopologyChoice choice =
      chooseMachineTopology(Config::fromEnvironment().topoFile, defaultTopologyDirs(), m.topology);
  Expectations fromTopology;
  if (choice.description) {
    std::string text, error;
    if (!readWholeFile(choice.description->path, &text) ||
        !parseTopologyExpectations(text, choice.description->path, &fromTopology, &error)) {
      m.expectationProblem = error.empty() ? "cannot read " + choice.description->path : error;
    }
  }
  m.expectations = fromTopology;
  mergeExpectations(&m.expectations, explicitExpectations);
}

}  // namespace

std::map<std::string, std::string> environmentSnapshot() {
  std::map<std::string, std::string> snapshot;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string text = *entry;
    const size_t equals = text.find('=');
    if (equals != std::string::npos) snapshot[text.substr(0, equals)] = text.substr(equals + 1);
  }
  return snapshot;
}

std::string localDate() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", std::localtime(&now));
  return text;
}

std::string hostName() {
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown-host";
  return name;
}

NodeReport runNodeChecks(const DoctorOptions& options, const Expectations& expectations,
                         Progress& progress) {
  Machine m(options, progress);
  m.settings = options.full ? fullSettings() : quickSettings();
  m.environment = environmentSnapshot();

  NodeReport report;
  report.host = hostName();
  report.date = localDate();
  report.mode = options.full ? "full" : "quick";
  report.flashcclVersion = flashcclVersion();

  progress.step("detecting GPUs, NVML, NICs");
  m.cudaCount = cudaDeviceCount(&m.cudaWhy);
  DetectOptions detect;
  detect.nvmlLibrary = options.nvmlLibrary;
  detect.sysRoot = options.sysRoot;
  m.topology = detectTopology(detect);
  report.machine = m.topology.summary();
  m.nvml = NvmlHealth::open(options.nvmlLibrary, &m.nvmlError);
  if (m.nvml) {
    for (int i = 0; i < m.nvml->gpuCount(); ++i) m.health.push_back(m.nvml->read(i));
  }
  m.nics = readNicInventory(options.sysRoot);
  loadTopologyExpectations(m, expectations);

  // The measuring families need a GPU CUDA can use; the gpu family only one NVML can see.
  const bool measuring = options.wants(kFamilyBandwidth) || options.wants(kFamilyPairs) ||
                         options.wants(kFamilyCollectives);
  const bool nvmlSeesGpus = m.nvml && m.nvml->gpuCount() > 0;
  if (m.cudaCount == 0 && (measuring || (options.wants(kFamilyGpu) && !nvmlSeesGpus))) {
    report.gpuProblem = "flashccl doctor: no GPU found (" + m.cudaWhy + "; NVML: " +
                        (m.nvml ? std::to_string(m.nvml->gpuCount()) + " GPU(s)" : m.nvmlError) +
                        "). The checks that need no GPU ran; the GPU measurements did not.";
  }

  if (options.wants(kFamilyEnvironment)) environmentChecks(m, &report);
  if (options.wants(kFamilyGpu)) gpuChecks(m, &report);
  const std::string noCuda = "no GPU visible to CUDA (" + m.cudaWhy + ")";
  if (options.wants(kFamilyBandwidth)) {
    if (m.cudaCount == 0) report.checks.push_back(skipCheck(kFamilyBandwidth, "bandwidth", "node", noCuda));
    else bandwidthChecks(m, &report);
  }
  if (options.wants(kFamilyPairs)) pairChecks(m, &report);
  if (options.wants(kFamilyNics)) nicChecks(m, &report);
  std::vector<PortTraffic> before, after;
  const bool collectivesRan = options.wants(kFamilyCollectives) && m.cudaCount >= 2;
  if (options.wants(kFamilyCollectives)) collectiveChecks(m, &report, &before, &after);
  if (options.wants(kFamilyNics)) railChecks(m, &report, collectivesRan, before, after);
  progress.done();

  // The gpu family's clocks and link checks come from the bandwidth phase; show every family in
  // one block, in the order the families run.
  auto familyIndex = [](const std::string& family) {
    const auto& all = allFamilies();
    return std::find(all.begin(), all.end(), family) - all.begin();
  };
  std::stable_sort(report.checks.begin(), report.checks.end(),
                   [&](const CheckResult& a, const CheckResult& b) {
                     return familyIndex(a.family) < familyIndex(b.family);
                   });
  return report;
}

}  // namespace doctor
}  // namespace flashccl
