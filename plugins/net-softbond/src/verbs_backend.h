// Verbs backend: each rail is an RDMA device port (RoCE or InfiniBand) found behind the rail's
// network interface in sysfs. Chunks travel as RDMA writes into the receiver's buffer on one RC
// queue pair per rail, each followed by a small send carrying its chunk header; the rail's TCP
// control socket (over the same port's IP interface) carries the queue-pair exchange, CTS,
// acknowledgements and heartbeats, exactly as for TCP.
//
// Not yet run on RDMA hardware: no machine this was developed on has an RDMA device. The
// conformance suite runs it wherever ibv_devices lists one.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bond_table.h"
#include "data_path.h"
#include "verbs_library.h"

namespace flashccl::softbond {

// One opened RDMA device: context, protection domain, and port state kept current by a thread
// that reads the device's asynchronous events.
struct VerbsDevice {
  std::string name;
  ibv_context* context = nullptr;
  ibv_pd* pd = nullptr;
  // Bumped on every port-down / device-fatal event; a queue pair created before the bump is
  // suspect. Index: port number (1-based, up to 15).
  std::atomic<uint32_t> portEpoch[16] = {};
};

class VerbsBackend : public Backend {
 public:
  VerbsBackend(const VerbsLibrary* verbs, const Settings& settings);
  // Opens every RDMA device the bonds' rails need; false with *why if one is missing.
  bool openDevices(const std::vector<Bond>& bonds, std::string* why);
  // One thread per device reading its asynchronous events (port down, device fatal).
  void startWatching();

  BackendKind kind() const override { return BackendKind::kVerbs; }
  int ptrSupport() const override;
  int dataSockets(const Settings&) const override { return 0; }
  ncclResult_t registerMemory(const std::vector<const NetInterface*>& rails, void* data, size_t size, int type,
                              int dmabufFd, uint64_t dmabufOffset, MemoryRegistration* reg) override;
  void deregisterMemory(MemoryRegistration* reg) override;
  ncclResult_t createDataPath(DataPathSetup setup, std::unique_ptr<DataPath>* out) override;

 private:
  VerbsDevice* device(const std::string& name);
  void watchEvents(VerbsDevice* device);

  const VerbsLibrary* verbs_;
  Settings settings_;
  std::map<std::string, std::unique_ptr<VerbsDevice>> devices_;
};

// NULL (and *why) when libibverbs or an RDMA device for some rail is missing.
std::unique_ptr<Backend> makeVerbsBackend(const Settings& settings, const std::vector<Bond>& bonds, std::string* why);

}  // namespace flashccl::softbond
