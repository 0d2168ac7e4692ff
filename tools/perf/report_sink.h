// Where rank 0 sends the run as it happens: the terminal table, the JSON hand-over file of
// --processes, or both.
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

// The JSON record (report_json.h), rewritten after every result so a rank that dies half-way still
// leaves the rows it finished; "complete" turns true at the end.
class JsonFileSink : public ReportSink {
 public:
  explicit JsonFileSink(std::string path) : path_(std::move(path)) {}
  void begin(const RunInfo& info) override;
  void add(const SizeResult& result) override;
  void finish(const RunReport& report) override;

 private:
  void write(bool complete);
  std::string path_;
  RunReport report_;
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
