#include "report/svg_plot.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

namespace lanaikit::report {

namespace {

// n * 10^e as the nearest double, through the correctly rounded decimal parser, so tick
// values do not depend on pow().
double scaled(int64_t n, int e) {
  const std::string s = std::to_string(n) + "e" + std::to_string(e);
  double d = 0;
  std::from_chars(s.data(), s.data() + s.size(), d);
  return d;
}

std::string px(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 2);
  std::string s(buf, r.ptr);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default:
      // XML 1.0 forbids most control characters even as references.
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') out += '?';
      else out += ch;
    }
  }
  return out;
}

// Characters (UTF-8 code points) in s, for sizing the legend.
size_t text_chars(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

struct Tick {
  double pos; // in axis space (the value, or its log10)
  std::string label; // empty: a minor grid line without a label
};

struct Axis {
  bool log = false;
  double lo = 0, hi = 1; // axis space
  std::vector<Tick> ticks;
  double map(double v) const { return log ? std::log10(v) : v; }
};

Axis linear_axis(double dmin, double dmax, int target) {
  if (dmin == dmax) {
    const double d = dmin == 0 ? 1 : std::abs(dmin) * 0.5;
    dmin -= d;
    dmax += d;
  }
  const double raw = (dmax - dmin) / target;
  int e = int(std::floor(std::log10(raw)));
  // Correct log10's rounding near powers of ten.
  while (scaled(1, e) > raw) --e;
  while (scaled(1, e + 1) <= raw) ++e;
  const double f = raw / scaled(1, e);
  int64_t m = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  if (m == 10) {
    m = 1;
    ++e;
  }
  const double step = scaled(m, e);
  const int64_t kmin = int64_t(std::floor(dmin / step + 1e-9));
  const int64_t kmax = int64_t(std::ceil(dmax / step - 1e-9));
  Axis a;
  a.lo = scaled(kmin * m, e);
  a.hi = scaled(kmax * m, e);
  for (int64_t k = kmin; k <= kmax; ++k) a.ticks.push_back({scaled(k * m, e), tick_label(k * m, e)});
  return a;
}

Axis log_axis(double dmin, double dmax, int target) {
  int a = int(std::floor(std::log10(dmin)));
  while (scaled(1, a) > dmin) --a;
  while (scaled(1, a + 1) <= dmin) ++a;
  int b = int(std::ceil(std::log10(dmax)));
  while (scaled(1, b) < dmax) ++b;
  while (b - 1 >= a && scaled(1, b - 1) >= dmax) --b;
  if (b <= a) b = a + 1;
  Axis ax;
  ax.log = true;
  ax.lo = a;
  ax.hi = b;
  const int decades = b - a;
  const int step = std::max(1, (decades + target - 1) / target);
  for (int k = a; k <= b; ++k) {
    if ((k - a) % step == 0) ax.ticks.push_back({double(k), tick_label(1, k)});
    if (k == b || step != 1) continue;
    // Within a decade: labelled 2 and 5 when the axis is short, else unlabelled 2..9.
    for (int64_t j = 2; j <= 9; ++j) {
      const bool labelled = decades <= 2 && (j == 2 || j == 5);
      if (decades > 2 || labelled) ax.ticks.push_back({std::log10(double(j)) + k, labelled ? tick_label(j, k) : ""});
    }
  }
  std::stable_sort(ax.ticks.begin(), ax.ticks.end(),
                   [](const Tick& x, const Tick& y) { return x.pos < y.pos; });
  return ax;
}

const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                "#9467bd", "#8c564b", "#e377c2", "#17becf"};
const char* const kDashes[] = {"", "6 3", "2 3", "8 3 2 3", "12 4"};
constexpr int kMarkers = 5; // circle, square, triangle, diamond, cross

std::string marker(int kind, double x, double y, const char* colour) {
  const std::string X = px(x), Y = px(y);
  switch (kind) {
  case 0: return "<circle cx=\"" + X + "\" cy=\"" + Y + "\" r=\"3\" fill=\"" + colour + "\"/>";
  case 1:
    return "<rect x=\"" + px(x - 3) + "\" y=\"" + px(y - 3) + "\" width=\"6\" height=\"6\" fill=\"" +
           colour + "\"/>";
  case 2:
    return "<path d=\"M" + X + " " + px(y - 4) + "L" + px(x + 4) + " " + px(y + 3) + "L" + px(x - 4) +
           " " + px(y + 3) + "Z\" fill=\"" + colour + "\"/>";
  case 3:
    return "<path d=\"M" + X + " " + px(y - 4) + "L" + px(x + 4) + " " + Y + "L" + X + " " +
           px(y + 4) + "L" + px(x - 4) + " " + Y + "Z\" fill=\"" + colour + "\"/>";
  default:
    return "<path d=\"M" + px(x - 3.5) + " " + px(y - 3.5) + "L" + px(x + 3.5) + " " + px(y + 3.5) +
           "M" + px(x - 3.5) + " " + px(y + 3.5) + "L" + px(x + 3.5) + " " + px(y - 3.5) +
           "\" stroke=\"" + colour + "\" stroke-width=\"1.5\" fill=\"none\"/>";
  }
}

std::string line(double x1, double y1, double x2, double y2) {
  return "<line x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) + "\" y2=\"" + px(y2) +
         "\"/>\n";
}

std::string describe(double v) {
  char buf[64];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

} // namespace

std::string tick_label(int64_t n, int e) {
  if (n == 0) return "0";
  const bool neg = n < 0;
  std::string d = std::to_string(neg ? -n : n);
  // Normalise: trailing zeros of the digits move into the exponent.
  while (d.size() > 1 && d.back() == '0') {
    d.pop_back();
    ++e;
  }
  std::string s;
  if (e >= 0 && int(d.size()) + e <= 7) {
    s = d + std::string(size_t(e), '0');
  } else if (e < 0 && -e <= 6) {
    const size_t frac = size_t(-e);
    if (d.size() <= frac) d = std::string(frac - d.size() + 1, '0') + d;
    s = d.substr(0, d.size() - frac) + "." + d.substr(d.size() - frac);
  } else {
    s = d.substr(0, 1);
    if (d.size() > 1) s += "." + d.substr(1);
    s += "e" + std::to_string(e + int(d.size()) - 1);
  }
  if (neg) s.insert(s.begin(), '-');
  return s;
}

std::string render_svg(const PlotSpec& spec) {
  const std::string plot_name = "plot \"" + spec.title + "\": ";
  if (spec.width < 160 || spec.height < 120)
    throw std::invalid_argument(plot_name + "size " + std::to_string(spec.width) + " x " +
                                std::to_string(spec.height) + " is below the minimum 160 x 120");

  // Data ranges, with the checks.
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  bool any = false;
  for (const Series& s : spec.series) {
    for (size_t i = 0; i < s.points.size(); ++i) {
      const auto [x, y] = s.points[i];
      const std::string where = plot_name + "series \"" + s.name + "\" point " + std::to_string(i + 1);
      if (!std::isfinite(x) || !std::isfinite(y))
        throw std::invalid_argument(where + " is not finite (" + describe(x) + ", " + describe(y) + ")");
      if (spec.log_x && x <= 0)
        throw std::invalid_argument(where + " has x = " + describe(x) +
                                    ", but the x axis is logarithmic (log_x): every x must be > 0");
      if (spec.log_y && y <= 0)
        throw std::invalid_argument(where + " has y = " + describe(y) +
                                    ", but the y axis is logarithmic (log_y): every y must be > 0");
      if (!any) {
        xmin = xmax = x;
        ymin = ymax = y;
        any = true;
      }
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  }
  if (!any) {
    xmin = ymin = spec.log_x ? 1 : 0;
    xmax = ymax = 10;
    if (spec.log_y) ymin = 1;
    if (spec.log_x) xmin = 1;
  }

  const double W = spec.width, H = spec.height;
  const double top = spec.title.empty() ? 16 : 40, bottom = 50, left = 72, right = 20;
  const double x0 = left, x1 = W - right, y0 = top, y1 = H - bottom;
  const int xtarget = std::max(2, int((x1 - x0) / 90));
  const int ytarget = std::max(2, int((y1 - y0) / 60));
  const Axis ax = spec.log_x ? log_axis(xmin, xmax, xtarget) : linear_axis(xmin, xmax, xtarget);
  const Axis ay = spec.log_y ? log_axis(ymin, ymax, ytarget) : linear_axis(ymin, ymax, ytarget);
  auto X = [&](double v) { return x0 + (ax.map(v) - ax.lo) / (ax.hi - ax.lo) * (x1 - x0); };
  auto Y = [&](double v) { return y1 - (ay.map(v) - ay.lo) / (ay.hi - ay.lo) * (y1 - y0); };
  auto Xa = [&](double pos) { return x0 + (pos - ax.lo) / (ax.hi - ax.lo) * (x1 - x0); };
  auto Ya = [&](double pos) { return y1 - (pos - ay.lo) / (ay.hi - ay.lo) * (y1 - y0); };

  const std::string w = std::to_string(spec.width), h = std::to_string(spec.height);
  std::string o;
  o += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" + h +
       "\" viewBox=\"0 0 " + w + " " + h + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  o += "<title>" + xml_escape(spec.title) + "</title>\n";
  o += "<rect x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h + "\" fill=\"#ffffff\"/>\n";

  // Grid: minor lines first, major over them.
  o += "<g stroke=\"#f0f0f0\" stroke-width=\"1\">\n";
  for (const Tick& t : ax.ticks)
    if (t.label.empty()) o += line(Xa(t.pos), y0, Xa(t.pos), y1);
  for (const Tick& t : ay.ticks)
    if (t.label.empty()) o += line(x0, Ya(t.pos), x1, Ya(t.pos));
  o += "</g>\n<g stroke=\"#d8d8d8\" stroke-width=\"1\">\n";
  for (const Tick& t : ax.ticks)
    if (!t.label.empty()) o += line(Xa(t.pos), y0, Xa(t.pos), y1);
  for (const Tick& t : ay.ticks)
    if (!t.label.empty()) o += line(x0, Ya(t.pos), x1, Ya(t.pos));
  o += "</g>\n";

  // Frame, tick marks, tick labels, axis labels, title.
  o += "<rect x=\"" + px(x0) + "\" y=\"" + px(y0) + "\" width=\"" + px(x1 - x0) + "\" height=\"" +
       px(y1 - y0) + "\" fill=\"none\" stroke=\"#000000\"/>\n";
  o += "<g stroke=\"#000000\">\n";
  for (const Tick& t : ax.ticks) o += line(Xa(t.pos), y1, Xa(t.pos), y1 + (t.label.empty() ? 3 : 5));
  for (const Tick& t : ay.ticks) o += line(x0 - (t.label.empty() ? 3 : 5), Ya(t.pos), x0, Ya(t.pos));
  o += "</g>\n<g text-anchor=\"middle\">\n";
  for (const Tick& t : ax.ticks)
    if (!t.label.empty())
      o += "<text x=\"" + px(Xa(t.pos)) + "\" y=\"" + px(y1 + 18) + "\">" + xml_escape(t.label) + "</text>\n";
  o += "</g>\n<g text-anchor=\"end\">\n";
  for (const Tick& t : ay.ticks)
    if (!t.label.empty())
      o += "<text x=\"" + px(x0 - 8) + "\" y=\"" + px(Ya(t.pos) + 4) + "\">" + xml_escape(t.label) + "</text>\n";
  o += "</g>\n";
  if (!spec.x_label.empty())
    o += "<text x=\"" + px((x0 + x1) / 2) + "\" y=\"" + px(H - 12) + "\" text-anchor=\"middle\">" +
         xml_escape(spec.x_label) + "</text>\n";
  if (!spec.y_label.empty()) {
    const std::string cy = px((y0 + y1) / 2);
    o += "<text x=\"16\" y=\"" + cy + "\" text-anchor=\"middle\" transform=\"rotate(-90 16 " + cy + ")\">" +
         xml_escape(spec.y_label) + "</text>\n";
  }
  if (!spec.title.empty())
    o += "<text x=\"" + px(W / 2) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">" +
         xml_escape(spec.title) + "</text>\n";

  // Series.
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const Series& s = spec.series[i];
    const char* colour = kColours[i % 8];
    const char* dash = kDashes[i % 5];
    o += "<g class=\"series\">\n";
    if (s.points.size() > 1) {
      o += "<polyline fill=\"none\" stroke=\"" + std::string(colour) + "\" stroke-width=\"1.5\"";
      if (*dash) o += " stroke-dasharray=\"" + std::string(dash) + "\"";
      o += " points=\"";
      for (size_t j = 0; j < s.points.size(); ++j) {
        if (j) o += ' ';
        o += px(X(s.points[j].first)) + "," + px(Y(s.points[j].second));
      }
      o += "\"/>\n";
    }
    for (const auto& [x, y] : s.points) o += marker(int(i % kMarkers), X(x), Y(y), colour) + "\n";
    o += "</g>\n";
  }

  // Legend, inside the plot area.
  if (!spec.series.empty()) {
    size_t chars = 0;
    std::vector<std::string> names;
    for (size_t i = 0; i < spec.series.size(); ++i) {
      names.push_back(spec.series[i].name.empty() ? "series " + std::to_string(i + 1) : spec.series[i].name);
      chars = std::max(chars, text_chars(names.back()));
    }
    const double lw = 44 + 7.0 * double(chars), lh = 8 + 16.0 * double(names.size());
    // The corner (top right, top left, bottom right, bottom left; first wins a tie) whose
    // box covers the fewest points of the data, sampling each line segment too.
    std::vector<std::pair<double, double>> samples;
    for (const Series& s : spec.series) {
      for (size_t j = 0; j < s.points.size(); ++j) {
        const double px1 = X(s.points[j].first), py1 = Y(s.points[j].second);
        samples.push_back({px1, py1});
        if (j == 0) continue;
        const double px0 = X(s.points[j - 1].first), py0 = Y(s.points[j - 1].second);
        for (int k = 1; k < 16; ++k)
          samples.push_back({px0 + (px1 - px0) * k / 16, py0 + (py1 - py0) * k / 16});
      }
    }
    const double corners[4][2] = {{x1 - 8 - lw, y0 + 8}, {x0 + 8, y0 + 8}, {x1 - 8 - lw, y1 - 8 - lh}, {x0 + 8, y1 - 8 - lh}};
    size_t best = 0, best_count = SIZE_MAX;
    for (size_t c = 0; c < 4; ++c) {
      size_t count = 0;
      for (const auto& [sx, sy] : samples)
        if (sx >= corners[c][0] - 4 && sx <= corners[c][0] + lw + 4 && sy >= corners[c][1] - 4 &&
            sy <= corners[c][1] + lh + 4)
          ++count;
      if (count < best_count) {
        best = c;
        best_count = count;
      }
    }
    const double lx = corners[best][0], ly = corners[best][1];
    o += "<g class=\"legend\">\n<rect x=\"" + px(lx) + "\" y=\"" + px(ly) + "\" width=\"" + px(lw) +
         "\" height=\"" + px(lh) + "\" fill=\"#ffffff\" fill-opacity=\"0.85\" stroke=\"#999999\"/>\n";
    for (size_t i = 0; i < names.size(); ++i) {
      const char* colour = kColours[i % 8];
      const char* dash = kDashes[i % 5];
      const double cy = ly + 12 + 16.0 * double(i);
      o += "<line x1=\"" + px(lx + 6) + "\" y1=\"" + px(cy) + "\" x2=\"" + px(lx + 30) + "\" y2=\"" + px(cy) +
           "\" stroke=\"" + colour + "\" stroke-width=\"1.5\"";
      if (*dash) o += " stroke-dasharray=\"" + std::string(dash) + "\"";
      o += "/>\n" + marker(int(i % kMarkers), lx + 18, cy, colour) + "\n";
      o += "<text x=\"" + px(lx + 36) + "\" y=\"" + px(cy + 4) + "\">" + xml_escape(names[i]) + "</text>\n";
    }
    o += "</g>\n";
  }
  o += "</svg>\n";
  return o;
}

} // namespace lanaikit::report
