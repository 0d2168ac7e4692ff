// The report views and the command line: the JSON that travels to rank 0 reads back whole, the
// table shows why for what is not PASS, markdown carries the pair matrices, options parse the
// way docs/doctor.md says.
#include <gtest/gtest.h>

#include <cmath>

#include "doctor_options.h"
#include "report_format.h"

namespace flashccl {
namespace doctor {
namespace {

NodeReport sample() {
  NodeReport report;
  report.host = "gpu-box";
  report.rank = 2;
  report.worldSize = 4;
  report.mode = "quick";
  report.date = "2026-12-01 14:03:11";
  report.flashcclVersion = "0.1.0";
  report.machine = "2 x NVIDIA H200, nvswitch (18 NVLinks per pair)";
  report.checks = {
      makeCheck(kFamilyEnvironment, "driver", "node", Verdict::kPass, "580.159.04", "an NVIDIA driver", "fine"),
      withValue(makeCheck(kFamilyGpu, "pcie-link", "GPU 3 (0000:5d:00.0)", Verdict::kFail, "Gen5 x8 idle", "Gen5 x16",
                          "the link trained at x8 instead of x16 | reseat"),
                31.5, "GB/s"),
      skipCheck(kFamilyPairs, "pairs", "node", "needs two GPUs; this process sees 1"),
  };
  Matrix matrix;
  matrix.name = "copy-engine";
  matrix.unit = "GB/s";
  matrix.labels = {"GPU 0", "GPU 1"};
  matrix.cells = {{std::nan(""), 396.5}, {392.3, std::nan("")}};
  report.matrices = {matrix};
  return report;
}

TEST(DoctorReport, JsonReadsBackWhole) {
  const NodeReport original = sample();
  const nlohmann::ordered_json json = reportToJson(original);
  EXPECT_EQ(json["verdict"], "FAIL");
  EXPECT_EQ(json["exit_status"], 1);
  EXPECT_EQ(json["counts"]["SKIP"], 1);
  EXPECT_TRUE(json["checks"][0]["value"].is_null());
  EXPECT_TRUE(json["matrices"][0]["cells"][0][0].is_null());
  NodeReport back;
  std::string error;
  ASSERT_TRUE(reportFromJson(nlohmann::json::parse(json.dump()), &back, &error)) << error;
  EXPECT_EQ(back.host, "gpu-box");
  EXPECT_EQ(back.rank, 2);
  ASSERT_EQ(back.checks.size(), 3u);
  EXPECT_EQ(back.checks[1].verdict, Verdict::kFail);
  EXPECT_EQ(back.checks[1].why, original.checks[1].why);
  EXPECT_DOUBLE_EQ(back.checks[1].value, 31.5);
  EXPECT_TRUE(std::isnan(back.checks[0].value));
  EXPECT_DOUBLE_EQ(back.matrices[0].cells[1][0], 392.3);
  EXPECT_TRUE(std::isnan(back.matrices[0].cells[1][1]));

  EXPECT_FALSE(reportFromJson(nlohmann::json::parse("{\"host\": 5}"), &back, &error));
  nlohmann::json badVerdict = nlohmann::json::parse(json.dump());
  badVerdict["checks"][0]["verdict"] = "MAYBE";
  EXPECT_FALSE(reportFromJson(badVerdict, &back, &error));
  EXPECT_NE(error.find("MAYBE"), std::string::npos);
}

TEST(DoctorReport, TableShowsWhyForWhatIsNotPass) {
  const std::string table = formatTable(sample());
  EXPECT_NE(table.find("flashccl doctor 0.1.0 (quick) on gpu-box, rank 2 of 4, 2026-12-01 14:03:11"), std::string::npos);
  EXPECT_NE(table.find("== gpu\nFAIL  pcie-link"), std::string::npos);
  EXPECT_NE(table.find("      the link trained at x8"), std::string::npos);
  EXPECT_EQ(table.find("fine"), std::string::npos);  // a PASS keeps its why for the JSON
  EXPECT_NE(table.find("1 PASS, 0 WARN, 1 FAIL, 1 SKIP -> FAIL"), std::string::npos);
  NodeReport noGpu = sample();
  noGpu.gpuProblem = "flashccl doctor: no GPU found (cudaGetDeviceCount: no CUDA-capable device)";
  EXPECT_EQ(exitStatusFor(noGpu), 2);
  EXPECT_NE(formatTable(noGpu).find("-> NO GPU"), std::string::npos);
}

TEST(DoctorReport, MarkdownEscapesCellsAndCarriesMatrices) {
  const std::string md = formatMarkdown(sample());
  EXPECT_NE(md.find("x8 instead of x16 \\| reseat"), std::string::npos);
  EXPECT_NE(md.find("### copy-engine (GB/s), row = from, column = to"), std::string::npos);
  EXPECT_NE(md.find("| GPU 0 | - | 396.5 |"), std::string::npos);
  EXPECT_NE(md.find("| verdict | **1 PASS, 0 WARN, 1 FAIL, 1 SKIP -> FAIL** |"), std::string::npos);
}

TEST(DoctorReport, WrapsLongReasons) {
  EXPECT_EQ(wrapText("aaa bbb ccc", 9, "  "), "  aaa bbb\n  ccc\n");
  EXPECT_EQ(wrapText("", 9, "  "), "");
}

ParsedOptions parse(std::vector<const char*> args) {
  args.insert(args.begin(), "doctor");
  return parseDoctorOptions(int(args.size()), args.data());
}

TEST(DoctorOptions, DefaultsAndFamilies) {
  ParsedOptions parsed = parse({});
  ASSERT_EQ(parsed.result, ParsedOptions::Result::kRun);
  EXPECT_FALSE(parsed.options.full);
  EXPECT_EQ(parsed.options.families.size(), allFamilies().size());
  EXPECT_EQ(parsed.options.sysRoot, "/sys");

  parsed = parse({"--full", "--checks", "gpu,nics", "--json", "x.json", "--expect", "e.json"});
  ASSERT_EQ(parsed.result, ParsedOptions::Result::kRun) << parsed.text;
  EXPECT_TRUE(parsed.options.full);
  EXPECT_EQ(parsed.options.families, (std::set<std::string>{"gpu", "nics"}));
  EXPECT_EQ(parsed.options.jsonPath, "x.json");
  EXPECT_EQ(parsed.options.expectPath, "e.json");
  EXPECT_EQ(parse({"--help"}).result, ParsedOptions::Result::kHelp);
  EXPECT_NE(parse({"--help"}).text.find("--checks"), std::string::npos);
}

TEST(DoctorOptions, UsageErrorsAreOneLineNamingTheValidValues) {
  ParsedOptions parsed = parse({"--checks", "gpu,disks"});
  EXPECT_EQ(parsed.result, ParsedOptions::Result::kUsageError);
  EXPECT_EQ(parsed.text, "--checks: unknown family 'disks' (valid: environment,gpu,bandwidth,pairs,nics,collectives)");
  EXPECT_EQ(parse({"--quick", "--full"}).result, ParsedOptions::Result::kUsageError);
  EXPECT_EQ(parse({"--frobnicate"}).result, ParsedOptions::Result::kUsageError);
  EXPECT_EQ(parse({"--cluster-timeout", "0"}).result, ParsedOptions::Result::kUsageError);
  for (const char* arg : {"--checks", "--json"}) {
    const ParsedOptions missing = parse({arg});
    EXPECT_EQ(missing.result, ParsedOptions::Result::kUsageError) << arg;
    EXPECT_EQ(missing.text.find('\n'), std::string::npos) << missing.text;
  }
}

}  // namespace
}  // namespace doctor
}  // namespace flashccl
