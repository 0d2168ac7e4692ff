#include "report_format.h"

#include <algorithm>
#include <cmath>


namespace flashccl {
namespace doctor {

namespace {

using ordered_json = nlohmann::ordered_json;
using json = nlohmann::json;

// Longest text a table column takes before it stops aligning the next column.
constexpr size_t kCheckWidth = 22;
constexpr size_t kSubjectWidth = 28;
constexpr size_t kMeasuredWidth = 52;
constexpr size_t kLineWidth = 110;

std::string padded(const std::string& text, size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

size_t columnWidth(const NodeReport& report, std::string CheckResult::*field, size_t cap) {
  size_t width = 0;
  for (const CheckResult& check : report.checks) width = std::max(width, (check.*field).size());
  return std::min(width, cap) + 1;
}

std::string header(const NodeReport& report) {
  std::string text = "flashccl doctor " + report.flashcclVersion + " (" + report.mode + ") on " +
                     report.host;
  if (report.worldSize > 1) text += ", rank " + std::to_string(report.rank) + " of " + std::to_string(report.worldSize);
  return text + ", " + report.date;
}

}  // namespace

std::string markdownCell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += "<br>";
    else out += c;
  }
  return out;
}

std::string wrapText(const std::string& text, size_t width, const std::string& indent) {
  std::string out, line;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

std::string verdictLine(const NodeReport& report) {
  std::string text;
  for (Verdict v : {Verdict::kPass, Verdict::kWarn, Verdict::kFail, Verdict::kSkip}) {
    text += (text.empty() ? "" : ", ") + std::to_string(report.count(v)) + " " + verdictName(v);
  }
  const char* overall = !report.gpuProblem.empty() ? "NO GPU" : verdictName(report.overall());
  return text + " -> " + overall;
}

std::string formatTable(const NodeReport& report) {
  std::string out = header(report) + "\n";
  if (!report.machine.empty()) out += "machine: " + report.machine + "\n";
  const size_t checkWidth = columnWidth(report, &CheckResult::check, kCheckWidth);
  const size_t subjectWidth = columnWidth(report, &CheckResult::subject, kSubjectWidth);
  const size_t measuredWidth = columnWidth(report, &CheckResult::measured, kMeasuredWidth);
  std::string family;
  for (const CheckResult& check : report.checks) {
    if (check.family != family) {
      family = check.family;
      out += "\n== " + family + "\n";
    }
    out += padded(verdictName(check.verdict), 6) + padded(check.check, checkWidth) +
           padded(check.subject, subjectWidth) + padded(check.measured, measuredWidth);
    if (!check.expected.empty() && check.expected != "-") out += "expected " + check.expected;
    out += "\n";
    if (check.verdict != Verdict::kPass && !check.why.empty()) {
      out += wrapText(check.why, kLineWidth, "      ");
    }
  }
  if (!report.gpuProblem.empty()) out += "\n" + wrapText(report.gpuProblem, kLineWidth, "");
  out += "\n" + verdictLine(report) + "\n";
  return out;
}

std::string formatMarkdown(const NodeReport& report) {
  std::string md = "# flashccl doctor: " + markdownCell(report.host) + "\n\n| | |\n|---|---|\n";
  md += "| date | " + markdownCell(report.date) + " |\n";
  md += "| flashccl | " + markdownCell(report.flashcclVersion) + " |\n";
  md += "| mode | " + markdownCell(report.mode) + " |\n";
  if (!report.machine.empty()) md += "| machine | " + markdownCell(report.machine) + " |\n";
  if (report.worldSize > 1) {
    md += "| rank | " + std::to_string(report.rank) + " of " + std::to_string(report.worldSize) + " |\n";
  }
  md += "| verdict | **" + markdownCell(verdictLine(report)) + "** |\n\n";
  if (!report.gpuProblem.empty()) md += "**" + markdownCell(report.gpuProblem) + "**\n\n";
  std::string family;
  for (const CheckResult& check : report.checks) {
    if (check.family != family) {
      family = check.family;
      md += "\n## " + family + "\n\n| verdict | check | subject | measured | expected | why |\n"
            "|---|---|---|---|---|---|\n";
    }
    md += "| " + std::string(verdictName(check.verdict)) + " | " + markdownCell(check.check) + " | " +
          markdownCell(check.subject) + " | " + markdownCell(check.measured) + " | " +
          markdownCell(check.expected) + " | " + markdownCell(check.why) + " |\n";
  }
  for (const Matrix& matrix : report.matrices) {
    md += "\n### " + markdownCell(matrix.name) + " (" + markdownCell(matrix.unit) + "), row = from, column = to\n\n| |";
    for (const std::string& label : matrix.labels) md += " " + markdownCell(label) + " |";
    md += "\n|---|";
    for (size_t i = 0; i < matrix.labels.size(); ++i) md += "---:|";
    md += "\n";
    for (size_t i = 0; i < matrix.labels.size(); ++i) {
      md += "| " + markdownCell(matrix.labels[i]) + " |";
      for (size_t j = 0; j < matrix.labels.size(); ++j) {
        md += " " + (i == j ? std::string("-") : formatNumber(matrix.cells[i][j], matrix.unit == "us" ? 2 : 1)) + " |";
      }
      md += "\n";
    }
  }
  return md;
}

ordered_json reportToJson(const NodeReport& report) {
  ordered_json j;
  j["tool"] = "flashccl doctor";
  j["flashccl_version"] = report.flashcclVersion;
  j["host"] = report.host;
  j["rank"] = report.rank;
  j["world_size"] = report.worldSize;
  j["mode"] = report.mode;
  j["date"] = report.date;
  j["machine"] = report.machine;
  j["gpu_problem"] = report.gpuProblem.empty() ? ordered_json() : ordered_json(report.gpuProblem);
  j["verdict"] = report.gpuProblem.empty() ? verdictName(report.overall()) : "NO GPU";
  j["exit_status"] = exitStatusFor(report);
  ordered_json counts;
  for (Verdict v : {Verdict::kPass, Verdict::kWarn, Verdict::kFail, Verdict::kSkip}) {
    counts[verdictName(v)] = report.count(v);
  }
  j["counts"] = counts;
  ordered_json checks = ordered_json::array();
  for (const CheckResult& check : report.checks) {
    ordered_json c;
    c["family"] = check.family;
    c["check"] = check.check;
    c["subject"] = check.subject;
    c["verdict"] = verdictName(check.verdict);
    c["measured"] = check.measured;
    c["expected"] = check.expected;
    c["why"] = check.why;
    c["value"] = std::isfinite(check.value) ? ordered_json(check.value) : ordered_json();
    c["unit"] = check.unit;
    checks.push_back(c);
  }
  j["checks"] = checks;
  ordered_json matrices = ordered_json::array();
  for (const Matrix& matrix : report.matrices) {
    ordered_json m;
    m["name"] = matrix.name;
    m["unit"] = matrix.unit;
    m["labels"] = matrix.labels;
    ordered_json rows = ordered_json::array();
    for (const std::vector<double>& row : matrix.cells) {
      ordered_json cells = ordered_json::array();
      for (double cell : row) cells.push_back(std::isfinite(cell) ? ordered_json(cell) : ordered_json());
      rows.push_back(cells);
    }
    m["cells"] = rows;
    matrices.push_back(m);
  }
  j["matrices"] = matrices;
  return j;
}

bool reportFromJson(const json& j, NodeReport* report, std::string* error) {
  try {
    NodeReport parsed;
    parsed.host = j.at("host").get<std::string>();
    parsed.rank = j.at("rank").get<int>();
    parsed.worldSize = j.at("world_size").get<int>();
    parsed.mode = j.at("mode").get<std::string>();
    parsed.date = j.at("date").get<std::string>();
    parsed.flashcclVersion = j.at("flashccl_version").get<std::string>();
    parsed.machine = j.at("machine").get<std::string>();
    parsed.gpuProblem = j.at("gpu_problem").is_string() ? j.at("gpu_problem").get<std::string>() : "";
    for (const json& c : j.at("checks")) {
      CheckResult check;
      check.family = c.at("family").get<std::string>();
      check.check = c.at("check").get<std::string>();
      check.subject = c.at("subject").get<std::string>();
      if (!parseVerdict(c.at("verdict").get<std::string>(), &check.verdict)) {
        *error = "unknown verdict '" + c.at("verdict").get<std::string>() + "'";
        return false;
      }
      check.measured = c.at("measured").get<std::string>();
      check.expected = c.at("expected").get<std::string>();
      check.why = c.at("why").get<std::string>();
      check.value = c.at("value").is_number() ? c.at("value").get<double>() : std::nan("");
      check.unit = c.at("unit").get<std::string>();
      parsed.checks.push_back(check);
    }
    for (const json& m : j.at("matrices")) {
      Matrix matrix;
      matrix.name = m.at("name").get<std::string>();
      matrix.unit = m.at("unit").get<std::string>();
      matrix.labels = m.at("labels").get<std::vector<std::string>>();
      for (const json& row : m.at("cells")) {
        std::vector<double> cells;
        for (const json& cell : row) cells.push_back(cell.is_number() ? cell.get<double>() : std::nan(""));
        matrix.cells.push_back(cells);
      }
      parsed.matrices.push_back(matrix);
    }
    *report = parsed;
    return true;
  } catch (const json::exception& e) {
    *error = std::string("not a doctor report: ") + e.what();
    return false;
  }
}

}  // namespace doctor
}  // namespace flashccl
