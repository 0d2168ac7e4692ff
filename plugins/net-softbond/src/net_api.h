// The plugin's operations, one function per ncclNet entry, shared by every exported table
// version (plugin_tables.cc adapts argument types). Comm pointers NCCL holds are ours:
// ListenEndpoint* for listen comms, Connection* for send and receive comms, Request* for requests.
#pragma once

#include "nccl_net_abi.h"

namespace flashccl::softbond::api {

ncclResult_t init(ncclDebugLogger_t logger);
ncclResult_t devices(int* count);
ncclResult_t listen(int dev, void* handle, void** listenComm);
ncclResult_t connect(int dev, void* handle, void** sendComm);
ncclResult_t accept(void* listenComm, void** recvComm);
ncclResult_t regMr(void* comm, void* data, size_t size, int type, void** mhandle);
ncclResult_t regMrDmaBuf(void* comm, void* data, size_t size, int type, uint64_t offset, int fd, void** mhandle);
ncclResult_t deregMr(void* comm, void* mhandle);
ncclResult_t isend(void* sendComm, void* data, size_t size, void* mhandle, void** request);
ncclResult_t irecv(void* recvComm, int n, void** data, const size_t* sizes, void** mhandles, void** request);
ncclResult_t iflush(void* recvComm, int n, void** data, int* sizes, void** mhandles, void** request);
ncclResult_t test(void* request, int* done, int* sizes);
ncclResult_t closeSend(void* sendComm);
ncclResult_t closeRecv(void* recvComm);
ncclResult_t closeListen(void* listenComm);

}  // namespace flashccl::softbond::api
