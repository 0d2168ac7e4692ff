// Where rank 0 sends the run as it happens: the terminal table, the results file of --procs, or both.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "result_format.h"
#include "run_report.h"

namespace flashccl {
namespace perf {

class ReportSink {
 public:
  virtual ~ReportSink() = default;
  virtual void begin(const RunInfo& info) = 0;
  virtual void add(const SizeResult& result) = 0;
  virtual void finish(const RunReport& report) = 0;
};

// The nccl-tests-style table, flushed row by row (a long sweep shows progress).
class ConsoleSink : public ReportSink {
 public:
  explicit ConsoleSink(FILE* out) : out_(out) {}
  void begin(const RunInfo& info) override;
  void add(const SizeResult& result) override;
  void finish(const RunReport& report) override;

 private:
  FILE* out_;
  TablePrinter printer_;
};

// result_file.h's format, one flushed line per result.
class ResultFileSink : public ReportSink {
 public:
  ResultFileSink() = default;
  ~ResultFileSink() override;
  bool open(const std::string& path, std::string* error);
  void begin(const RunInfo& info) override;
  void add(const SizeResult& result) override;
  void finish(const RunReport& report) override;

 private:
  void write(const std::string& text);
  FILE* file_ = nullptr;
};

class TeeSink : public ReportSink {
 public:
  explicit TeeSink(std::vector<ReportSink*> sinks) : sinks_(std::move(sinks)) {}
  void begin(const RunInfo& info) override;
  void add(const SizeResult& result) override;
  void finish(const RunReport& report) override;

 private:
  std::vector<ReportSink*> sinks_;
};

}  // namespace perf
}  // namespace flashccl
