#include "plugin_state.h"

#include <cstdlib>

#include "fault_injection.h"
#include "log.h"
#include "tcp_data_path.h"
#if SOFTBOND_HAVE_VERBS
#include "verbs_backend.h"
#endif

namespace flashccl::softbond {
namespace {

PluginState g_state;

std::string describeRails(const Bond& bond) {
  std::string text;
  for (const NetInterface& rail : bond.rails)
    text += (text.empty() ? "" : ", ") + rail.name + " " + rail.address.str().substr(0, rail.address.str().rfind(':'));
  return text;
}

void discover() {
  g_state.settings = readSettings([](const char* name) { return getenv(name); });
  const Settings& settings = g_state.settings;
  if (!settings.fault.empty()) {
    FaultPlan plan;
    std::string error;
    if (parseFaultPlan(settings.fault, &plan, &error)) {
      faultInjector().arm(plan);
      SB_WARN("FLASHCCL_SOFTBOND_FAULT=%s is set: a rail will be failed on purpose (test only)",
              settings.fault.c_str());
    } else {
      SB_WARN("ignoring FLASHCCL_SOFTBOND_FAULT=%s: %s", settings.fault.c_str(), error.c_str());
    }
  }
  const char* ifname = getenv("NCCL_SOCKET_IFNAME");
  g_state.bonds = chooseBonds(settings, listInterfaces(), ifname ? ifname : "");

  if (settings.backend == BackendKind::kVerbs) {
    std::string why = "this build has no verbs backend: <infiniband/verbs.h> was missing when it was built";
#if SOFTBOND_HAVE_VERBS
    std::unique_ptr<Backend> verbs = makeVerbsBackend(settings, g_state.bonds, &why);
#else
    std::unique_ptr<Backend> verbs;
#endif
    if (verbs) {
      g_state.ownedBackend = std::move(verbs);
    } else {
      SB_INIT_INFO("verbs backend off (%s); using TCP", why.c_str());
    }
  }
  if (!g_state.ownedBackend) g_state.ownedBackend = std::make_unique<TcpBackend>();
  g_state.backend = g_state.ownedBackend.get();

  for (const Bond& bond : g_state.bonds) g_state.pciPaths.push_back(bond.pciPath);
  SB_INIT_INFO("%zu device(s), %s backend, timeout %d ms, probe %d ms, chunk %zu bytes, %d stream(s) per rail",
               g_state.bonds.size(), backendName(g_state.backend->kind()), settings.timeoutMs, settings.probeMs,
               settings.chunkBytes, settings.streams);
  for (size_t d = 0; d < g_state.bonds.size(); ++d) {
    const Bond& bond = g_state.bonds[d];
    SB_INIT_INFO("device %zu: %s = %zu rail(s) [%s], %d Mb/s%s", d, bond.name.c_str(), bond.rails.size(),
                 describeRails(bond).c_str(), bond.speedMbps, bond.pciPath.empty() ? ", virtual" : "");
  }
  if (g_state.bonds.empty())
    SB_INIT_INFO("no interface to bond (set FLASHCCL_SOFTBOND_RAILS); NCCL will use another network");
}

}  // namespace

ncclResult_t initPlugin(ncclDebugLogger_t logger) {
  setLogger(logger);
  // A function-local static rather than std::call_once: call_once keeps its callable in
  // thread-local storage, which would put the dynamic loader itself into our NEEDED list.
  static const bool discovered = (discover(), true);
  (void)discovered;
  return ncclSuccess;  // no bond is not an error: devices() says 0 and NCCL uses another network
}

const PluginState& pluginState() { return g_state; }

ncclResult_t deviceProperties(int dev, ncclNetProperties_v11_t* props) {
  if (dev < 0 || dev >= static_cast<int>(g_state.bonds.size())) {
    SB_WARN("getProperties: no device %d", dev);
    return ncclInvalidArgument;
  }
  const Bond& bond = g_state.bonds[dev];
  *props = ncclNetProperties_v11_t();
  props->name = const_cast<char*>(bond.name.c_str());
  props->pciPath = bond.pciPath.empty() ? nullptr : const_cast<char*>(g_state.pciPaths[dev].c_str());
  props->guid = bond.guid;
  props->ptrSupport = g_state.backend->ptrSupport();
  props->regIsGlobal = 0;
  props->forceFlush = 0;
  props->speed = bond.speedMbps;
  props->port = 0;
  props->latency = 0;
  props->maxComms = 65536;
  props->maxRecvs = 1;
  props->netDeviceType = NCCL_NET_DEVICE_HOST;
  props->netDeviceVersion = 0;
  props->vProps.ndevs = 1;
  props->vProps.devs[0] = dev;
  // A message is at most 2^20 chunks (kMaxChunksPerMessage: the receive window's bookkeeping);
  // NCCL's own default is 1 GiB.
  const uint64_t cap = std::min<uint64_t>(1ull << 30, uint64_t{g_state.settings.chunkBytes} << 20);
  props->maxP2pBytes = cap;
  props->maxCollBytes = cap;
  props->maxMultiRequestSize = 1;
  return ncclSuccess;
}

}  // namespace flashccl::softbond
