// Copies of different apps, equal in size, that start at the same instant and are held by
// one link at one rate, again and again (the same pair of apps at least twice): a tie the
// fluid keeps. It moves them alike to the byte and ends them together,
// where the packet model's arbitration lets one lead by a TLP from the first grant; what each
// app does next (a kernel, its next copy) then starts apart, and apps that repeat drift out
// of step in the packet model while the fluid keeps them in step (two identical copy-then-
// execute apps behind one switch: makespan 2.10 ms in the fluid against 1.81 ms, found by a
// user trial; docs/gpu-sharing.md "MIG instances" measures the same drift). Named per link in
// fidelity_notes (platforms/flow_level_fabric.cpp); plain C++, no kernel.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace arbsim::flow {

class LockstepWatch {
 public:
  struct Seen {
    double first_ns = 0;
    uint64_t times = 0;
    std::set<uint32_t> flows;  // the apps' flow ids
  };
  using Pair = std::pair<uint32_t, uint32_t>;  // two apps' flow ids, the lower first
  // Flow `id` of app `flow` started `bytes` at `at_ps`.
  void started(int id, uint32_t flow, uint64_t bytes, uint64_t at_ps);
  // Whether a start is still to be looked at (settle() has something to do).
  bool pending() const { return unsettled_ > 0; }
  // After the rates at `at_ps` are computed: `held(id)` is the links that hold flow `id` at
  // its rate (empty once it has ended), `rate(id)` that rate. Pairs started then that one
  // link holds at one rate are a tie.
  void settle(uint64_t at_ps, const std::function<std::vector<int>(int)>& held, const std::function<double(int)>& rate);
  // The ties of pairs of apps tied at least twice, by the link that held them: one tie moves
  // a copy's end by a TLP at most; repeated, the apps stay in step (empty: none).
  std::map<int, Seen> ties() const;

 private:
  struct Start {
    int id;
    uint32_t flow;
    uint64_t bytes;
    bool settled;  // looked at by a settle() already
  };
  void tie(const Start& a, const Start& b, int link);
  uint64_t at_ps_ = 0;
  std::vector<Start> starts_;  // the flows started at at_ps_
  std::size_t unsettled_ = 0;  // of them, those no settle() has looked at
  std::map<Pair, std::map<int, Seen>> ties_;  // by pair of apps, then link
};

}  // namespace arbsim::flow
