// Set-up rounds on a node board (runtime/setup_exchange.h, docs/design.md "Set-up"): the ranks of
// a one-node communicator trade their records through rank 0's board, no NCCL behind them. One
// thread drives both ranks here, as a thread that created several ranks in one group does: every
// post comes before any wait.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/comm_context.h"
#include "runtime/node_setup.h"
#include "runtime/setup_exchange.h"
#include "transport/p2p/node_board.h"

namespace flashccl {
namespace {

TEST(SetupExchange, OneNodeRanksTradeRecordsOnTheBoardRoundByRound) {
  ncclComm_t comm = reinterpret_cast<ncclComm_t>(0xb0a2d);
  CommContext rank0(comm, 0, 2, -1, true), rank1(comm, 1, 2, -1, true);
  const std::string name = NodeBoard::newName();
  std::string why;
  rank0.setupBoard = NodeBoard::open(name, 2, /*create=*/true, &why);
  ASSERT_TRUE(rank0.setupBoard) << why;
  rank0.setupBoardName = name;
  rank1.setupBoard = NodeBoard::open(name, 2, /*create=*/false, &why);
  ASSERT_TRUE(rank1.setupBoard) << why;

  const std::vector<CommContext*> both{&rank0, &rank1};
  for (uint64_t round = 1; round <= 3; ++round) {  // parities alternate: slots are reused
    const uint64_t mine0 = 100 + round, mine1 = 200 + round;
    std::vector<std::vector<char>> all;
    ASSERT_EQ(exchangeRecords(both, sizeof(uint64_t), {&mine0, &mine1}, &all), ncclSuccess);
    ASSERT_EQ(all.size(), 2u);
    for (const std::vector<char>& gathered : all) {
      ASSERT_EQ(gathered.size(), 2 * sizeof(uint64_t));
      uint64_t got[2];
      std::memcpy(got, gathered.data(), sizeof(got));
      EXPECT_EQ(got[0], mine0);
      EXPECT_EQ(got[1], mine1);
    }
  }
  EXPECT_EQ(rank0.setupRound, 3u);

  // Set-up's end closes the boards and rank 0 removes the name: nothing stays in /dev/shm.
  closeSetupBoards(both);
  EXPECT_EQ(rank0.setupBoard, nullptr);
  EXPECT_EQ(rank1.setupBoard, nullptr);
  EXPECT_FALSE(NodeBoard::open(name, 2, /*create=*/false, &why));
  EXPECT_NE(why.find("shm_open"), std::string::npos) << why;
}

TEST(SetupExchange, ARecordTooLargeForTheBoardIsNotCutShort) {
  // Larger than a board slot: that round would go through NCCL (here: none, so it fails) rather
  // than reach the peers cut to the slot.
  ncclComm_t comm = reinterpret_cast<ncclComm_t>(0xb0a2e);
  CommContext rank0(comm, 0, 1, -1, true);
  const std::string name = NodeBoard::newName();
  std::string why;
  rank0.setupBoard = NodeBoard::open(name, 1, /*create=*/true, &why);
  rank0.setupBoardName = name;
  ASSERT_TRUE(rank0.setupBoard) << why;
  std::vector<char> big(NodeBoard::kMaxRecordBytes + 1, 'x');
  std::vector<std::vector<char>> all;
  EXPECT_NE(exchangeRecords({&rank0}, big.size(), {big.data()}, &all), ncclSuccess);
  EXPECT_EQ(rank0.setupRound, 0u);  // the board was not used
  closeSetupBoards({&rank0});
}

TEST(SetupExchange, ARankThatCouldNotOpenTheBoardFailsAtOnce) {
  // Its peers wait on the board; an NCCL round of its own would wait for them for ever.
  CommContext rank1(reinterpret_cast<ncclComm_t>(0xb0a2f), 1, 2, -1, true);
  rank1.setupBoardUnreachable = true;
  const uint64_t mine = 7;
  std::vector<std::vector<char>> all;
  EXPECT_EQ(exchangeRecords({&rank1}, sizeof(mine), {&mine}, &all), ncclSystemError);
  closeSetupBoards({&rank1});
  EXPECT_FALSE(rank1.setupBoardUnreachable);
}

}  // namespace
}  // namespace flashccl
