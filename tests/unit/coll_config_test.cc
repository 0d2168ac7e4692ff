// Which per-call configs (NCCL 2.32's ncclCollConfig_t) flashccl runs as the plain call, and that
// it reads no field past the config's size (runtime/coll_config.h).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <cstddef>
#include <cstring>

#include "runtime/coll_config.h"

namespace flashccl {
namespace {

constexpr int kGrid = 264;  // an H200's resident blocks of a chunked kernel: 2 x 132

ncclCollConfig_t initialized() {
  ncclCollConfig_t c;
  std::memset(&c, 0, sizeof(c));
  c.size = sizeof(c);
  c.magic = NCCL_API_MAGIC;
  c.version = 23203;
  c.minCTAs = c.maxCTAs = c.nvlsCTAs = c.cgaClusterSize = c.CTAPolicy = INT_MIN;
  c.forceAlgSelection = 1;
  return c;  // NCCL_COLLCONFIG_INITIALIZER's values
}

TEST(CollConfig, NothingAskedRunsAsThePlainCall) {
  EXPECT_EQ(collConfigForwardReason(nullptr, kGrid), nullptr);
  ncclCollConfig_t c = initialized();
  EXPECT_EQ(collConfigForwardReason(&c, kGrid), nullptr);
  c.userProfilerTag = 42;  // delivered to profiler plugins only; execution is the same
  c.nvlsCTAs = 4;          // flashccl never uses NVLS
  c.algSelection = "";     // empty: automatic
  EXPECT_EQ(collConfigForwardReason(&c, kGrid), nullptr);
}

TEST(CollConfig, BoundsFlashcclsGridsRespectAreHonoured) {
  ncclCollConfig_t c = initialized();
  c.minCTAs = 1;
  c.maxCTAs = kGrid;
  EXPECT_EQ(collConfigForwardReason(&c, kGrid), nullptr);
  c.maxCTAs = 1024;
  EXPECT_EQ(collConfigForwardReason(&c, kGrid), nullptr);
}

TEST(CollConfig, WhatFlashcclCannotHonourGoesToNcclWithTheReason) {
  struct Case {
    void (*set)(ncclCollConfig_t*);
    const char* word;
  } cases[] = {
      {[](ncclCollConfig_t* c) { c->algSelection = "ring"; }, "algSelection"},
      {[](ncclCollConfig_t* c) { c->minCTAs = 8; }, "minCTAs"},
      {[](ncclCollConfig_t* c) { c->maxCTAs = 32; }, "maxCTAs"},
      {[](ncclCollConfig_t* c) { c->cgaClusterSize = 4; }, "cluster"},
      {[](ncclCollConfig_t* c) { c->CTAPolicy = 1; }, "CTA policy"},
      {[](ncclCollConfig_t* c) { c->launchCompletionEvent = reinterpret_cast<cudaEvent_t>(0x10); },
       "launch-completion event"},
      {[](ncclCollConfig_t* c) { c->magic = 0; }, "NCCL_COLLCONFIG_INITIALIZER"},
  };
  for (const Case& k : cases) {
    ncclCollConfig_t c = initialized();
    k.set(&c);
    const char* why = collConfigForwardReason(&c, kGrid);
    ASSERT_NE(why, nullptr) << k.word;
    EXPECT_NE(std::strstr(why, k.word), nullptr) << why;
  }
  ncclCollConfig_t c = initialized();
  c.maxCTAs = 1024;
  EXPECT_NE(collConfigForwardReason(&c, 0), nullptr) << "no grid known (not set up): forward";
}

TEST(CollConfig, ReadsNothingPastTheConfigsSize) {
  // A config from a header whose struct ends after maxCTAs, at the end of a readable page: a
  // read of algSelection or anything later would fault.
  const long page = sysconf(_SC_PAGESIZE);
  char* pages = static_cast<char*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(pages, MAP_FAILED);
  ASSERT_EQ(mprotect(pages + page, page, PROT_NONE), 0);
  const size_t shortSize = offsetof(ncclCollConfig_t, nvlsCTAs);
  ncclCollConfig_t full = initialized();
  full.size = shortSize;
  full.maxCTAs = kGrid;
  char* start = pages + page - shortSize;
  std::memcpy(start, &full, shortSize);
  EXPECT_EQ(collConfigForwardReason(reinterpret_cast<const ncclCollConfig_t*>(start), kGrid), nullptr);
  munmap(pages, 2 * page);
}

}  // namespace
}  // namespace flashccl
