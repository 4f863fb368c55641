#include "partitioner/reasons.h"

#include <charconv>
#include <string_view>

#include "partitioner/cluster_view.h"

namespace fedhpa::partitioner {
namespace {

// Appends `value` in decimal (shortest round-trip form for a double; no temporary string).
template <typename Number>
void appendNumber(std::string& text, Number value) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec == std::errc()) text.append(buffer, static_cast<std::size_t>(end - buffer));
}

// "4/4 replicas at 92% > 50% target" (CPU only) or "4/4 replicas at http_requests_per_second 25 >
// 10 per pod target, need 10" (a metric list): how a status reads in a reason.
void appendUsage(std::string& text, const Usage& usage) {
  appendNumber(text, usage.current);
  text += '/';
  appendNumber(text, usage.max);
  text += " replicas";
  if (usage.byMetric) {
    const MetricReading& m = usage.metric;
    const char* unit = m.target == MetricReading::Target::Utilization ? "%" : "";
    text += " at ";
    text += m.name;
    text += ' ';
    appendNumber(text, m.current.value_or(0));
    text += unit;
    text += m.current.value_or(0) > m.targetValue ? " > " : " <= ";
    appendNumber(text, m.targetValue);
    text += unit;
    text += m.target == MetricReading::Target::AverageValue ? " per pod target" : " target";
    if (usage.need) {
      text += ", need ";
      appendNumber(text, *usage.need);
    }
  } else if (usage.cpuUtilizationPercent) {
    text += " at ";
    appendNumber(text, *usage.cpuUtilizationPercent);
    text += '%';
    if (usage.cpuTarget) {
      text += *usage.cpuUtilizationPercent > *usage.cpuTarget ? " > " : " <= ";
      appendNumber(text, *usage.cpuTarget);
      text += "% target";
    }
  } else if (usage.need) {
    text += ", need ";
    appendNumber(text, *usage.need);
  }
  if (usage.limitedByMaxReplicas) text += " (ScalingLimited: TooManyReplicas)";
}

// "max 3 -> 5" or "min 1 -> 2", and ", min 1 -> 2" after a max when the min moved too.
void appendChange(std::string& text, std::string_view what, Replicas from, Replicas to) {
  text += what;
  text += ' ';
  appendNumber(text, from);
  text += " -> ";
  appendNumber(text, to);
}

void appendLimitsChange(std::string& text, const Cause& cause) {
  appendChange(text, "max", cause.before.max, cause.after.max);
  if (cause.after.min != cause.before.min) {
    text += ", ";
    appendChange(text, "min", cause.before.min, cause.after.min);
  }
}

// ": received max 2 from member2, 1 from member3" or ": gave min 1 to member1".
void appendTransfers(std::string& text, const Plan& plan, const Cause& cause, bool received,
                     std::string_view what) {
  text += received ? ": received " : ": gave ";
  text += what;
  for (std::size_t k = 0; k < cause.transferCount; ++k) {
    const Transfer& t = plan.transfers[cause.firstTransfer + k];
    text += k == 0 ? " " : ", ";
    appendNumber(text, t.amount);
    text += received ? " from " : " to ";
    text += plan.clusters[received ? t.from : t.to].name;
  }
}

void appendCause(std::string& text, const Plan& plan, const Cause& cause, const Usage& usage) {
  using Kind = Cause::Kind;
  const auto usageInParentheses = [&](std::string_view before) {
    text += before;
    text += " (";
    appendUsage(text, usage);
    text += ')';
  };
  switch (cause.kind) {
    case Kind::InitialSpread:
      text += "initial spread: max ";
      appendNumber(text, cause.after.max);
      text += " of ";
      appendNumber(text, cause.federated);
      text += " over ";
      appendNumber(text, static_cast<Replicas>(plan.clusters.size()));
      text += " clusters";
      return;
    case Kind::FederatedMaxLowered:
    case Kind::FederatedMaxRaised:
      // The plan sees the sum of the members' max, not the spec's history: the sum may be off
      // because the user changed the federated max, or because a write of the last pass failed.
      text += cause.kind == Kind::FederatedMaxLowered ? "fitting the federated max of "
                                                      : "filling the federated max of ";
      appendNumber(text, cause.federated);
      text += ": ";
      appendLimitsChange(text, cause);
      return;
    case Kind::NewClusterReceived:
      text += "new cluster";
      appendTransfers(text, plan, cause, true, "max");
      return;
    case Kind::UnusedMaxGave:
      usageInParentheses("unused max");
      appendTransfers(text, plan, cause, false, "max");
      return;
    case Kind::SaturatedReceivedMax:
      usageInParentheses("saturated");
      appendTransfers(text, plan, cause, true, "max");
      return;
    case Kind::ReclaimGave:
      text += "holds more than it needs (";
      appendUsage(text, usage);
      text += "; keeps need ";
      appendNumber(text, usage.need.value_or(0));
      text += " + margin ";
      appendNumber(text, reclaimMargin(usage.need.value_or(0)));
      text += ')';
      appendTransfers(text, plan, cause, false, "max");
      return;
    case Kind::SaturatedReceivedMin:
      text += "saturated";
      appendTransfers(text, plan, cause, true, "min");
      return;
    case Kind::IdleAtMinGave:
      text += "idle at its min";
      appendTransfers(text, plan, cause, false, "min");
      return;
    case Kind::FederatedMin:
      text += "federated min ";
      appendNumber(text, cause.federated);
      text += ": ";
      appendChange(text, "min", cause.before.min, cause.after.min);
      return;
    case Kind::WeightedShare:
      text += "share by static weight of the federated max of ";
      appendNumber(text, cause.federated);
      text += ": ";
      appendLimitsChange(text, cause);
      return;
    case Kind::KubefedNewCluster:
    case Kind::KubefedSaturated:
    case Kind::KubefedGives:
    case Kind::KubefedReceives:
      if (cause.kind == Kind::KubefedNewCluster) text += "new cluster";
      if (cause.kind == Kind::KubefedSaturated) usageInParentheses("saturated");
      if (cause.kind == Kind::KubefedGives) usageInParentheses("gives");
      if (cause.kind == Kind::KubefedReceives) text += "receives";
      text += ": ";
      appendLimitsChange(text, cause);
      text += " (kubefed v1 schedule)";
      return;
  }
}

void appendNote(std::string& text, const Plan& plan, const Note& note) {
  switch (note.kind) {
    case Note::Kind::MaxBelowOne:
      text += "federated maxReplicas must be at least 1: nothing to place";
      return;
    case Note::Kind::NoEligibleCluster:
      text += "no eligible cluster: nothing to place (no Ready member matches the selector)";
      return;
    case Note::Kind::NewClusterWaits:
      text += "a new cluster waits: no cluster has unused max to give";
      return;
    case Note::Kind::SaturatedUnserved:
      text += plan.clusters[note.cluster].name;
      text += " saturated (";
      appendUsage(text, note.usage);
      text += ')';
      if (note.more > 0) {
        text += " and ";
        appendNumber(text, static_cast<Replicas>(note.more));
        text += " more saturated cluster(s)";
      }
      text += " but no cluster has unused max to give";
      return;
    case Note::Kind::CapsExceeded:
      text += "preference maxReplicas caps sum below the federated max; exceeded";
      return;
    case Note::Kind::KubefedInvalid:
      text += "kubefed v1 would write invalid limits here (";
      text += note.text;
      text += "); current limits fitted to the spec instead";
      return;
    case Note::Kind::KubefedNeverFinishes:
      text += "kubefed v1 would never finish here; current limits fitted to the spec instead";
      return;
  }
}

}  // namespace

std::string reasonFor(const Plan& plan, const Move& move) {
  if (move.causeCount == 0 && !move.note.empty()) return move.note;
  if (move.causeCount == 0) return move.after ? "limits adjusted" : "no share left for this cluster";
  std::string text;
  for (std::size_t k = 0; k < move.causeCount; ++k) {
    if (k > 0) text += "; ";
    appendCause(text, plan, plan.causes[move.firstCause + k], move.usage);
  }
  return text;
}

std::string summaryOf(const Plan& plan) {
  std::string text;
  if (plan.clusters.empty()) {  // nothing placed: the notes say why
    for (const Note& note : plan.notes) {
      if (!text.empty()) text += "; ";
      appendNote(text, plan, note);
    }
    return text;
  }
  std::size_t holders = 0;
  for (const ClusterPlan& c : plan.clusters) holders += c.limits.has_value();
  text += "min ";
  appendNumber(text, plan.federated.min);
  text += ", max ";
  appendNumber(text, plan.federated.max);
  text += " over ";
  appendNumber(text, static_cast<Replicas>(holders));
  text += " of ";
  appendNumber(text, static_cast<Replicas>(plan.clusters.size()));
  text += " clusters; ";
  if (plan.moves.empty()) {
    text += "no change";
  } else {
    appendNumber(text, static_cast<Replicas>(plan.moves.size()));
    text += " cluster(s) changed";
  }
  for (const Note& note : plan.notes) {
    text += "; ";
    appendNote(text, plan, note);
  }
  return text;
}

}  // namespace fedhpa::partitioner
