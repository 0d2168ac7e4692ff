// The side channel's server: one small TCP endpoint per process, serving every traced
// communicator of the process, so that a peer can ask for this rank's progress without the GPUs
// and without NCCL.
//
// It is built to sit inside other people's processes. It runs on its own thread (poll() with
// timeouts; never on an application thread); it listens only on the interface NCCL uses; it
// answers one kind of question (progress), and only to a peer that presents the communicator's
// token; it reads at most one fixed-size query per connection, gives every connection a deadline
// and caps how many are open. Anything else -- garbage, a wrong token, a port scan, a peer that
// trickles bytes -- is dropped with one log line (rate-limited) and never stalls the others.
#pragma once

#include <sys/socket.h>

#include <memory>
#include <string>

#include "trace/interface_choice.h"
#include "trace/trace_endpoint.h"
#include "trace/wire_format.h"

namespace flashccl {

class ProgressAnswerer {
 public:
  virtual ~ProgressAnswerer() = default;
  // Called on the server's thread for a well-formed query. Fills `reply` with an encoded
  // progress snapshot, or returns false when no communicator here has the query's token.
  virtual bool answer(const ProgressQuery& query, std::string* reply) = 0;
};

struct SideChannelLimits {
  int requestDeadlineMs = 2000;  // to deliver the whole query, and to take the whole reply
  int maxConnections = 32;       // open at once; more are closed on arrival
  int refusalLinesPerMinute = 20;
};

class SideChannelServer {
 public:
  // Listens on an ephemeral port of `where`. nullptr, with the reason in `error`, when it cannot.
  // `answerer` must outlive the server.
  static std::unique_ptr<SideChannelServer> start(const NetInterface& where,
                                                  ProgressAnswerer* answerer,
                                                  const SideChannelLimits& limits,
                                                  std::string* error);
  ~SideChannelServer();  // stops the thread, closes every socket
  SideChannelServer(const SideChannelServer&) = delete;
  SideChannelServer& operator=(const SideChannelServer&) = delete;

  // Where peers reach us: address and port (token and identity are the caller's).
  void describe(TraceEndpoint* endpoint) const;

  // In a child after fork(): the thread does not exist there. Closes the sockets so the child
  // does not keep the parent's port open, and forgets the thread without joining it.
  void abandonAfterFork();

  struct Impl;

 private:
  explicit SideChannelServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace flashccl
