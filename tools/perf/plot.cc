#include "plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "bandwidth.h"
#include "bitmap_font.h"
#include "size_list.h"

namespace flashccl {
namespace perf {
namespace {

constexpr uint32_t kInk = 0x202020;
constexpr uint32_t kGrid = 0xE4E4E4;
constexpr uint32_t kReference = 0x808080;
constexpr int kTextScale = 2;
constexpr int kMarkerHalf = 3;  // markers are 7x7 squares centred on each point

void drawSegment(RgbImage* image, int x0, int y0, int x1, int y1, uint32_t rgb, bool dashed,
                 int thickness) {
  // Bresenham; a dashed line alternates 8 pixels on, 6 off along its major axis.
  const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
  const int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
  int error = dx + dy, step = 0;
  for (;;) {
    if (!dashed || step % 14 < 8) {
      for (int ox = 0; ox < thickness; ++ox)
        for (int oy = 0; oy < thickness; ++oy) image->set(x0 + ox, y0 + oy, rgb);
    }
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * error;
    if (e2 >= dy) {
      error += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      error += dx;
      y0 += sy;
    }
    ++step;
  }
}

void fillRect(RgbImage* image, int x0, int y0, int x1, int y1, uint32_t rgb) {
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) image->set(x, y, rgb);
}

std::string tickLabel(double value) {
  char text[32];
  if (std::fabs(value - std::round(value)) < 1e-9) std::snprintf(text, sizeof(text), "%.0f", value);
  else std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

}  // namespace

int PanelGeometry::xToPixel(double bytes) const {
  const double t = (std::log2(bytes) - xMinLog2) / (xMaxLog2 - xMinLog2);
  return left + static_cast<int>(std::lround(t * (right - left)));
}

int PanelGeometry::yToPixel(double value) const {
  double t = (value - yMin) / (yMax - yMin);
  t = std::min(1.0, std::max(0.0, t));
  return bottom - static_cast<int>(std::lround(t * (bottom - top)));
}

const std::vector<uint32_t>& plotPalette() {
  static const std::vector<uint32_t> palette = {0x1F77B4, 0xD62728, 0x2CA02C, 0x9467BD,
                                                0xFF7F0E, 0x17BECF, 0x8C564B, 0xE377C2};
  return palette;
}

std::vector<double> niceTicks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || target < 1) return ticks;
  const double rough = (hi - lo) / target;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power * 10;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * power >= rough) {
      step = m * power;
      break;
    }
  }
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    ticks.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return ticks;
}

RgbImage renderPlot(const std::string& title, const std::vector<PlotPanel>& panels, int width,
                    int height, std::vector<PanelGeometry>* geometries) {
  RgbImage image(width, height, kPlotBackground);
  const int charHeight = textHeight(kTextScale);
  drawText(&image, (width - textWidth(title, kTextScale)) / 2, 12, title, kInk, kTextScale);

  // Shared x range over every point of every panel.
  double xMin = INFINITY, xMax = -INFINITY;
  for (const PlotPanel& panel : panels)
    for (const PlotSeries& s : panel.series)
      for (const auto& p : s.points)
        if (p.first > 0) {
          xMin = std::min(xMin, std::log2(p.first));
          xMax = std::max(xMax, std::log2(p.first));
        }
  if (!std::isfinite(xMin)) xMin = 0, xMax = 1;
  xMin = std::floor(xMin);
  xMax = std::ceil(xMax);
  if (xMax - xMin < 1) xMax = xMin + 1;

  // The legend sits right of the plot area, as wide as its longest label.
  int longestLabel = 0;
  for (const PlotPanel& panel : panels)
    for (const PlotSeries& s : panel.series)
      longestLabel = std::max(longestLabel, textWidth(s.label, kTextScale));
  const int legendWidth = std::min(width / 2, std::max(160, 58 + longestLabel + 12));
  const int leftMargin = 110, topMargin = 50, bottomMargin = 70;
  const int panelGap = 70;
  const int count = std::max<int>(1, static_cast<int>(panels.size()));
  const int panelHeight = (height - topMargin - bottomMargin - panelGap * (count - 1)) / count;
  const int plotRight = width - legendWidth - 20;

  for (size_t index = 0; index < panels.size(); ++index) {
    const PlotPanel& panel = panels[index];
    PanelGeometry g;
    g.left = leftMargin;
    g.right = plotRight;
    g.top = topMargin + static_cast<int>(index) * (panelHeight + panelGap) + charHeight + 8;
    g.bottom = topMargin + static_cast<int>(index) * (panelHeight + panelGap) + panelHeight;
    g.xMinLog2 = xMin;
    g.xMaxLog2 = xMax;
    double yMax = 0.0;
    for (const PlotSeries& s : panel.series)
      for (const auto& p : s.points)
        if (std::isfinite(p.second)) yMax = std::max(yMax, p.second);
    if (panel.referenceLineAtOne) yMax = std::max(yMax, 1.2);
    if (yMax <= 0) yMax = 1.0;
    const std::vector<double> roughTicks = niceTicks(0.0, yMax * 1.05, 5);
    const double step = roughTicks.size() > 1 ? roughTicks[1] - roughTicks[0] : yMax;
    g.yMin = 0.0;
    g.yMax = std::ceil(yMax * 1.05 / step - 1e-9) * step;
    const std::vector<double> yTicks = niceTicks(g.yMin, g.yMax, 5);

    drawText(&image, g.left, g.top - charHeight - 6, panel.title, kInk, kTextScale);
    // Grid and y ticks.
    for (double tick : yTicks) {
      const int y = g.yToPixel(tick);
      drawSegment(&image, g.left, y, g.right, y, kGrid, false, 1);
      drawSegment(&image, g.left - 6, y, g.left, y, kInk, false, 1);
      const std::string label = tickLabel(tick);
      drawText(&image, g.left - 10 - textWidth(label, kTextScale), y - charHeight / 2, label, kInk,
               kTextScale);
    }
    // x ticks at every power of two; labels where they fit (about 70 pixels apart).
    const double pixelsPerPower = (g.right - g.left) / (xMax - xMin);
    const int labelEvery = std::max(1, static_cast<int>(std::ceil(70.0 / pixelsPerPower)));
    for (int e = static_cast<int>(xMin); e <= static_cast<int>(xMax); ++e) {
      const int x = g.xToPixel(std::ldexp(1.0, e));
      drawSegment(&image, x, g.top, x, g.bottom, kGrid, false, 1);
      drawSegment(&image, x, g.bottom, x, g.bottom + 6, kInk, false, 1);
      if (e % labelEvery == 0 && e >= 0) {
        const std::string label = shortBytes(static_cast<size_t>(1) << e);
        drawText(&image, x - textWidth(label, kTextScale) / 2, g.bottom + 12, label, kInk,
                 kTextScale);
      }
    }
    if (panel.referenceLineAtOne) {
      const int y = g.yToPixel(1.0);
      drawSegment(&image, g.left, y, g.right, y, kReference, true, 2);
    }
    // Frame.
    drawSegment(&image, g.left, g.top, g.right, g.top, kInk, false, 1);
    drawSegment(&image, g.left, g.bottom, g.right, g.bottom, kInk, false, 1);
    drawSegment(&image, g.left, g.top, g.left, g.bottom, kInk, false, 1);
    drawSegment(&image, g.right, g.top, g.right, g.bottom, kInk, false, 1);
    drawTextVertical(&image, 12, (g.top + g.bottom) / 2 - textWidth(panel.yLabel, kTextScale) / 2,
                     panel.yLabel, kInk, kTextScale);
    // Lines first, then markers on top, so every point shows its own series' colour.
    for (const PlotSeries& s : panel.series)
      for (size_t i = 1; i < s.points.size(); ++i)
        drawSegment(&image, g.xToPixel(s.points[i - 1].first), g.yToPixel(s.points[i - 1].second),
                    g.xToPixel(s.points[i].first), g.yToPixel(s.points[i].second), s.rgb, s.dashed,
                    2);
    for (const PlotSeries& s : panel.series)
      for (const auto& p : s.points) {
        const int x = g.xToPixel(p.first), y = g.yToPixel(p.second);
        if (s.dashed)  // hollow marker for the reference library
          for (int k = -kMarkerHalf; k <= kMarkerHalf; ++k) {
            image.set(x + k, y - kMarkerHalf, s.rgb);
            image.set(x + k, y + kMarkerHalf, s.rgb);
            image.set(x - kMarkerHalf, y + k, s.rgb);
            image.set(x + kMarkerHalf, y + k, s.rgb);
          }
        else
          fillRect(&image, x - kMarkerHalf, y - kMarkerHalf, x + kMarkerHalf, y + kMarkerHalf, s.rgb);
      }
    // Legend to the right of the plot area.
    int legendY = g.top + 4;
    for (const PlotSeries& s : panel.series) {
      drawSegment(&image, plotRight + 20, legendY + charHeight / 2, plotRight + 50,
                  legendY + charHeight / 2, s.rgb, s.dashed, 3);
      drawText(&image, plotRight + 58, legendY, s.label, kInk, kTextScale);
      legendY += charHeight + 8;
    }
    if (geometries) geometries->push_back(g);
  }
  const std::string xLabel = "message size (bytes, log2 scale)";
  drawText(&image, (leftMargin + plotRight - textWidth(xLabel, kTextScale)) / 2,
           height - charHeight - 14, xLabel, kInk, kTextScale);
  return image;
}

std::vector<PlotPanel> perfPlotPanels(const RunReport& report) {
  PlotPanel speedup{"speedup = NCCL time / flashccl time", "speedup", {}, true};
  PlotPanel busbw{"bus bandwidth (solid: flashccl, dashed: NCCL)", "busbw (GB/s)", {}, false};
  // Series key: the collective, plus whatever else varies in this run.
  bool manyTypes = false, manyOps = false, manyPlacements = false;
  for (const SizeResult& r : report.results) {
    const SizeResult& first = report.results.front();
    manyTypes = manyTypes || r.dataType != first.dataType;
    manyOps = manyOps || (r.op != first.op && r.op != ReduceOp::kNone && first.op != ReduceOp::kNone);
    manyPlacements = manyPlacements || r.placement != first.placement;
  }
  std::vector<std::string> keys;
  std::vector<std::vector<const SizeResult*>> members;
  for (const SizeResult& r : report.results) {
    std::string key = collectiveName(r.collective);
    if (manyTypes) key += std::string(" ") + dataTypeName(r.dataType);
    if (manyOps && r.op != ReduceOp::kNone) key += std::string(" ") + reduceOpName(r.op);
    if (manyPlacements) key += r.placement == Placement::kInPlace ? " in" : " out";
    const auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
      keys.push_back(key);
      members.push_back({&r});
    } else {
      members[static_cast<size_t>(it - keys.begin())].push_back(&r);
    }
  }
  const int nranks = report.info.nranks();
  for (size_t k = 0; k < keys.size(); ++k) {
    const uint32_t rgb = plotPalette()[k % plotPalette().size()];
    PlotSeries ratio{keys[k], rgb, false, {}};
    PlotSeries ours{keys[k] + " flashccl", rgb, false, {}};
    PlotSeries theirs{keys[k] + " NCCL", rgb, true, {}};
    for (const SizeResult* r : members[k]) {
      const double size = static_cast<double>(r->bytes);
      ratio.points.push_back({size, r->timing.speedup});
      ours.points.push_back(
          {size, busBandwidth(r->collective, nranks, r->bytes, r->timing.flashcclMicros)});
      theirs.points.push_back(
          {size, busBandwidth(r->collective, nranks, r->bytes, r->timing.ncclMicros)});
    }
    speedup.series.push_back(ratio);
    busbw.series.push_back(theirs);
    busbw.series.push_back(ours);
  }
  return {speedup, busbw};
}

std::string perfPlotTitle(const RunReport& report) {
  std::string title = "flashccl " + report.info.flashcclVersion + " vs NCCL " +
                      report.info.ncclVersion + ", " + std::to_string(report.info.nranks()) +
                      " ranks";
  if (!report.info.machine.empty()) title += ", " + report.info.machine;
  if (report.info.graphOps > 0) title += ", CUDA graph";
  return title;
}

bool writePerfPlot(const std::string& path, const RunReport& report, std::string* error) {
  if (report.results.empty()) {
    *error = "no results to plot";
    return false;
  }
  const RgbImage image = renderPlot(perfPlotTitle(report), perfPlotPanels(report), 1400, 1000);
  return writePngFile(path, image, error);
}

}  // namespace perf
}  // namespace flashccl
