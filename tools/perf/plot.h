// A small raster plotter for the --plot picture: panels that share a log2 x axis (message size), each
// with a linear y axis, ticks, a light grid, labels in the built-in font, and a legend beside the plot
// area. perf draws two panels: speedup (with a line at 1.0) and busbw (flashccl solid, NCCL dashed).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "png_writer.h"
#include "run_report.h"

namespace flashccl {
namespace perf {

struct PlotSeries {
  std::string label;
  uint32_t rgb = 0;
  bool dashed = false;
  std::vector<std::pair<double, double>> points;  // (bytes, value), in x order
};

struct PlotPanel {
  std::string title;
  std::string yLabel;
  std::vector<PlotSeries> series;
  bool referenceLineAtOne = false;  // the speedup panel's "as fast as NCCL" line
};

// Where a panel's plot area lies in the image and how values map to pixels.
struct PanelGeometry {
  int left = 0, top = 0, right = 0, bottom = 0;  // plot area, inclusive pixel bounds
  double xMinLog2 = 0, xMaxLog2 = 1;
  double yMin = 0, yMax = 1;
  int xToPixel(double bytes) const;
  int yToPixel(double value) const;
};

constexpr uint32_t kPlotBackground = 0xFFFFFF;
// Series colours, in the order series get them (distinct, readable on white).
const std::vector<uint32_t>& plotPalette();

// Draws `panels` stacked vertically under `title`. *geometries (optional) receives each panel's
// mapping, for tests that look for a series' colour where its points should be.
RgbImage renderPlot(const std::string& title, const std::vector<PlotPanel>& panels, int width,
                    int height, std::vector<PanelGeometry>* geometries = nullptr);

// The two panels of a perf run: one series per collective (and per datatype/op/placement when the
// run has several).
std::vector<PlotPanel> perfPlotPanels(const RunReport& report);
std::string perfPlotTitle(const RunReport& report);

bool writePerfPlot(const std::string& path, const RunReport& report, std::string* error);

// Tick values from lo to hi with a step of 1, 2, 2.5 or 5 x 10^k, about `target` of them.
std::vector<double> niceTicks(double lo, double hi, int target);

}  // namespace perf
}  // namespace flashccl
