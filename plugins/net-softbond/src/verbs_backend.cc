#include "verbs_backend.h"

#include <cstring>
#include <thread>

#include "log.h"
#include "verbs_data_path.h"

namespace flashccl::softbond {

VerbsBackend::VerbsBackend(const VerbsLibrary* verbs, const Settings& settings) : verbs_(verbs), settings_(settings) {}

VerbsDevice* VerbsBackend::device(const std::string& name) {
  auto found = devices_.find(name);
  return found == devices_.end() ? nullptr : found->second.get();
}

bool VerbsBackend::openDevices(const std::vector<Bond>& bonds, std::string* why) {
  int count = 0;
  ibv_device** list = verbs_->getDeviceList(&count);
  if (!list || count == 0) {
    *why = "no RDMA device";
    if (list) verbs_->freeDeviceList(list);
    return false;
  }
  bool ok = true;
  for (const Bond& bond : bonds) {
    for (const NetInterface& rail : bond.rails) {
      if (rail.rdmaDevice.empty()) {
        *why = "interface " + rail.name + " has no RDMA device behind it";
        ok = false;
        break;
      }
      if (devices_.count(rail.rdmaDevice)) continue;
      ibv_device* match = nullptr;
      for (int i = 0; i < count; ++i)
        if (rail.rdmaDevice == verbs_->getDeviceName(list[i])) match = list[i];
      auto opened = std::make_unique<VerbsDevice>();
      opened->name = rail.rdmaDevice;
      opened->context = match ? verbs_->openDevice(match) : nullptr;
      opened->pd = opened->context ? verbs_->allocPd(opened->context) : nullptr;
      if (!opened->pd) {
        *why = "cannot open RDMA device " + rail.rdmaDevice + " of " + rail.name;
        ok = false;
        break;
      }
      devices_[rail.rdmaDevice] = std::move(opened);
    }
    if (!ok) break;
  }
  verbs_->freeDeviceList(list);
  return ok;
}

void VerbsBackend::startWatching() {
  // The backend lives as long as the process (plugin_state.cc never drops it): NCCL may use the
  // devices until exit, so neither they nor these threads are ever torn down.
  for (auto& [name, device] : devices_) {
    VerbsDevice* raw = device.get();
    std::thread([this, raw] { watchEvents(raw); }).detach();
  }
}

void VerbsBackend::watchEvents(VerbsDevice* device) {
  for (;;) {
    ibv_async_event event;
    if (verbs_->getAsyncEvent(device->context, &event) != 0) return;
    switch (event.event_type) {
      case IBV_EVENT_PORT_ERR:
        if (event.element.port_num < 16) device->portEpoch[event.element.port_num].fetch_add(1);
        SB_INFO("%s port %d went down", device->name.c_str(), event.element.port_num);
        break;
      case IBV_EVENT_DEVICE_FATAL:
        for (auto& epoch : device->portEpoch) epoch.fetch_add(1);
        SB_WARN("%s: fatal device error", device->name.c_str());
        break;
      default:
        break;
    }
    verbs_->ackAsyncEvent(&event);
  }
}

int VerbsBackend::ptrSupport() const {
  // GPU buffers only where the kernel and libibverbs offer dmabuf registration, and only when
  // asked for: the plugin cannot flush GPU writes (see iflush in net_api.cc).
  if (settings_.gdr && verbs_->regDmabufMr) return NCCL_PTR_HOST | NCCL_PTR_CUDA | NCCL_PTR_DMABUF;
  return NCCL_PTR_HOST;
}

ncclResult_t VerbsBackend::registerMemory(const std::vector<const NetInterface*>& rails, void* data, size_t size,
                                          int type, int dmabufFd, uint64_t dmabufOffset, MemoryRegistration* reg) {
  reg->data = static_cast<char*>(data);
  reg->size = size;
  reg->type = type;
  const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  for (size_t r = 0; r < rails.size() && r < static_cast<size_t>(kMaxRailsPerBond); ++r) {
    VerbsDevice* dev = device(rails[r]->rdmaDevice);
    if (!dev) return ncclInternalError;
    // Rails on one device share its protection domain and so one registration.
    ibv_mr* mr = nullptr;
    for (size_t earlier = 0; earlier < r && !mr; ++earlier)
      if (rails[earlier]->rdmaDevice == rails[r]->rdmaDevice) mr = static_cast<ibv_mr*>(reg->backendObjects[earlier]);
    if (!mr) {
      if (dmabufFd >= 0) {
        if (!verbs_->regDmabufMr) return ncclInvalidUsage;
        mr = verbs_->regDmabufMr(dev->pd, dmabufOffset, size, reinterpret_cast<uint64_t>(data), dmabufFd, access);
      } else {
        mr = verbs_->regMr(dev->pd, data, size, access);
      }
      if (!mr) {
        SB_WARN("registering %zu bytes at %p on %s failed: %s", size, data, dev->name.c_str(), strerror(errno));
        deregisterMemory(reg);
        return ncclSystemError;
      }
    }
    reg->backendObjects[r] = mr;
    reg->localKeys[r] = mr->lkey;
    reg->remoteKeys[r] = mr->rkey;
  }
  return ncclSuccess;
}

void VerbsBackend::deregisterMemory(MemoryRegistration* reg) {
  for (int r = 0; r < kMaxRailsPerBond; ++r) {
    auto* mr = static_cast<ibv_mr*>(reg->backendObjects[r]);
    if (!mr) continue;
    for (int later = r; later < kMaxRailsPerBond; ++later)
      if (reg->backendObjects[later] == mr) reg->backendObjects[later] = nullptr;
    verbs_->deregMr(mr);
  }
}

ncclResult_t VerbsBackend::createDataPath(DataPathSetup setup, std::unique_ptr<DataPath>* out) {
  VerbsDevice* dev = device(setup.local->rdmaDevice);
  if (!dev) return ncclInternalError;
  auto path = std::make_unique<VerbsDataPath>(verbs_, dev, std::move(setup));
  std::string why;
  if (!path->create(&why)) {
    SB_WARN("verbs rail on %s: %s", dev->name.c_str(), why.c_str());
    return ncclSystemError;
  }
  *out = std::move(path);
  return ncclSuccess;
}

std::unique_ptr<Backend> makeVerbsBackend(const Settings& settings, const std::vector<Bond>& bonds, std::string* why) {
  const VerbsLibrary* verbs = verbsLibrary(why);
  if (!verbs) return nullptr;
  auto backend = std::make_unique<VerbsBackend>(verbs, settings);
  if (!backend->openDevices(bonds, why)) return nullptr;
  backend->startWatching();
  return backend;
}

}  // namespace flashccl::softbond
