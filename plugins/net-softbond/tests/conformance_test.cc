// The conformance suite: what every backend must do, driven through the ncclNet_v11 table exactly
// as NCCL drives it. Parameterized over backends; the verbs run needs an RDMA device and is
// skipped, with the reason, where there is none. Each test runs in a process of its own under
// ctest (the plugin reads its settings once per process).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <thread>

#include "plugin_loader.h"
#include "rdma_devices.h"
#include "transfer_driver.h"

namespace softbond_test {
namespace {

using Clock = std::chrono::steady_clock;

// The plugin, loaded once per process with the backend of the first test that asked.
Plugin* pluginFor(const std::string& backend, std::string* skip) {
  static std::string loadedBackend;
  static Plugin plugin;
  if (!loadedBackend.empty()) {
    if (loadedBackend != backend) *skip = "this process already runs the " + loadedBackend + " backend; run through ctest";
    return &plugin;
  }
  setenv("FLASHCCL_SOFTBOND_BACKEND", backend.c_str(), 1);
  setenv("FLASHCCL_SOFTBOND_RAILS", backend == "verbs" ? rdmaRails().c_str() : "lo,lo", 1);
  setenv("FLASHCCL_SOFTBOND_TIMEOUT_MS", "1000", 1);
  plugin = loadPlugin(SOFTBOND_PLUGIN_PATH);
  loadedBackend = backend;
  return &plugin;
}

class Conformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "verbs") {
      std::string reason = verbsUnavailableReason();
      if (!reason.empty()) GTEST_SKIP() << "verbs backend not tested here: " << reason;
    }
    std::string skip;
    plugin_ = pluginFor(GetParam(), &skip);
    if (!skip.empty()) GTEST_SKIP() << skip;
    ASSERT_TRUE(plugin_->error.empty()) << plugin_->error;
    net_ = plugin_->net;
    int devices = 0;
    ASSERT_EQ(net_->devices(&devices), ncclSuccess);
    ASSERT_GE(devices, 1);
    // The backend actually in use: asking for verbs where it cannot run falls back to TCP.
    ASSERT_EQ(CapturedLog::instance().count(NCCL_LOG_INFO, std::string(GetParam()) + " backend"), 1)
        << "the plugin did not start the " << GetParam() << " backend";
  }

  void connect(void** sendComm, void** recvComm) {
    std::string error;
    ASSERT_TRUE(connectPair(net_, plugin_->context, 0, sendComm, recvComm, &error)) << error;
  }

  // Sender and receiver on two threads, like two proxies.
  std::pair<TransferResult, TransferResult> transfer(const TransferPlan& plan, int senderDelayMs = 0,
                                                     int receiverDelayMs = 0) {
    void *sendComm = nullptr, *recvComm = nullptr;
    connect(&sendComm, &recvComm);
    if (!sendComm) return {};
    auto receiver = std::async(std::launch::async, [&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(receiverDelayMs));
      return runReceiver(net_, recvComm, plan);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(senderDelayMs));
    TransferResult sent = runSender(net_, sendComm, plan);
    TransferResult received = receiver.get();
    EXPECT_EQ(net_->closeSend(sendComm), ncclSuccess);
    EXPECT_EQ(net_->closeRecv(recvComm), ncclSuccess);
    return {sent, received};
  }

  // Polls test() like NCCL's proxy until the request is done, fails, or `seconds` pass.
  ncclResult_t testUntilDone(void* request, int* done, double seconds = 10) {
    ncclResult_t status = ncclSuccess;
    *done = 0;
    const auto start = Clock::now();
    while (status == ncclSuccess && !*done && Clock::now() - start < std::chrono::duration<double>(seconds))
      status = net_->test(request, done, nullptr);
    return status;
  }

  void expectIntact(const std::pair<TransferResult, TransferResult>& result, size_t count) {
    EXPECT_TRUE(result.first.ok) << "sender: " << resultLine(result.first);
    EXPECT_TRUE(result.second.ok) << "receiver: " << resultLine(result.second);
    EXPECT_EQ(result.second.completed, count);
  }

  Plugin* plugin_ = nullptr;
  ncclNet_v11_t* net_ = nullptr;
};

TEST_P(Conformance, ExportsEveryTableVersionNcclLooksFor) {
  for (const char* symbol : {"ncclNetPlugin_v11", "ncclNetPlugin_v10", "ncclNetPlugin_v9", "ncclNetPlugin_v8"}) {
    auto* table = static_cast<const char* const*>(dlsym(plugin_->library, symbol));
    ASSERT_NE(table, nullptr) << symbol;
    EXPECT_STREQ(table[0], "softbond") << symbol;  // name is the first field of every version
  }
  EXPECT_NE(net_->finalize, nullptr);
  EXPECT_EQ(net_->makeVDevice, nullptr);  // bonding is ours; NCCL must not fuse our devices
  EXPECT_EQ(net_->getDeviceMr, nullptr);
  EXPECT_EQ(net_->irecvConsumed, nullptr);
}

TEST_P(Conformance, DescribesEachBondAsOneHostDevice) {
  ncclNetProperties_v11_t props;
  ASSERT_EQ(net_->getProperties(0, &props), ncclSuccess);
  EXPECT_NE(props.name, nullptr);
  EXPECT_TRUE(props.ptrSupport & NCCL_PTR_HOST);
  EXPECT_EQ(props.maxRecvs, 1);
  EXPECT_GT(props.speed, 0);
  EXPECT_EQ(props.netDeviceType, NCCL_NET_DEVICE_HOST);
  EXPECT_EQ(props.vProps.ndevs, 1);
  EXPECT_EQ(props.vProps.devs[0], 0);
  EXPECT_GE(props.maxP2pBytes, size_t{1} << 28);
  EXPECT_LE(props.maxP2pBytes, static_cast<size_t>(NCCL_MAX_NET_SIZE_BYTES));
  EXPECT_EQ(props.maxMultiRequestSize, 1);
  EXPECT_NE(net_->getProperties(99, &props), ncclSuccess);
}

TEST_P(Conformance, EveryMessageSizeArrivesIntact) {
  TransferPlan plan;
  // Around the chunk size (128 KiB by default), empty and odd sizes.
  plan.sizes = {0, 1, 1000, 4096, 4097, (128 << 10) - 1, 128 << 10, (128 << 10) + 1, (1 << 20) + 3, 16 << 20};
  plan.count = plan.sizes.size() * 3;
  expectIntact(transfer(plan), plan.count);
}

TEST_P(Conformance, LargeMessagesArriveIntact) {
  TransferPlan plan;
  plan.sizes = {256u << 20};
  plan.count = 2;
  plan.inflight = 2;
  expectIntact(transfer(plan), plan.count);
}

TEST_P(Conformance, ManySmallMessagesInFlight) {
  TransferPlan plan;
  plan.sizes = {8, 1024, 65536};
  plan.count = 3000;
  plan.inflight = 8;
  expectIntact(transfer(plan), plan.count);
}

TEST_P(Conformance, ReceiveBufferLargerThanTheMessage) {
  TransferPlan plan;
  plan.sizes = {100, 300000};
  plan.count = 10;
  plan.recvExtra = 1 << 20;  // test() must report the bytes sent, not the buffer size
  expectIntact(transfer(plan), plan.count);
}

TEST_P(Conformance, ReceivesPostedLongBeforeTheSends) {
  TransferPlan plan;
  plan.sizes = {1 << 20};
  plan.count = 16;
  expectIntact(transfer(plan, /*senderDelayMs=*/400, 0), plan.count);
}

TEST_P(Conformance, SendsPostedLongBeforeTheReceives) {
  TransferPlan plan;
  plan.sizes = {1 << 20};
  plan.count = 16;
  // The receiver is late by more than the rail timeout: no rail may be declared failed for that.
  const int failuresBefore = CapturedLog::instance().count(NCCL_LOG_WARN, "failed");
  expectIntact(transfer(plan, 0, /*receiverDelayMs=*/1500), plan.count);
  EXPECT_EQ(CapturedLog::instance().count(NCCL_LOG_WARN, "failed"), failuresBefore);
}

TEST_P(Conformance, TwoConnectionsAtOnce) {
  TransferPlan plan;
  plan.sizes = {4 << 20};
  plan.count = 20;
  auto first = std::async(std::launch::async, [&] { return transfer(plan); });
  auto second = transfer(plan);
  expectIntact(first.get(), plan.count);
  expectIntact(second, plan.count);
}

TEST_P(Conformance, FullRequestPoolAnswersNullNotError) {
  void *sendComm = nullptr, *recvComm = nullptr;
  connect(&sendComm, &recvComm);
  static char buffer[64];
  void* handle = nullptr;
  ASSERT_EQ(net_->regMr(sendComm, buffer, sizeof(buffer), NCCL_PTR_HOST, &handle), ncclSuccess);
  int accepted = 0;
  for (int i = 0; i < NCCL_NET_MAX_REQUESTS + 8; ++i) {
    void* request = nullptr;
    ASSERT_EQ(net_->isend(sendComm, buffer, sizeof(buffer), 0, handle, nullptr, &request), ncclSuccess);
    accepted += request != nullptr;
  }
  EXPECT_EQ(accepted, NCCL_NET_MAX_REQUESTS);
  EXPECT_EQ(net_->deregMr(sendComm, handle), ncclSuccess);
  EXPECT_EQ(net_->closeSend(sendComm), ncclSuccess);
  EXPECT_EQ(net_->closeRecv(recvComm), ncclSuccess);
}

TEST_P(Conformance, MessageLargerThanTheReceiveIsAnErrorNotAHang) {
  void *sendComm = nullptr, *recvComm = nullptr;
  connect(&sendComm, &recvComm);
  std::vector<char> big(2 << 20), small(1 << 20);
  void *sendHandle = nullptr, *recvHandle = nullptr;
  ASSERT_EQ(net_->regMr(sendComm, big.data(), big.size(), NCCL_PTR_HOST, &sendHandle), ncclSuccess);
  ASSERT_EQ(net_->regMr(recvComm, small.data(), small.size(), NCCL_PTR_HOST, &recvHandle), ncclSuccess);
  void *sendRequest = nullptr, *recvRequest = nullptr;
  void* data = small.data();
  size_t size = small.size();
  int tag = 0;
  ASSERT_EQ(net_->irecv(recvComm, 1, &data, &size, &tag, &recvHandle, nullptr, &recvRequest), ncclSuccess);
  ASSERT_EQ(net_->isend(sendComm, big.data(), big.size(), 0, sendHandle, nullptr, &sendRequest), ncclSuccess);
  int done = 0;
  EXPECT_EQ(testUntilDone(sendRequest, &done), ncclInternalError);
  EXPECT_EQ(done, 0);
  EXPECT_EQ(net_->closeSend(sendComm), ncclSuccess);
  EXPECT_EQ(net_->closeRecv(recvComm), ncclSuccess);
}

TEST_P(Conformance, PeerClosingMidTransferGivesAnErrorNotAHang) {
  void *sendComm = nullptr, *recvComm = nullptr;
  connect(&sendComm, &recvComm);
  std::vector<char> buffer(64 << 20);
  void* handle = nullptr;
  ASSERT_EQ(net_->regMr(sendComm, buffer.data(), buffer.size(), NCCL_PTR_HOST, &handle), ncclSuccess);
  void* request = nullptr;
  ASSERT_EQ(net_->isend(sendComm, buffer.data(), buffer.size(), 0, handle, nullptr, &request), ncclSuccess);
  // The receiver never posts: the send waits for its CTS; then the receiving side goes away.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(net_->closeRecv(recvComm), ncclSuccess);
  int done = 0;
  const auto start = Clock::now();
  EXPECT_EQ(testUntilDone(request, &done), ncclRemoteError);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(net_->closeSend(sendComm), ncclSuccess);
}

INSTANTIATE_TEST_SUITE_P(Backends, Conformance, ::testing::Values("tcp", "verbs"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace softbond_test
