// A TCP socket bound to an ephemeral port of 127.0.0.1, and the endpoint record that points at
// it: a stand-in peer for the side-channel and lifecycle tests (closed: "process gone";
// listening but never accepting: a peer that does not answer).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "trace/interface_choice.h"
#include "trace/trace_endpoint.h"

namespace flashccl {
namespace testing {

// Returns the socket (listening when asked); fills `endpoint` with its address.
inline int loopbackSocket(bool listening, TraceEndpoint* endpoint) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in in = {};
  in.sin_family = AF_INET;
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(in);
  bind(fd, reinterpret_cast<sockaddr*>(&in), sizeof(in));
  if (listening) listen(fd, 8);
  getsockname(fd, reinterpret_cast<sockaddr*>(&in), &length);
  *endpoint = endpointWithoutChannel(0);
  setEndpointAddress(endpoint, reinterpret_cast<sockaddr*>(&in));
  return fd;
}

// 127.0.0.1 as an interface the side channel's server can listen on.
inline NetInterface loopbackInterface() {
  NetInterface lo;
  lo.name = "lo";
  lo.running = true;
  sockaddr_in* in = reinterpret_cast<sockaddr_in*>(&lo.address);
  in->sin_family = AF_INET;
  in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return lo;
}

}  // namespace testing
}  // namespace flashccl
