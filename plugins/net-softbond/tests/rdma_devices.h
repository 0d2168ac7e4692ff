// What the verbs backend's tests need to know before they can run: whether this machine has an
// RDMA device (what `ibv_devices` would list) and an interface with one behind it.
#pragma once

#include <string>

namespace softbond_test {

// Empty when the verbs tests can run; else the reason they cannot, for the SKIP message.
std::string verbsUnavailableReason();
// Rails for FLASHCCL_SOFTBOND_RAILS on an RDMA interface ("ib0,ib0"); empty if none.
std::string rdmaRails();

}  // namespace softbond_test
