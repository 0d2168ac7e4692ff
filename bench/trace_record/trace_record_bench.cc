// The flight recorder's price per NCCL call: FlightRecorder::record() as the runtime calls it,
// once per call, intercepted or forwarded. The budget is 0.05 us (issue 14): above it, tracing
// could not stay on by default.
#include <benchmark/benchmark.h>

#include <atomic>
#include <thread>

#include "trace/flight_recorder.h"
#include "trace/trace_clock.h"

namespace flashccl {
namespace {

constexpr size_t kEntries = 2048;  // FLASHCCL_TRACE_ENTRIES' default

TraceCall intercepted() {
  TraceCall call;
  call.kind = TraceKind::kAllReduce;
  call.count = 1 << 20;
  call.dtype = ncclBfloat16;
  call.op = ncclSum;
  call.algorithm = "allreduce_oneshot";
  return call;
}

// An intercepted call: our kernel's launch number goes with it.
void BM_Record(benchmark::State& state) {
  FlightRecorder recorder(kEntries);
  volatile uint64_t started = 0, completed = 0;
  recorder.setDeviceProgress(&started, &completed);
  TraceCall call = intercepted();
  uint64_t launch = 0;
  for (auto _ : state) {
    call.launch = ++launch;
    benchmark::DoNotOptimize(recorder.record(call));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Record);

// A call forwarded to NCCL, tracing on but not full (no probe).
void BM_RecordForwarded(benchmark::State& state) {
  FlightRecorder recorder(kEntries);
  TraceCall call = intercepted();
  call.algorithm = nullptr;
  for (auto _ : state) benchmark::DoNotOptimize(recorder.record(call));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RecordForwarded);

// The worst case for the writer: a reader copying the ring's tail and an observer walking it
// without pause (the real watchdog looks once a second; the side channel only when asked).
void BM_RecordWhileRead(benchmark::State& state) {
  FlightRecorder recorder(kEntries);
  volatile uint64_t started = 0, completed = 0;
  recorder.setDeviceProgress(&started, &completed);
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      benchmark::DoNotOptimize(recorder.tail(256));
      recorder.observe(traceNowNs());
    }
  });
  TraceCall call = intercepted();
  uint64_t launch = 0;
  for (auto _ : state) {
    call.launch = ++launch;
    benchmark::DoNotOptimize(recorder.record(call));
  }
  stop.store(true);
  reader.join();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RecordWhileRead)->UseRealTime();

// For scale: the clock read that record() includes, and the precise clock it avoids.
void BM_CoarseClock(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(traceNowNs());
}
BENCHMARK(BM_CoarseClock);

void BM_PreciseClock(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(monotonicNs());
}
BENCHMARK(BM_PreciseClock);

}  // namespace
}  // namespace flashccl

BENCHMARK_MAIN();
