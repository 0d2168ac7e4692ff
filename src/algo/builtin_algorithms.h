// The built-in algorithms, one per file in src/algo/.
#pragma once

namespace flashccl {

class Algorithm;

Algorithm* allreduceOneshotAlgorithm();   // LL packets, small messages
Algorithm* allreduceTwoshotAlgorithm();   // chunked reduce-scatter + all-gather, mid and large
Algorithm* allgatherDirectAlgorithm();    // every rank pushes to every peer
Algorithm* reducescatterDirectAlgorithm();

// Across nodes: our kernels inside each node, the real NCCL between nodes (hierarchy.h).
Algorithm* allreduceHierAlgorithm();         // pipelined reduce-scatter, AllReduce per rail, all-gather
Algorithm* allreduceHierOneshotAlgorithm();  // small messages: node sum, one AllGather between nodes
Algorithm* allgatherHierAlgorithm();
Algorithm* reducescatterHierAlgorithm();

}  // namespace flashccl
