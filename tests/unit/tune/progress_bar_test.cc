// flashccl tune's progress: a bar rewritten in place on a terminal, plain lines otherwise.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "progress_bar.h"

namespace flashccl {
namespace tune {
namespace {

std::string written(bool terminal, void (*use)(ProgressBar&)) {
  FILE* file = std::tmpfile();
  {
    ProgressBar bar(file, terminal);
    use(bar);
  }
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += char(c);
  std::fclose(file);
  return text;
}

TEST(ProgressBar, Pieces) {
  EXPECT_EQ(progressBar(0, 4, 8), "[--------] 0/4");
  EXPECT_EQ(progressBar(3, 4, 8), "[######--] 3/4");
  EXPECT_EQ(progressBar(4, 4, 8), "[########] 4/4");
  EXPECT_EQ(durationText(45.4), "45s");
  EXPECT_EQ(durationText(0.42), "0.4s");
  EXPECT_EQ(durationText(80), "1m20s");
  EXPECT_EQ(durationText(7380), "2h03m");
}

TEST(ProgressBar, PlainLinesWhenNotATerminal) {
  EXPECT_EQ(written(false,
                    [](ProgressBar& bar) {
                      bar.begin(0, 2, "ring/ll", 0);
                      bar.end(0, 2, "ring/ll", 12.3, "done");
                    }),
            "tune: run 1/2: ring/ll ...\ntune: run 1/2: ring/ll: done in 12s\n");
}

TEST(ProgressBar, OneRewrittenLineOnATerminal) {
  EXPECT_EQ(written(true,
                    [](ProgressBar& bar) {
                      bar.begin(0, 4, "ring/ll", 0);
                      bar.end(0, 4, "ring/ll", 10, "done");
                      bar.begin(1, 4, "tree/ll", 10);
                    }),
            "\r\033[Ktune [------------------------] 0/4  ring/ll"
            "\r\033[Ktune [######------------------] 1/4  tree/ll  ~30s left"
            "\r\033[K");  // cleared when it goes
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
