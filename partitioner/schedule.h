// The working state both policies build a plan in: one Limits per cluster ({0, 0} = no HPA)
// and, per cluster, the reasons for what happened to it.
#pragma once

#include <string>
#include <vector>

#include "partitioner/cluster_view.h"
#include "partitioner/types.h"

namespace fedhpa::partitioner {

struct Schedule {
  std::vector<Limits> limits;
  std::vector<std::vector<std::string>> reasons;  // per cluster, in the order they arose
  std::vector<std::string> notes;                 // plan-wide remarks for the summary

  static Schedule current(const std::vector<ClusterView>& views) {
    Schedule schedule;
    schedule.reasons.resize(views.size());
    for (const ClusterView& view : views) schedule.limits.push_back(view.limits);
    return schedule;
  }

  std::vector<Replicas> maxes() const {
    std::vector<Replicas> values;
    for (const Limits& l : limits) values.push_back(l.max);
    return values;
  }
  void because(std::size_t cluster, std::string reason) {
    reasons[cluster].push_back(std::move(reason));
  }
};

}  // namespace fedhpa::partitioner
