#include <gtest/gtest.h>
#include "platforms/simulation.h"
using namespace arbsim;
TEST(Smoke, DefaultRuns) {
  Config c = load_config("configs/default.yaml", {});
  SimOutcome o = simulate(c);
  EXPECT_GT(o.results["tlp_hops"].get<uint64_t>(), 0u);
}
