#include "report_sink.h"

#include <stdexcept>

#include "report_json.h"

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

void JsonFileSink::write(bool complete) {
  std::string error;
  if (!writeReportFile(path_, report_, complete, &error)) throw std::runtime_error(error);  // the runners report it and exit 1
}

void JsonFileSink::begin(const RunInfo& info) {
  report_ = RunReport{info, {}};
  write(false);
}

void JsonFileSink::add(const SizeResult& result) {
  report_.results.push_back(result);
  write(false);
}

void JsonFileSink::finish(const RunReport&) { write(true); }

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
