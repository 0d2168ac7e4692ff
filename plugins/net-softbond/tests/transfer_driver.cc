#include "transfer_driver.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "transfer_pattern.h"

namespace softbond_test {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Buffers for `inflight` messages of the plan's largest size, registered with the comm.
struct Slots {
  std::vector<std::unique_ptr<char[]>> buffers;
  std::vector<void*> handles;
  std::vector<void*> requests;
  std::vector<size_t> message;
  size_t capacity = 0;
};

int effectiveInflight(const TransferPlan& plan, size_t largest) {
  // Large messages with many in flight would need gigabytes per process; NCCL's own buffers are
  // a few MB. Keep at most ~1 GB of buffers.
  size_t byMemory = largest ? std::max<size_t>(1, (1ull << 30) / largest) : plan.inflight;
  return static_cast<int>(std::min<size_t>(plan.inflight, byMemory));
}

bool setUp(ncclNet_v11_t* net, void* comm, const TransferPlan& plan, size_t extra, Slots* slots, std::string* error) {
  size_t largest = 0;
  for (size_t size : plan.sizes) largest = std::max(largest, size);
  slots->capacity = largest + extra;
  int count = effectiveInflight(plan, largest);
  for (int i = 0; i < count; ++i) {
    slots->buffers.emplace_back(new char[std::max<size_t>(slots->capacity, 1)]);
    void* handle = nullptr;
    if (net->regMr(comm, slots->buffers.back().get(), slots->capacity, NCCL_PTR_HOST, &handle) != ncclSuccess) {
      *error = "regMr failed";
      return false;
    }
    slots->handles.push_back(handle);
  }
  slots->requests.assign(count, nullptr);
  slots->message.assign(count, 0);
  return true;
}

void tearDown(ncclNet_v11_t* net, void* comm, Slots* slots) {
  for (void* handle : slots->handles) net->deregMr(comm, handle);
}

TransferResult run(ncclNet_v11_t* net, void* comm, const TransferPlan& plan, bool sending) {
  TransferResult result;
  Slots slots;
  if (!setUp(net, comm, plan, sending ? 0 : plan.recvExtra, &slots, &result.detail)) return result;
  const Clock::time_point start = Clock::now();
  Clock::time_point lastCompletion = start;
  size_t posted = 0;
  for (;;) {
    if (since(start) > plan.deadlineSeconds) {
      result.timedOut = true;
      result.detail = "deadline passed after " + std::to_string(result.completed) + " messages";
      break;
    }
    bool busy = false;
    for (size_t s = 0; s < slots.requests.size(); ++s) {
      if (!slots.requests[s] && posted < plan.count) {
        const size_t size = messageSize(plan, posted);
        void* request = nullptr;
        ncclResult_t status;
        if (sending) {
          if (plan.check || posted < slots.requests.size()) fillPattern(slots.buffers[s].get(), size, plan.seed, posted);
          status = net->isend(comm, slots.buffers[s].get(), size, 0, slots.handles[s], nullptr, &request);
        } else {
          size_t capacity = size + plan.recvExtra;
          int tag = 0;
          void* data = slots.buffers[s].get();
          // NCCL presets this for LL/LL128 receives; the plugin must still hand back a request.
          request = reinterpret_cast<void*>(NCCL_NET_OPTIONAL_RECV_COMPLETION);
          status = net->irecv(comm, 1, &data, &capacity, &tag, &slots.handles[s], nullptr, &request);
        }
        if (status != ncclSuccess) {
          result.error = status;
          result.detail = sending ? "isend failed" : "irecv failed";
          tearDown(net, comm, &slots);
          return result;
        }
        if (request) {  // NULL: the plugin has no room now; post again later
          slots.requests[s] = request;
          slots.message[s] = posted++;
        }
      }
      if (!slots.requests[s]) continue;
      busy = true;
      int done = 0, size = -1;
      ncclResult_t status = net->test(slots.requests[s], &done, &size);
      if (status != ncclSuccess) {
        result.error = status;
        result.detail = "test returned " + std::to_string(status) + " after " + std::to_string(result.completed) +
                        " messages";
        tearDown(net, comm, &slots);
        result.seconds = since(start);
        return result;
      }
      if (!done) continue;
      const size_t index = slots.message[s];
      const size_t expected = messageSize(plan, index);
      if (static_cast<size_t>(size) != expected) {
        result.detail = "message " + std::to_string(index) + ": test() reported " + std::to_string(size) +
                        " bytes, expected " + std::to_string(expected);
        tearDown(net, comm, &slots);
        return result;
      }
      if (!sending && plan.check) {
        int64_t bad = firstMismatch(slots.buffers[s].get(), expected, plan.seed, index);
        if (bad >= 0) {
          result.detail = "message " + std::to_string(index) + " (" + std::to_string(expected) +
                          " bytes) wrong at byte " + std::to_string(bad);
          tearDown(net, comm, &slots);
          return result;
        }
      }
      Clock::time_point now = Clock::now();
      if (result.completed > 0)
        result.maxGapMs = std::max(result.maxGapMs, std::chrono::duration<double, std::milli>(now - lastCompletion).count());
      lastCompletion = now;
      slots.requests[s] = nullptr;
      ++result.completed;
      result.bytes += expected;
    }
    if (!busy && posted == plan.count) break;
    std::this_thread::yield();
  }
  result.seconds = since(start);
  result.ok = !result.timedOut && result.completed == plan.count;
  tearDown(net, comm, &slots);
  return result;
}

}  // namespace

size_t messageSize(const TransferPlan& plan, size_t index) { return plan.sizes[index % plan.sizes.size()]; }

TransferResult runSender(ncclNet_v11_t* net, void* sendComm, const TransferPlan& plan) {
  return run(net, sendComm, plan, true);
}

TransferResult runReceiver(ncclNet_v11_t* net, void* recvComm, const TransferPlan& plan) {
  return run(net, recvComm, plan, false);
}

bool connectPair(ncclNet_v11_t* net, void* context, int dev, void** sendComm, void** recvComm, std::string* error,
                 double deadlineSeconds) {
  char handle[NCCL_NET_HANDLE_MAXSIZE] = {};
  void* listenComm = nullptr;
  if (net->listen(context, dev, handle, &listenComm) != ncclSuccess) {
    *error = "listen failed";
    return false;
  }
  *sendComm = *recvComm = nullptr;
  const Clock::time_point start = Clock::now();
  while (!*sendComm || !*recvComm) {
    if (!*sendComm && net->connect(context, dev, handle, sendComm, nullptr) != ncclSuccess) {
      *error = "connect failed";
      break;
    }
    if (!*recvComm && net->accept(listenComm, recvComm, nullptr) != ncclSuccess) {
      *error = "accept failed";
      break;
    }
    if (since(start) > deadlineSeconds) {
      *error = "no connection within the deadline";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  net->closeListen(listenComm);
  return *sendComm && *recvComm;
}

std::string resultLine(const TransferResult& result) {
  char line[512];
  snprintf(line, sizeof(line), "RESULT %s completed=%zu bytes=%llu seconds=%.3f max_gap_ms=%.1f error=%d detail=%s",
           result.ok ? "ok" : result.timedOut ? "timeout" : "error", result.completed,
           (unsigned long long)result.bytes, result.seconds, result.maxGapMs, static_cast<int>(result.error),
           result.detail.empty() ? "-" : result.detail.c_str());
  return line;
}

}  // namespace softbond_test
