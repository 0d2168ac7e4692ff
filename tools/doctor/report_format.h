// The views of a doctor report: the terminal table, markdown (for bench/results/), and JSON
// (every field; also what cluster ranks send to rank 0, so it reads back into a NodeReport).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "check_result.h"

namespace flashccl {
namespace doctor {

std::string formatTable(const NodeReport& report);
std::string formatMarkdown(const NodeReport& report);

nlohmann::ordered_json reportToJson(const NodeReport& report);
// False with *error when `json` is not a report (a bad or truncated message).
bool reportFromJson(const nlohmann::json& json, NodeReport* report, std::string* error);

// `text` safe inside a markdown table cell ('|' escaped, newlines as <br>).
std::string markdownCell(const std::string& text);

// The closing line: "31 PASS, 2 WARN, 1 FAIL, 3 SKIP -> FAIL".
std::string verdictLine(const NodeReport& report);

// `text` broken into lines of at most `width` characters (at spaces), each prefixed by `indent`.
std::string wrapText(const std::string& text, size_t width, const std::string& indent);

}  // namespace doctor
}  // namespace flashccl
