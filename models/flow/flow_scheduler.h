// The event loop of seed 002 Algorithm 1 (ComputeNextEvent), generalised to any graph and
// to flows that start while others run: rates are constant between events and recomputed
// by max-min fair sharing (max_min.h), or as each edge's egress arbitrates when the edges
// have arbitrations (arbitrated_rates.h), only when a flow starts or finishes ("the throughput
// of concurrent data transfers is constant as long as no transfer starts or completes",
// seed 002 §3.2). Times in ns, volumes in bytes, rates in bytes/ns (GB/s). Plain C++.
#pragma once
#include <cstddef>
#include <array>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>
#include "models/flow/arbitrated_rates.h"
#include "models/flow/max_min.h"

namespace arbsim::flow {

class Scheduler {
 public:
  // Without `arbitration` (or with an empty one) every edge shares flat max-min per flow;
  // with one, arbitration[e] is edge e's (arbitrated_rates.h).
  explicit Scheduler(std::vector<double> capacity, std::vector<EdgeArbitration> arbitration = {});
  // Rates are recomputed for the flows a start or an end can affect: those connected to it
  // through shared edges that can bind (its component), not every running flow. An edge
  // whose flows, each at the most it can ever move, fit in its capacity never holds anyone
  // back under any arbiter (each divides work-conservingly), so it is left out: it
  // neither joins components nor enters the rate computation.

  // Moves every flow on to `now_ns` at its current rate, removes the flows that have sent
  // their whole volume and returns their ids (ascending); the others' rates are recomputed.
  std::vector<int> advance(double now_ns);
  // The rates the flows the last advance() removed last moved at (over the last interval in
  // which they moved: a share recomputed at the instant a flow runs out, because another
  // starts then, is not the rate it finished at), in its order.
  const std::vector<double>& finished_rates() const { return finished_rates_; }
  // A flow of `volume` bytes starts at `now_ns` (call advance(now_ns) first, so flows that
  // finish by then do not share the new rates). Returns its id.
  int add(double now_ns, double volume, FlowSpec spec);
  double next_finish_ns() const;  // when the next flow runs out; kUnbounded when none runs
  // Reprograms edge `edge`'s TC/VC map from `now_ns` on (a driver policy's remap); reshare()
  // then recomputes the rates (once for all the edges a remap changes).
  void set_tc_map(double now_ns, int edge, const std::array<uint8_t, 8>& tc_to_vc);
  void reshare(double now_ns);
  // Reloads edge `edge`'s port weights (a WRR port arbiter's table, driver.share_control);
  // reshare() applies them. Throws std::logic_error without arbitration.
  void set_port_weights(double now_ns, int edge, const std::vector<double>& weights);
  // Recomputations whose iteration did not settle (arbitrated_rates.h).
  int unsettled() const { return unsettled_; }

  bool running(int id) const { return flows_.count(id) > 0; }
  double rate(int id) const { return flows_.at(id).rate; }
  double sent(int id) const { return flows_.at(id).volume - flows_.at(id).left; }
  std::size_t running_count() const { return flows_.size(); }
  double now_ns() const { return now_; }
  // Time edge e has been busy so far: the integral of its flows' rate x weight / capacity
  // (<= the elapsed time: max-min never fills an edge beyond its capacity).
  double busy_ns(int e) const { return busy_.at(e); }
  // What progress to `now_ns` (>= now_ns()) would make sent(id) and every busy_ns(e), the
  // flows left untouched (a flow due to end then is still there for advance() to retire).
  double sent_at(int id, double now_ns) const;
  std::vector<double> busy_ns_at(double now_ns) const;
  // The edge that limits a running flow's rate (-1: its cap, or nothing), as last computed.
  int bottleneck(int id) const { return flows_.at(id).bottleneck; }

 private:
  struct Running {
    double volume = 0, left = 0, rate = 0;
    double moved_at = -1;  // the rate over its last interval of positive length (-1: none yet)
    int bottleneck = -1;
    double most = kUnbounded;  // the most it can ever move: its cap, or its slowest edge alone
    FlowSpec spec;
  };
  void progress(double now_ns);
  // Recomputes the rates of the component of `edges` (every running flow when empty).
  void recompute(const std::vector<int>& edges = {});
  std::vector<int> component(const std::vector<int>& edges) const;
  bool can_bind(int edge) const;
  void unindex(int id, const FlowSpec& spec);

  std::vector<double> capacity_;
  std::vector<EdgeArbitration> arbitration_;
  int unsettled_ = 0;
  std::vector<double> busy_;  // [edge] ns
  std::map<int, Running> flows_;
  std::vector<std::vector<int>> on_edge_;  // [edge] ids of the running flows crossing it
  std::vector<double> finished_rates_;
  double now_ = 0;
  int next_id_ = 0;
};

}  // namespace arbsim::flow
