// The built-in algorithms, one per file in src/algo/.
#pragma once

namespace flashccl {

class Algorithm;

Algorithm* allreduceOneshotAlgorithm();   // LL packets, small messages
Algorithm* allreduceTwoshotAlgorithm();   // chunked reduce-scatter + all-gather, mid and large
Algorithm* allgatherDirectAlgorithm();    // every rank pushes to every peer
Algorithm* reducescatterDirectAlgorithm();

}  // namespace flashccl
