// What single CUDA calls cost on this host, beside the AllReduce benchmarks: the intercepted
// path's overhead is made of calls like these, so their prices say where its time can go.
//   BM_CudaGetDevice     the runtime call every intercepted call makes (our kernels run on the
//                        communicator's device, whatever is current)
//   BM_CudaGetLastError  the cheapest runtime call: the fixed price of entering the runtime
//   BM_CuCtxGetCurrent   the driver's view of the current device, without the runtime
#pragma once

namespace flashccl_bench {

void registerRuntimeCallBenchmarks();

}  // namespace flashccl_bench
