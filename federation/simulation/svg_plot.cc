#include "federation/simulation/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>

namespace fedhpa::simulation {
namespace {

constexpr double kMargin = 20;
constexpr double kHeader = 58;
constexpr double kAxisLeft = 38;
constexpr double kAxisBottom = 20;
constexpr double kTitleHeight = 16;
constexpr std::size_t kMostPointsPerLine = 800;

const char* colour(partitioner::Policy::Kind kind) {
  return kind == partitioner::Policy::Kind::Demand ? "#1f77b4" : "#d62728";
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

std::string timeLabel(double seconds, double span) {
  std::ostringstream text;
  if (span > 4 * 3600) text << std::lround(seconds / 3600) << "h";
  else text << std::lround(seconds / 60) << "m";
  return text.str();
}

// A panel's coordinate system: seconds and replicas to pixels.
struct Frame {
  double x, y, width, height;  // the plotting area
  double duration, top;        // the data range: [0, duration] × [0, top]
  double px(double seconds) const { return x + width * seconds / duration; }
  double py(double replicas) const { return y + height - height * replicas / top; }
};

// Every `stride`-th sample is drawn, so a 24 h scenario stays a small file.
std::size_t strideFor(std::size_t samples) { return std::max<std::size_t>(1, samples / kMostPointsPerLine); }

template <typename Value>
void polyline(std::ostream& out, const Frame& f, const std::vector<double>& seconds, const Value& value, const char* stroke,
              const char* extra) {
  const std::size_t stride = strideFor(seconds.size());
  std::ostringstream points;
  bool open = false;
  auto flush = [&] {
    if (open) out << "<polyline fill=\"none\" stroke=\"" << stroke << "\" stroke-width=\"1.4\" " << extra << " points=\"" << points.str() << "\"/>\n";
    points.str("");
    open = false;
  };
  double lastY = 0;
  for (std::size_t i = 0; i < seconds.size(); i += stride) {
    const auto v = value(i);
    if (!v) {  // a gap: no HPA in this cluster then
      flush();
      continue;
    }
    const double y = f.py(*v);
    // Limits and replicas change in steps: draw them as steps, not slopes.
    if (open) points << f.px(seconds[i]) << "," << lastY << " ";
    points << f.px(seconds[i]) << "," << y << " ";
    lastY = y;
    open = true;
  }
  flush();
}

void panel(std::ostream& out, const Scenario& scenario, const std::vector<Outcome>& outcomes, const std::string& cluster,
           const Frame& f) {
  const auto& seconds = outcomes.front().timeline.seconds;
  const auto& demand = outcomes.front().timeline.clusters.at(cluster);
  out << "<rect x=\"" << f.x << "\" y=\"" << f.y << "\" width=\"" << f.width << "\" height=\"" << f.height
      << "\" fill=\"#fafafa\" stroke=\"#bbb\"/>\n";
  for (const Outage& o : scenario.outages)
    if (o.cluster == cluster) {
      const double from = std::min(o.from, f.duration), to = std::min(o.to, f.duration);
      out << "<rect x=\"" << f.px(from) << "\" y=\"" << f.y << "\" width=\"" << f.px(to) - f.px(from) << "\" height=\"" << f.height
          << "\" fill=\"#f4cccc\"/>\n<text x=\"" << f.px(from) + 3 << "\" y=\"" << f.y + 11
          << "\" font-size=\"10\" fill=\"#a33\">outage</text>\n";
    }
  // Demand: a grey area under the curve.
  const std::size_t stride = strideFor(seconds.size());
  out << "<polygon fill=\"#cfcfcf\" stroke=\"#999\" stroke-width=\"0.8\" points=\"" << f.px(0) << "," << f.py(0) << " ";
  for (std::size_t i = 0; i < seconds.size(); i += stride) out << f.px(seconds[i]) << "," << f.py(demand[i].demand) << " ";
  out << f.px(seconds.back()) << "," << f.py(0) << "\"/>\n";
  for (const Outcome& o : outcomes) {
    const auto& samples = o.timeline.clusters.at(cluster);
    polyline(out, f, seconds, [&](std::size_t i) { return samples[i].max ? std::optional<double>(*samples[i].max) : std::nullopt; },
             colour(o.policy), "stroke-dasharray=\"5,3\"");
    polyline(out, f, seconds, [&](std::size_t i) { return std::optional<double>(samples[i].up ? samples[i].replicas : 0); },
             colour(o.policy), "");
  }
  // Axes: replicas 0 and top, time at quarters.
  out << "<text x=\"" << f.x - 4 << "\" y=\"" << f.y + 8 << "\" font-size=\"10\" text-anchor=\"end\">" << f.top << "</text>\n"
      << "<text x=\"" << f.x - 4 << "\" y=\"" << f.y + f.height << "\" font-size=\"10\" text-anchor=\"end\">0</text>\n";
  for (int q = 0; q <= 4; ++q) {
    const double s = f.duration * q / 4;
    out << "<text x=\"" << f.px(s) << "\" y=\"" << f.y + f.height + 13 << "\" font-size=\"10\" text-anchor=\"middle\">"
        << timeLabel(s, f.duration) << "</text>\n";
  }
  out << "<text x=\"" << f.x << "\" y=\"" << f.y - 4 << "\" font-size=\"12\" font-weight=\"bold\">" << escape(cluster) << "</text>\n";
}

}  // namespace

void writeSvgPlot(std::ostream& out, const Scenario& scenario, const std::vector<Outcome>& outcomes, const std::string& title) {
  const std::size_t panels = scenario.clusters.size();
  const std::size_t columns = panels <= 4 ? 1 : panels <= 12 ? 2 : 5;
  const std::size_t rows = (panels + columns - 1) / columns;
  const double panelWidth = columns == 1 ? 860 : columns == 2 ? 440 : 260;
  const double panelHeight = columns == 5 ? 110 : 170;
  const double cellWidth = kAxisLeft + panelWidth + kMargin;
  const double cellHeight = kTitleHeight + panelHeight + kAxisBottom + 6;
  const double width = std::max(kMargin + columns * cellWidth, 220.0 + 375.0 * outcomes.size());
  const double height = kHeader + rows * cellHeight + kMargin;

  // One vertical scale for every panel, so clusters compare at a glance.
  double top = 1;
  for (const Outcome& o : outcomes)
    for (const auto& [name, samples] : o.timeline.clusters)
      for (const ClusterSample& s : samples) top = std::max({top, s.demand, static_cast<double>(s.replicas), static_cast<double>(s.max.value_or(0))});
  top = std::ceil(top * 1.05);

  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width
      << " " << height << "\" font-family=\"sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << kMargin << "\" y=\"22\" font-size=\"15\" font-weight=\"bold\">" << escape(title) << "</text>\n";
  // The key: grey area for demand, then per policy a solid and a dashed stroke.
  double keyX = kMargin;
  const double keyY = 42;
  out << "<rect x=\"" << keyX << "\" y=\"" << keyY - 9 << "\" width=\"18\" height=\"10\" fill=\"#cfcfcf\" stroke=\"#999\"/>"
      << "<text x=\"" << keyX + 24 << "\" y=\"" << keyY << "\" font-size=\"12\">demand (replicas at target)</text>\n";
  keyX += 200;
  for (const Outcome& o : outcomes) {
    const std::string policy(partitioner::policyName(o.policy));
    out << "<line x1=\"" << keyX << "\" y1=\"" << keyY - 4 << "\" x2=\"" << keyX + 22 << "\" y2=\"" << keyY - 4 << "\" stroke=\""
        << colour(o.policy) << "\" stroke-width=\"2\"/><text x=\"" << keyX + 28 << "\" y=\"" << keyY << "\" font-size=\"12\" fill=\""
        << colour(o.policy) << "\">" << policy << " policy: replicas</text>\n";
    keyX += 180;
    out << "<line x1=\"" << keyX << "\" y1=\"" << keyY - 4 << "\" x2=\"" << keyX + 22 << "\" y2=\"" << keyY - 4 << "\" stroke=\""
        << colour(o.policy) << "\" stroke-width=\"2\" stroke-dasharray=\"5,3\"/><text x=\"" << keyX + 28 << "\" y=\"" << keyY
        << "\" font-size=\"12\" fill=\"" << colour(o.policy) << "\">" << policy << " policy: local max</text>\n";
    keyX += 195;
  }

  std::vector<std::string> names = scenario.clusters;
  std::sort(names.begin(), names.end());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::size_t column = i % columns, row = i / columns;
    Frame frame{kMargin + column * cellWidth + kAxisLeft, kHeader + row * cellHeight + kTitleHeight, panelWidth, panelHeight,
                static_cast<double>(scenario.duration.count()), top};
    panel(out, scenario, outcomes, names[i], frame);
  }
  out << "</svg>\n";
}

}  // namespace fedhpa::simulation
