// One side of a softbond connection in a process of its own, driven through the plugin's
// ncclNet_v11 table as NCCL drives it. The namespace tests and the throughput benchmark start one
// receiver and one sender (each in its own network namespace):
//
//   softbond_peer recv --plugin libnccl-net-softbond.so [plan]      prints "HANDLE <hex>" first
//   softbond_peer send --plugin libnccl-net-softbond.so --handle <hex> [plan]
//
//   plan: --sizes 1K,4M,256M  --count N  --inflight K  --seed S  --recv-extra BYTES  --deadline SECONDS
//   --info: print the plugin's INFO lines too (WARN lines are always printed, to stderr)
//   --no-check: skip the byte-by-byte check of received data (throughput runs)
//
// Both sides must be given the same plan. The last line on stdout is "RESULT ok|error|timeout
// completed=.. bytes=.. seconds=.. max_gap_ms=.. error=.. detail=..". Exit status: 0 all
// messages intact, 3 an error from the plugin, 4 deadline passed, 2 bad arguments or set-up.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "plugin_loader.h"
#include "transfer_driver.h"

using namespace softbond_test;

namespace {

bool parseSize(const std::string& text, size_t* out) {
  char* end = nullptr;
  unsigned long long value = strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) return false;
  std::string suffix = end;
  if (suffix == "K") value <<= 10;
  else if (suffix == "M") value <<= 20;
  else if (suffix == "G") value <<= 30;
  else if (!suffix.empty()) return false;
  *out = value;
  return true;
}

std::string toHex(const unsigned char* bytes, size_t length) {
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  for (size_t i = 0; i < length; ++i) hex += digits[bytes[i] >> 4], hex += digits[bytes[i] & 15];
  return hex;
}

bool fromHex(const std::string& hex, unsigned char* bytes, size_t length) {
  if (hex.size() != 2 * length) return false;
  for (size_t i = 0; i < length; ++i) bytes[i] = static_cast<unsigned char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return true;
}

int usage() {
  fprintf(stderr, "usage: softbond_peer recv|send --plugin PATH [--handle HEX] [--sizes LIST] [--count N]\n"
                  "       [--inflight K] [--seed S] [--recv-extra BYTES] [--deadline SECONDS] [--info] [--no-check]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string role = argv[1];
  std::string pluginPath, handleHex;
  TransferPlan plan;
  bool info = false;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value = i + 1 < argc ? argv[i + 1] : "";
    if (arg == "--info") {
      info = true;
      continue;
    }
    if (arg == "--no-check") {
      plan.check = false;
      continue;
    }
    ++i;
    if (arg == "--plugin") pluginPath = value;
    else if (arg == "--handle") handleHex = value;
    else if (arg == "--count") plan.count = std::stoul(value);
    else if (arg == "--inflight") plan.inflight = std::stoi(value);
    else if (arg == "--seed") plan.seed = std::stoull(value);
    else if (arg == "--deadline") plan.deadlineSeconds = std::stod(value);
    else if (arg == "--recv-extra") {
      if (!parseSize(value, &plan.recvExtra)) return usage();
    } else if (arg == "--sizes") {
      plan.sizes.clear();
      size_t start = 0;
      while (start <= value.size()) {
        size_t comma = value.find(',', start);
        size_t size = 0;
        if (!parseSize(value.substr(start, comma - start), &size)) return usage();
        plan.sizes.push_back(size);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else {
      return usage();
    }
  }
  if ((role != "recv" && role != "send") || pluginPath.empty() || (role == "send" && handleHex.empty())) return usage();

  CapturedLog::instance().echo(true, info);
  Plugin plugin = loadPlugin(pluginPath);
  if (!plugin.error.empty()) {
    fprintf(stderr, "softbond_peer: %s\n", plugin.error.c_str());
    return 2;
  }
  ncclNet_v11_t* net = plugin.net;
  int devices = 0;
  if (net->devices(&devices) != ncclSuccess || devices < 1) {
    fprintf(stderr, "softbond_peer: the plugin reports no device\n");
    return 2;
  }

  const auto start = std::chrono::steady_clock::now();
  auto expired = [&] { return std::chrono::steady_clock::now() - start > std::chrono::seconds(30); };
  TransferResult result;
  if (role == "recv") {
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE] = {};
    void* listenComm = nullptr;
    if (net->listen(plugin.context, 0, handle, &listenComm) != ncclSuccess) return 2;
    printf("HANDLE %s\n", toHex(handle, sizeof(handle)).c_str());
    fflush(stdout);
    void* recvComm = nullptr;
    while (!recvComm && !expired()) {
      if (net->accept(listenComm, &recvComm, nullptr) != ncclSuccess) return 2;
      if (!recvComm) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    net->closeListen(listenComm);
    if (!recvComm) {
      fprintf(stderr, "softbond_peer: no connection within 30 s\n");
      return 2;
    }
    result = runReceiver(net, recvComm, plan);
    net->closeRecv(recvComm);
  } else {
    unsigned char handle[NCCL_NET_HANDLE_MAXSIZE];
    if (!fromHex(handleHex, handle, sizeof(handle))) return usage();
    void* sendComm = nullptr;
    while (!sendComm && !expired()) {
      if (net->connect(plugin.context, 0, handle, &sendComm, nullptr) != ncclSuccess) return 2;
      if (!sendComm) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!sendComm) {
      fprintf(stderr, "softbond_peer: could not connect within 30 s\n");
      return 2;
    }
    result = runSender(net, sendComm, plan);
    net->closeSend(sendComm);
  }
  net->finalize(plugin.context);
  printf("%s\n", resultLine(result).c_str());
  fflush(stdout);
  return result.ok ? 0 : result.timedOut ? 4 : 3;
}
