// Line plots as standalone SVG, written by lanaikit itself (no plotting library): axes
// with "nice" ticks (1-2-5 steps on linear axes, decades on logarithmic ones), tick
// labels, a grid, a legend (in the corner of the plot that hides the least data), and per
// series a polyline with markers in a colour, dash pattern and marker shape of its own.
// The output is a pure function of the PlotSpec (coordinates rounded to 0.01 px, labels
// formatted from integers), so plots can be golden-file tested.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace lanaikit::report {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points; // (x, y), drawn in this order
};

struct PlotSpec {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  std::vector<Series> series;
  int width = 720, height = 480; // pixels
};

// Throws std::invalid_argument for: a size below 160 x 120, a NaN or infinite coordinate,
// or a coordinate <= 0 on a logarithmic axis (the message names the series, the point and
// the axis).
std::string render_svg(const PlotSpec& spec);

// How a tick label is written: n * 10^e as plain decimal when that takes at most 7 integer
// digits or 6 decimals, else as "1.5e9". Exposed for tests.
std::string tick_label(int64_t n, int e);

} // namespace lanaikit::report
