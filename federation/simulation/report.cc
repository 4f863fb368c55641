#include "federation/simulation/report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace fedhpa::simulation {
namespace {

using nlohmann::ordered_json;

std::string name(partitioner::Policy::Kind kind) { return std::string(partitioner::policyName(kind)); }

// Replica-seconds are sums of whole replicas over whole steps, up to the linear demand: keep
// three decimals so the JSON stays exact enough to compare and short enough to read.
double rounded(double value, double scale = 1000) { return std::round(value * scale) / scale; }

// Every rise when there are a few; otherwise how many, the median and worst, and how many never
// caught up before the next rise.
std::string adaptationSummary(const std::vector<Adaptation>& adaptations) {
  std::ostringstream text;
  if (adaptations.empty()) return "-";
  if (adaptations.size() <= 4) {
    for (const Adaptation& a : adaptations) {
      text << (&a == &adaptations.front() ? "" : ", ") << a.cluster << "@" << a.risesAt << "s ";
      if (a.seconds) text << *a.seconds;
      else text << "never";
    }
    return text.str();
  }
  std::vector<double> caughtUp;
  for (const Adaptation& a : adaptations)
    if (a.seconds) caughtUp.push_back(*a.seconds);
  std::sort(caughtUp.begin(), caughtUp.end());
  text << adaptations.size() << " rises";
  if (!caughtUp.empty()) text << ": median " << caughtUp[caughtUp.size() / 2] << ", worst " << caughtUp.back();
  text << ", never " << adaptations.size() - caughtUp.size();
  return text.str();
}

// "23h59m", "14m05s": a recording's span at a glance.
std::string hoursAndMinutes(double seconds) {
  const auto whole = static_cast<long long>(std::llround(seconds));
  std::ostringstream text;
  text << std::setfill('0');
  if (whole >= 3600) text << whole / 3600 << "h" << std::setw(2) << whole % 3600 / 60 << "m";
  else text << whole / 60 << "m" << std::setw(2) << whole % 60 << "s";
  return text.str();
}

}  // namespace

ordered_json replaySummaryJson(const ReplaySummary& summary) {
  ordered_json partial = ordered_json::array();
  for (const PartialSeries& p : summary.partialSeries)
    partial.push_back({{"series", p.name}, {"fromSeconds", rounded(p.fromSeconds)}, {"toSeconds", rounded(p.toSeconds)}});
  return {{"series", summary.series},
          {"start", summary.start},
          {"spanSeconds", rounded(summary.spanSeconds)},
          {"stepSeconds", summary.stepSeconds ? ordered_json(rounded(*summary.stepSeconds)) : ordered_json(nullptr)},
          {"missingPoints", summary.missingPoints},
          {"nanValues", summary.nanValues},
          {"clustersWithoutSeries", summary.clustersWithoutSeries},
          {"partialSeries", partial},
          {"warnings", summary.warnings}};
}

void printReplaySummary(std::ostream& out, const ReplaySummary& summary) {
  out << "recording: " << summary.series << " series from " << summary.start << " over " << hoursAndMinutes(summary.spanSeconds);
  if (summary.stepSeconds) out << ", step " << rounded(*summary.stepSeconds) << " s";
  if (summary.missingPoints)
    out << "; " << summary.missingPoints << (summary.missingPoints == 1 ? " point" : " points") << " missing ("
        << summary.nanValues << " NaN), bridged linearly";
  out << "\n";
  for (const std::string& cluster : summary.clustersWithoutSeries)
    out << "recording: no series for " << cluster << ", so it has no demand\n";
  for (const PartialSeries& p : summary.partialSeries)
    out << "recording: " << p.name << " has samples from " << hoursAndMinutes(p.fromSeconds) << " to " << hoursAndMinutes(p.toSeconds)
        << " only, and no demand outside\n";
  for (const std::string& warning : summary.warnings) out << "recording: Prometheus warned: " << warning << "\n";
}

ordered_json reportJson(const std::vector<Outcome>& outcomes) {
  ordered_json policies = ordered_json::object();
  for (const Outcome& o : outcomes) {
    ordered_json adapt = ordered_json::array();
    for (const Adaptation& a : o.adaptations) adapt.push_back(a.seconds ? ordered_json(*a.seconds) : ordered_json(nullptr));
    policies[name(o.policy)] = {{"tracking", rounded(o.tracking(), 1e6)},
                                {"servedReplicaSeconds", rounded(o.servedReplicaSeconds)},
                                {"referenceReplicaSeconds", rounded(o.referenceReplicaSeconds)},
                                {"unmetReplicaSeconds", rounded(o.unmetReplicaSeconds)},
                                {"peakUnmet", rounded(o.peakUnmet)},
                                {"limitChanges", o.limitChanges},
                                {"adaptSeconds", adapt}};
  }
  return {{"policies", policies}};
}

void printTable(std::ostream& out, const std::vector<Outcome>& outcomes) {
  out << "replica-seconds (r*s): demand served, integrated over the scenario; the reference is one shared pool\n";
  out << std::left << std::setw(8) << "POLICY" << std::right << std::setw(10) << "TRACKING" << std::setw(14) << "SERVED r*s"
      << std::setw(15) << "REFERENCE r*s" << std::setw(12) << "UNMET r*s" << std::setw(12) << "PEAK UNMET" << std::setw(15)
      << "LIMIT CHANGES" << "  ADAPT (s per demand rise)\n";
  for (const Outcome& o : outcomes) {
    std::ostringstream row;
    row << std::left << std::setw(8) << name(o.policy) << std::right << std::fixed << std::setprecision(3) << std::setw(10)
        << o.tracking() << std::setprecision(0) << std::setw(14) << o.servedReplicaSeconds << std::setw(15)
        << o.referenceReplicaSeconds << std::setw(12) << o.unmetReplicaSeconds << std::setprecision(1) << std::setw(12)
        << o.peakUnmet << std::setw(15) << o.limitChanges << "  " << adaptationSummary(o.adaptations);
    out << row.str() << "\n";
  }
}

void printMarkdown(std::ostream& out, const std::vector<NamedOutcomes>& scenarios) {
  out << "| scenario | policy | tracking | served r·s | reference r·s | unmet r·s | peak unmet | limit changes | adapt s |\n"
      << "|---|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const NamedOutcomes& s : scenarios)
    for (const Outcome& o : s.outcomes) {
      std::ostringstream row;
      row << std::fixed << "| " << s.scenario << " | " << name(o.policy) << " | " << std::setprecision(3) << o.tracking() << " | "
          << std::setprecision(0) << o.servedReplicaSeconds << " | " << o.referenceReplicaSeconds << " | " << o.unmetReplicaSeconds
          << " | " << std::setprecision(1) << o.peakUnmet << " | " << o.limitChanges << " | "
          << adaptationSummary(o.adaptations) << " |";
      out << row.str() << "\n";
    }
  out << "\n";
  for (const NamedOutcomes& s : scenarios)
    if (!s.description.empty()) out << "- " << s.description << "\n";
}

}  // namespace fedhpa::simulation
