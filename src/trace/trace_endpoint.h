// What a rank tells its peers at communicator set-up so that they can ask it for its progress
// later: where its side channel listens and the secret that the channel asks for. A fixed-size
// plain record, carried by the runtime's set-up exchange next to the peer-memory handles.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

namespace flashccl {

constexpr size_t kTraceTokenBytes = 16;  // 128 bits from getrandom()
constexpr uint32_t kTraceEndpointMagic = 0x31455446;  // "FTE1"

struct TraceEndpoint {
  uint32_t magic = 0;         // kTraceEndpointMagic; anything else: no side channel
  uint16_t port = 0;          // host byte order; 0: this rank has no side channel
  uint8_t family = 0;         // 4 or 6
  uint8_t reserved = 0;
  uint8_t address[16] = {};   // IPv4 in the first four bytes
  uint8_t token[kTraceTokenBytes] = {};  // this rank's secret for this communicator
  int32_t pid = 0;
  int32_t cudaDev = -1;
  char host[16] = {};         // host name, truncated, NUL-terminated (for messages only)
};
static_assert(sizeof(TraceEndpoint) == 64, "the set-up exchange carries 64 bytes per rank");

// An endpoint that says "no side channel", still naming the process (for verdicts).
TraceEndpoint endpointWithoutChannel(int cudaDev);
bool hasSideChannel(const TraceEndpoint& endpoint);

// Fills `token` from getrandom(2) (/dev/urandom if the call is missing). False when neither works.
bool makeTraceToken(uint8_t token[kTraceTokenBytes]);
// Compares in time that does not depend on where the tokens differ.
bool sameToken(const uint8_t a[kTraceTokenBytes], const uint8_t b[kTraceTokenBytes]);

// "10.1.2.3:41234", "[fd00::1]:41234"; "none" without a side channel.
std::string endpointAddressText(const TraceEndpoint& endpoint);
bool endpointSockaddr(const TraceEndpoint& endpoint, sockaddr_storage* addr, socklen_t* length);
void setEndpointAddress(TraceEndpoint* endpoint, const sockaddr* addr);

// An identifier of the communicator that every rank computes alike from the exchanged records
// (they hold every rank's random token, so two communicators never share it).
uint64_t commHashOf(const std::vector<TraceEndpoint>& endpoints);

// This host's name, shortened at the first dot, as log lines show it.
const std::string& traceHostName();

}  // namespace flashccl
