#include "report_sink.h"

#include <cerrno>
#include <cstring>

#include "result_file.h"

namespace flashccl {
namespace perf {

void ConsoleSink::begin(const RunInfo& info) {
  std::fputs(printer_.begin(info).c_str(), out_);
  std::fflush(out_);
}

void ConsoleSink::add(const SizeResult& result) {
  std::fputs(printer_.add(result).c_str(), out_);
  std::fflush(out_);
}

void ConsoleSink::finish(const RunReport& report) {
  std::fputs(printer_.finish(report).c_str(), out_);
  std::fflush(out_);
}

ResultFileSink::~ResultFileSink() {
  if (file_) std::fclose(file_);
}

bool ResultFileSink::open(const std::string& path, std::string* error) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) *error = "cannot write results file " + path + ": " + std::strerror(errno);
  return file_ != nullptr;
}

void ResultFileSink::write(const std::string& text) {
  if (!file_) return;
  std::fputs(text.c_str(), file_);
  std::fflush(file_);
}

void ResultFileSink::begin(const RunInfo& info) { write(serializeRunInfo(info)); }
void ResultFileSink::add(const SizeResult& result) { write(serializeResult(result)); }
void ResultFileSink::finish(const RunReport&) { write(serializeEnd()); }

void TeeSink::begin(const RunInfo& info) {
  for (ReportSink* sink : sinks_) sink->begin(info);
}
void TeeSink::add(const SizeResult& result) {
  for (ReportSink* sink : sinks_) sink->add(result);
}
void TeeSink::finish(const RunReport& report) {
  for (ReportSink* sink : sinks_) sink->finish(report);
}

}  // namespace perf
}  // namespace flashccl
