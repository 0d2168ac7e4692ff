// The JSON record of a `flashccl perf` run (nlohmann/json): what -J writes, what a child of
// --processes hands its parent, and what `python -m flashccl plot` and the markdown are made from.
// docs/perf.md lists the fields.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "run_report.h"

namespace flashccl {
namespace perf {

constexpr int kReportSchemaVersion = 2;

// Keys in the order written, so a record reads top-down like the table it came with.
using Json = nlohmann::ordered_json;

// `complete` is false while a run is still adding results (the --processes hand-over file is
// rewritten after each one, so a rank that dies leaves the rows it finished).
Json reportToJson(const RunReport& report, bool complete = true);

// The schema a record is written in: its "schema" field; 1 for the records from before that field.
int reportSchema(const Json& json);

// Reads a record of schema 1 or 2 (schema 1's missing fields read as what those runs did). False
// with *error (naming the field, or the schema) for anything else.
bool reportFromJson(const Json& json, RunReport* report, bool* complete, std::string* error);

// File helpers: write atomically (a temporary file, then rename), read and parse.
bool writeReportFile(const std::string& path, const RunReport& report, bool complete, std::string* error);
bool readReportFile(const std::string& path, RunReport* report, bool* complete, std::string* error);

}  // namespace perf
}  // namespace flashccl
