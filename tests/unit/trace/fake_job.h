// Runs a fake job: one fake_rank process per rank (fake_rank_main.cc), each with its output in
// files, watched until every rank has exited or a deadline passes. Records when each rank first
// printed a line containing a given text, so tests can check how fast a verdict came.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "trace/trace_clock.h"

extern char** environ;

namespace flashccl {
namespace testing {

struct RankRun {
  pid_t pid = 0;
  bool exited = false;
  int exitCode = -1;   // -1: killed by a signal (see `signal`)
  int signal = 0;
  int64_t exitNs = 0;  // monotonic
  std::string out, err;
};

class FakeJob {
 public:
  FakeJob(const std::string& program, const std::string& dir, int nranks,
          const std::vector<std::string>& args, const std::map<std::string, std::string>& env)
      : dir_(dir), ranks_(nranks) {
    std::vector<std::string> environment;
    for (char** e = environ; *e; ++e) {
      const std::string entry(*e);
      if (entry.rfind("NCCL_", 0) == 0 || entry.rfind("FLASHCCL_", 0) == 0) continue;
      environment.push_back(entry);
    }
    environment.push_back("NCCL_NVLS_ENABLE=0");
    for (const auto& kv : env) environment.push_back(kv.first + "=" + kv.second);
    startNs_ = monotonicNs();
    for (int rank = 0; rank < nranks; ++rank) {
      std::vector<std::string> argv = {program, "--dir", dir, "--rank", std::to_string(rank),
                                       "--nranks", std::to_string(nranks)};
      argv.insert(argv.end(), args.begin(), args.end());
      spawn(rank, argv, environment);
    }
  }
  ~FakeJob() { killAll(); }

  // Polls until every rank has exited or `ms` have passed; `onPoll` runs at every poll.
  template <typename OnPoll>
  void run(int ms, OnPoll onPoll) {
    const int64_t end = monotonicNs() + static_cast<int64_t>(ms) * 1000000;
    while (monotonicNs() < end) {
      reap();
      refreshOutput();
      onPoll();
      bool all = true;
      for (const RankRun& rank : ranks_) all &= rank.exited;
      if (all) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  void run(int ms) {
    run(ms, [] {});
  }

  // Milliseconds from the job's start to the first time `rank`'s stdout+stderr held `text`
  // (checked at every poll of run()); -1 if never.
  int64_t firstSeenMs(int rank, const std::string& text) {
    const std::string key = std::to_string(rank) + "\n" + text;
    auto it = seen_.find(key);
    if (it != seen_.end()) return it->second;
    const RankRun& r = ranks_[rank];
    if (r.out.find(text) == std::string::npos && r.err.find(text) == std::string::npos) return -1;
    return seen_[key] = (monotonicNs() - startNs_) / 1000000;
  }
  int64_t exitMs(int rank) const {
    return ranks_[rank].exited ? (ranks_[rank].exitNs - startNs_) / 1000000 : -1;
  }
  const RankRun& rank(int r) const { return ranks_[r]; }
  void kill(int rank) {
    if (!ranks_[rank].exited) ::kill(ranks_[rank].pid, SIGKILL);
  }
  void killAll() {
    for (int r = 0; r < static_cast<int>(ranks_.size()); ++r) kill(r);
    for (int r = 0; r < static_cast<int>(ranks_.size()); ++r) {
      if (!ranks_[r].exited) {
        int status = 0;
        waitpid(ranks_[r].pid, &status, 0);
        ranks_[r].exited = true;
      }
    }
  }
  std::string describe() const {
    std::string text;
    for (size_t r = 0; r < ranks_.size(); ++r) {
      text += "--- rank " + std::to_string(r) + " exit " + std::to_string(ranks_[r].exitCode) +
              " signal " + std::to_string(ranks_[r].signal) + "\n" + ranks_[r].out + ranks_[r].err;
    }
    return text;
  }

 private:
  void spawn(int rank, const std::vector<std::string>& argv, const std::vector<std::string>& env) {
    std::vector<char*> args, envp;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, outPath(rank).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, errPath(rank).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (posix_spawn(&ranks_[rank].pid, args[0], &actions, nullptr, args.data(), envp.data()) != 0) {
      ranks_[rank].exited = true;
    }
    posix_spawn_file_actions_destroy(&actions);
  }
  void reap() {
    for (RankRun& rank : ranks_) {
      if (rank.exited) continue;
      int status = 0;
      if (waitpid(rank.pid, &status, WNOHANG) == rank.pid) {
        rank.exited = true;
        rank.exitNs = monotonicNs();
        if (WIFEXITED(status)) rank.exitCode = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) rank.signal = WTERMSIG(status);
      }
    }
  }
  void refreshOutput() {
    for (size_t r = 0; r < ranks_.size(); ++r) {
      ranks_[r].out = slurp(outPath(r));
      ranks_[r].err = slurp(errPath(r));
    }
  }
  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::string outPath(size_t rank) const { return dir_ + "/rank" + std::to_string(rank) + ".out"; }
  std::string errPath(size_t rank) const { return dir_ + "/rank" + std::to_string(rank) + ".err"; }

  std::string dir_;
  std::vector<RankRun> ranks_;
  int64_t startNs_ = 0;
  std::map<std::string, int64_t> seen_;
};

}  // namespace testing
}  // namespace flashccl
