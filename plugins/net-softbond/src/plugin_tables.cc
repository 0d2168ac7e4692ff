// The exported tables: ncclNetPlugin_v11 (NCCL 2.28, read first) and v10, v9, v8 for NCCL 2.19 to
// 2.27, which look for the newest version they know. Each entry adapts its version's argument
// types to net_api.h; behaviour is the same in every version.
#include <new>

#include "check.h"
#include "net_api.h"
#include "plugin_state.h"

#define SOFTBOND_EXPORT __attribute__((visibility("default")))

namespace flashccl::softbond {
namespace {

constexpr const char* kName = "softbond";  // NCCL_NET=softbond selects it

// ---- properties of the older layouts, copied from v11 -------------------------------------------

// The fields every version has, from the v11 description.
template <typename Props>
void copyCommon(const ncclNetProperties_v11_t& full, Props* props) {
  *props = Props();
  props->name = full.name;
  props->pciPath = full.pciPath;
  props->guid = full.guid;
  props->ptrSupport = full.ptrSupport;
  props->regIsGlobal = full.regIsGlobal;
  props->speed = full.speed;
  props->port = full.port;
  props->latency = full.latency;
  props->maxComms = full.maxComms;
  props->maxRecvs = full.maxRecvs;
  props->netDeviceType = full.netDeviceType;
  props->netDeviceVersion = full.netDeviceVersion;
}

ncclResult_t propertiesV10(int dev, ncclNetProperties_v10_t* props) {
  ncclNetProperties_v11_t full;
  SB_CHECK(deviceProperties(dev, &full));
  copyCommon(full, props);
  props->forceFlush = full.forceFlush;
  props->vProps = full.vProps;
  props->maxP2pBytes = full.maxP2pBytes;
  props->maxCollBytes = full.maxCollBytes;
  return ncclSuccess;
}

ncclResult_t propertiesV8(int dev, ncclNetProperties_v8_t* props) {
  ncclNetProperties_v11_t full;
  SB_CHECK(deviceProperties(dev, &full));
  copyCommon(full, props);
  return ncclSuccess;
}

// ---- v11 -------------------------------------------------------------------------------------------

// NCCL 2.28 creates one per communicator; the plugin's state is process-wide, so it only
// remembers what NCCL said about this communicator.
struct CommContext {
  uint64_t commId;
  int trafficClass;
};

ncclResult_t initV11(void** ctx, uint64_t commId, ncclNetCommConfig_v11_t* config, ncclDebugLogger_t logger,
                     ncclProfilerCallback_t) {
  SB_CHECK(api::init(logger));
  *ctx = new (std::nothrow) CommContext{commId, config ? config->trafficClass : -1};
  return *ctx ? ncclSuccess : ncclSystemError;
}

ncclResult_t finalizeV11(void* ctx) {
  delete static_cast<CommContext*>(ctx);
  return ncclSuccess;
}

ncclResult_t listenV11(void*, int dev, void* handle, void** listenComm) { return api::listen(dev, handle, listenComm); }

ncclResult_t connectV11(void*, int dev, void* handle, void** sendComm, ncclNetDeviceHandle_v11_t**) {
  return api::connect(dev, handle, sendComm);
}

ncclResult_t acceptAny(void* listenComm, void** recvComm, ncclNetDeviceHandle_v11_t**) {
  return api::accept(listenComm, recvComm);
}

ncclResult_t isendV10(void* sendComm, void* data, size_t size, int, void* mhandle, void*, void** request) {
  return api::isend(sendComm, data, size, mhandle, request);
}

ncclResult_t irecvV10(void* recvComm, int n, void** data, size_t* sizes, int*, void** mhandles, void**,
                      void** request) {
  return api::irecv(recvComm, n, data, sizes, mhandles, request);
}

// ---- v10 -------------------------------------------------------------------------------------------

ncclResult_t initV10(ncclDebugLogger_t logger, ncclProfilerCallback_t) { return api::init(logger); }

ncclResult_t connectV10(int dev, ncclNetCommConfig_v10_t*, void* handle, void** sendComm,
                        ncclNetDeviceHandle_v10_t**) {
  return api::connect(dev, handle, sendComm);
}

// ---- v9 / v8 ---------------------------------------------------------------------------------------

ncclResult_t initV9(ncclDebugLogger_t logger) { return api::init(logger); }

ncclResult_t connectV9(int dev, void* handle, void** sendComm, ncclNetDeviceHandle_v9_t**) {
  return api::connect(dev, handle, sendComm);
}

ncclResult_t isendV9(void* sendComm, void* data, size_t size, int, void* mhandle, void** request) {
  return api::isend(sendComm, data, size, mhandle, request);
}

ncclResult_t irecvV9(void* recvComm, int n, void** data, size_t* sizes, int*, void** mhandles, void** request) {
  return api::irecv(recvComm, n, data, sizes, mhandles, request);
}

ncclResult_t isendV8(void* sendComm, void* data, int size, int, void* mhandle, void** request) {
  if (size < 0) return ncclInvalidArgument;
  return api::isend(sendComm, data, static_cast<size_t>(size), mhandle, request);
}

ncclResult_t irecvV8(void* recvComm, int n, void** data, int* sizes, int*, void** mhandles, void** request) {
  if (n != 1 || sizes[0] < 0) return ncclInternalError;
  size_t size = static_cast<size_t>(sizes[0]);
  return api::irecv(recvComm, n, data, &size, mhandles, request);
}

}  // namespace
}  // namespace flashccl::softbond

namespace sb = flashccl::softbond;
namespace api = flashccl::softbond::api;

extern "C" {

SOFTBOND_EXPORT ncclNet_v11_t ncclNetPlugin_v11 = {
    sb::kName,          sb::initV11,      api::devices,    sb::deviceProperties, sb::listenV11,
    sb::connectV11,     sb::acceptAny,    api::regMr,      api::regMrDmaBuf,     api::deregMr,
    sb::isendV10,       sb::irecvV10,     api::iflush,     api::test,            api::closeSend,
    api::closeRecv,     api::closeListen, nullptr,         nullptr,              nullptr,
    sb::finalizeV11,    nullptr,
};

SOFTBOND_EXPORT ncclNet_v10_t ncclNetPlugin_v10 = {
    sb::kName,      sb::initV10,      api::devices, sb::propertiesV10, api::listen,  sb::connectV10,
    sb::acceptAny,  api::regMr,       api::regMrDmaBuf, api::deregMr,  sb::isendV10, sb::irecvV10,
    api::iflush,    api::test,        api::closeSend, api::closeRecv,  api::closeListen,
    nullptr,        nullptr,          nullptr,
};

SOFTBOND_EXPORT ncclNet_v9_t ncclNetPlugin_v9 = {
    sb::kName,     sb::initV9,       api::devices,     sb::propertiesV10, api::listen,   sb::connectV9,
    sb::acceptAny, api::regMr,       api::regMrDmaBuf, api::deregMr,      sb::isendV9,   sb::irecvV9,
    api::iflush,   api::test,        api::closeSend,   api::closeRecv,    api::closeListen,
    nullptr,       nullptr,          nullptr,
};

SOFTBOND_EXPORT ncclNet_v8_t ncclNetPlugin_v8 = {
    sb::kName,     sb::initV9,     api::devices,     sb::propertiesV8, api::listen,  sb::connectV9,
    sb::acceptAny, api::regMr,     api::regMrDmaBuf, api::deregMr,     sb::isendV8,  sb::irecvV8,
    api::iflush,   api::test,      api::closeSend,   api::closeRecv,   api::closeListen,
    nullptr,       nullptr,
};

}  // extern "C"
