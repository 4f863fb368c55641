// `fedhpa simulate --plot out.svg`: one panel per cluster with its demand (grey area), and for
// each policy simulated its local max (dashed) and replicas (solid) in the policy's colour; time
// in an outage is shaded. The key sits above the panels, so no legend needs hunting.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "federation/simulation/scenario.h"
#include "federation/simulation/simulator.h"

namespace fedhpa::simulation {

void writeSvgPlot(std::ostream& out, const Scenario& scenario, const std::vector<Outcome>& outcomes,
                  const std::string& title);

}  // namespace fedhpa::simulation
