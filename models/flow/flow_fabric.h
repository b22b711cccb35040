// The flow-level fabric (sim.fidelity: flow): every copy is a fluid flow on the platform's
// graph whose rate is its share of each edge it crosses as that edge's egress arbitrates
// (VC arbiter, port arbiter, the flows behind one requester: arbitrated_rates.h),
// recomputed only when a flow starts or has sent its data, or a TC/VC map changes (seed 002
// §3.2 and Algorithm 1, generalised to any graph: flow_scheduler.h). All of a copy's bytes
// are fluid; it completes its fixed latency (the packet model's first TLP:
// flow_network.h), less that TLP's own time at the flow's rate, after its data has all been
// sent. No TLPs or credits: docs/architecture.md, "Flow-level mode", says what this leaves
// out.
#pragma once
#include <array>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>
#include <systemc>
#include "models/common/copy_executor.h"
#include "models/common/link_stats.h"
#include "models/common/progress_guard.h"
#include "models/common/transfer_tracker.h"
#include "models/flow/fidelity_watch.h"
#include "models/flow/flow_network.h"
#include "models/flow/flow_scheduler.h"
#include "models/flow/lockstep_watch.h"

namespace arbsim {

// What results.json needs of an edge beyond the graph: its VCs and TC/VC map (vc_bytes).
struct FlowEdgeVcs {
  int vcs = 1;
  std::array<uint8_t, kNumTcs> tc_to_vc{};
};

class FlowFabric : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(FlowFabric);
  // Per edge: `arbitration[e]` (empty: every edge flat max-min per flow) and what the
  // fidelity watch needs to know of it (`watch[e]`, fidelity_watch.h; empty: no watch).
  FlowFabric(sc_core::sc_module_name name, flow::Network net, const flow::FabricParams& p,
             std::vector<FlowEdgeVcs> vcs, std::vector<flow::EdgeArbitration> arbitration,
             std::vector<int> node_of_endpoint, TransferTracker& tracker);

  struct Copy {
    flow::TransferSpec spec;
    uint8_t tc = 0;
    double rate_GBps = 0;        // a paced copy's own limit (CopyCommand::rate_GBps), 0 = none
    uint64_t transfer = 0;       // TransferTracker id
    uint32_t flow_id = 0;        // the app or device it is for (CopyCommand::flow_id)
    double free_window = -1;     // a read's bytes of the engine's tag window free at its start (-1: all)
    // A read whose engine has all its tags out starts once the first of them is back, as a
    // fresh read (FlowEngine::open()); -1: at once.
    double not_before_ns = -1;
    // A read: when its last request's data come on its engine's timeline, alone
    // (FlowEngine::issue_requests()); -1: not known.
    double last_data_ns = -1;
    // A read deferred behind an earlier read's data from its completer (FlowEngine::open()):
    // when its engine had tags free for it (-1: not yet), and when the requests of the read
    // before it last passed, set as it starts (FlowEngine::read_done()): where that is no
    // sooner, its own requests had gone out with them.
    double tags_free_ns = -1;
    double opened_ns = -1;
    std::function<void()> sent;  // the engine may take its next command (FlowEngine)
    // A read's fluid has gone (after sent(), which a read gets when it has issued its last
    // request): the tags it gives back then are back (FlowEngine::open()).
    std::function<void()> tags_back;
    std::function<double()> engine_queue;  // what its engine holds at a look (WatchFlow::engine_queue)
    std::function<double(double)> submitted_ns;  // (WatchFlow::submitted_ns)
    std::function<std::pair<double, double>()> requests_out;  // (WatchFlow::requests_out)
    std::function<bool()> sole_read;  // a read: no other read of its engine is open or queued
  };
  void start(Copy c);  // now, or at c.not_before_ns
  // When the requests of the read whose end wake() is reporting last passed (Scheduler).
  double ended_read_opened_ns() const { return ended_opened_ns_; }
  // One request of `bytes` (up to MRRS) on `read`'s path: a lone read of it, from its start
  // to its last byte's arrival as the fluid times it, alone on its links (the packet model's
  // engine has the request's tag back then: models/pcie/dma_engine.h, a tag is freed by its
  // request's last completion), and the rate its data move at there (bytes per ns).
  struct RequestTrip {
    double ns = 0, bytes_per_ns = 0;
  };
  RequestTrip request_trip(const flow::TransferSpec& read, uint64_t bytes) const;

  int node_of_endpoint(int k) const { return node_of_endpoint_.at(k); }
  const flow::FabricParams& params() const { return params_; }
  TransferTracker& tracker() { return tracker_; }
  // Link statistics in the packet model's terms: payload and wire bytes (the TLPs the packet
  // model would send), busy time (the fluid's, within the run), bytes per VC; no TLPs,
  // grants or stalls. Complete after finish().
  const EgressStats& edge_stats(int e) const { return stats_.at(e); }
  int edge_vcs(int e) const { return vcs_.at(e).vcs; }
  void set_tc_map(const std::array<uint8_t, kNumTcs>& vc8);  // reshares now
  void set_port_weights(int edge, const std::vector<int>& weights);  // reshares now
  const flow::Scheduler& scheduler() const { return sched_; }
  // What the run did that the fluid does not represent (complete after finish()).
  const flow::FidelityWatch& watch() const { return watch_; }
  // Equal copies of several apps started together on one holding link (lockstep_watch.h).
  const flow::LockstepWatch& lockstep() const { return lockstep_; }
  // The flow ids of the copies in rate computations that fell back to flat max-min.
  const std::set<uint32_t>& unsettled_flows() const { return unsettled_flows_; }
  // Payload bytes of an open transfer that have reached its destination by now on the
  // fluid's timeline (0 once delivered or unknown): what the packet model's tracker counts.
  uint64_t delivered_bytes(uint64_t transfer) const;
  void finish();  // a time-limited run: counts the copies still moving
  // The end of the warm-up (sim.warmup_ns): the link statistics count from now on (finish()
  // takes away what they held now, the moving copies' sent share included).
  void restart_stats();
  // Edge e's busy time up to now inside the statistics window (the fluid read, not moved).
  double busy_ps_now(int e) const;

 private:
  struct Moving {
    Copy copy;
    flow::TransferPlan plan;
    bool released = false;  // its engine has been told it may start its next command
    double tag_cap = 0;     // a read's tag-window cap (flow_network.h); 0 for a write
    std::vector<int> held;  // the edges that held it at its last computation (Scheduler::held)
  };
  struct Due {
    uint64_t transfer = 0, bytes = 0;
    bool posted = false;
    double rate = 0;  // GB/s of its bytes its fluid last moved at: its tail arrives at that rate
  };
  // A write's TLPs still queued before its hold when its engine's next copy overtakes them
  // (overtaken_tail()): a marker flow from the hold on; the copy is due when it ends.
  struct Tail {
    Due due;
    uint64_t due_ps = 0;        // when the copy was due at its fluid's end
    uint64_t latency_ps = 0;    // its fluid's tail then (due_ps less that end)
    uint64_t queued_bytes = 0;  // what the queue before the hold holds of it (delivered_bytes())
  };
  bool overtaken_tail(const Moving& m, double rate, uint64_t due_ps, const Due& d, int last_before);
  int queued_at_hold(const Moving& m) const;
  bool goes_first(const Moving& m, int h, const Moving& next) const;
  void end_tail(int id);
  static double bytes_per_unit(const Moving& m);
  void wake();     // SC_METHOD: flows that have sent their data
  void deliver();  // SC_METHOD: copies whose fixed latency has passed
  void release_engines();  // SC_METHOD: reads whose last request is due now (release_lag_ns)
  double release_lag_ns(const Moving& m, double rate) const;
  // A read's `to_go` requests (of its `requests`, all of MRRS but its last) passing in waves
  // of `wave`: how many waves, and the bytes of the last (1..wave requests, the read's end).
  struct Waves {
    double count = 0, last_bytes = 0;
  };
  static Waves waves_of(double to_go, double wave, double requests, double bytes, double mrrs);
  double in_waves(const flow::TransferSpec& s, const flow::TransferPlan& plan) const;
  double last_wave_ns(const Moving& m, double rate, const flow::Scheduler::QueueHold& hold) const;
  bool own_tags(const Moving& m) const;
  double timeline_pace(const Copy& c, const flow::TransferPlan& plan, double burst) const;
  double completer_delay_ns(const Moving& m) const;
  std::vector<int> slots_on(const std::vector<int>& path, int first) const;
  flow::WatchFlow::CreditPool pool_of(const Moving& m, const flow::CreditLoop& l) const;
  double peak_bytes_per_ns(const Moving& m) const;
  double burst_requests(const Moving& m, double window_tlps) const;
  void schedule();
  // SC_METHOD, a delta cycle after starts and ends (and called after a remap): the rates
  // are recomputed once for all of them (flow_scheduler.h), the fidelity watch looks, the
  // wake-up is rescheduled.
  void rates_changed();
  std::string rate_text(const Moving& m, double rate, const std::vector<int>& held) const;
  void account(const Moving& m, double fraction);
  void account_moving(double at_ns);
  void take_away_warmup();
  void add_bytes(int edge, uint8_t tc, double payload, double wire);
  static double tail_ns(const flow::TransferPlan& plan, double rate);

  flow::Network net_;
  flow::FabricParams params_;
  flow::Scheduler sched_;
  flow::FidelityWatch watch_;
  flow::LockstepWatch lockstep_;
  bool watching_ = false;
  std::vector<FlowEdgeVcs> vcs_;
  std::vector<int> node_of_endpoint_;
  std::vector<EgressStats> stats_;
  std::vector<EgressStats> warmup_;  // what restart_stats() saw (empty: no warm-up)
  double measure_from_ns_ = 0;
  mutable std::vector<double> busy_read_;  // busy_ps_now()'s reading at busy_read_at_ (ps)
  mutable uint64_t busy_read_at_ = 0;
  TransferTracker& tracker_;
  double ended_opened_ns_ = -1;  // (ended_read_opened_ns())
  std::map<int, Moving> moving_;       // by scheduler flow id
  std::unordered_map<uint64_t, int> flow_of_transfer_;  // the moving copies' scheduler ids
  std::map<int, Tail> tails_;                            // overtaken tails by scheduler id
  std::unordered_map<uint64_t, int> tail_of_transfer_;   // their scheduler ids by transfer
  std::set<uint32_t> unsettled_flows_;
  std::multimap<uint64_t, Due> due_;   // by delivery time (ps), then submission order
  // Engines' sent(), and the starts of reads waiting for their tags (start()), by time (ps).
  std::multimap<uint64_t, std::function<void()>> releasing_;
  mutable std::map<std::tuple<int, int, uint64_t>, RequestTrip> round_trips_;  // request_trip() by ends and bytes
  sc_core::sc_event wake_event_, due_event_, settle_event_, release_event_;
  ProgressGuard wake_guard_, deliver_guard_, release_guard_;
};

// One copy engine in the flow-level mode: commands in order; the next starts when the
// current one's data has been sent (a write) or its last request issued (a read: when the
// data a tag window before its end have arrived, FlowFabric::release_lag_ns), as a DMA engine
// starts the next when it has issued the last request (models/pcie/dma_engine.h).
//
// Reads from one completer: it serves requests in order, so a read's data follows the data
// of the engine's earlier reads from it. Such a read starts its fluid when the earlier one's
// has gone (the first one's latency is counted after its fluid, the second one's after its
// start: the two overlap as in the packet model, where the second one's requests go out
// while the first one's data arrives). Its requests, though, go out as soon as the engine's
// tags allow: where the reads whose data is still to come need no more requests than the
// engine has tags, it is issued at once (opened, deferred) and the engine takes its next
// command, a write say, as the packet model's engine does. (Held in the queue, the read held
// the write behind it: 5,260 against 7,637 ns on one copy engine.) Reads from another
// completer start at once, as far as the engine's tags allow (a read that fits them waits
// until as many are free, whatever its completer): their data does not wait for the first
// one's (two sockets' memories: 16.0 against 36.2 us p50).
class FlowEngine : public CopyExecutor {
 public:
  // `slot`: the engine's requester slot at its node's egress (docs/config.md "Port arbiter").
  FlowEngine(FlowFabric& fabric, int node, int slot, int tags);
  void submit(CopyCommand c) override;
  // Commands of different apps submitted within kNearNs of each other while one of them
  // waits (queued, or issuing): the fluid times submissions within a fraction of a
  // microsecond of the packet model's, so there their order in the queue may differ, and
  // each copy moves by whole copies (one engine, a copy_exec and a D2H stream: the stream's
  // p50 20.2 against 55.5 us, silent; found by a user trial). Named by FlowLevelFabric.
  struct NearOrder {
    double first_ns = -1;
    uint64_t times = 0;
    std::set<uint32_t> flows;
  };
  static constexpr double kNearNs = 1000;
  const NearOrder& near_order() const { return near_; }
  // The apps (flow ids) whose copies it has run: one held back or held up moves the others'
  // starts on it in turn (FlowLevelFabric names them with it).
  const std::set<uint32_t>& owners() const { return owners_; }

 private:
  void start_next();
  FlowFabric::Copy open(CopyCommand c, double submitted_at);
  void read_done(int completer, int requests);
  void tags_back_for_deferred();
  int requests(uint64_t bytes) const;
  FlowFabric& fabric_;
  int node_, slot_, tags_;
  std::deque<CopyCommand> pending_;
  // When each pending command, and the one issuing, was submitted, and for which app.
  std::deque<std::pair<double, uint32_t>> pending_at_;
  std::pair<double, uint32_t> issuing_at_{-1e300, 0};
  NearOrder near_;
  std::set<uint32_t> owners_;
  bool busy_ = false;  // a command is issuing
  // Reads whose fluid has not gone, by completer node: how many, and their deferred ones
  // (issued, their fluid to start in turn).
  std::map<int, int> reading_;
  std::map<int, std::deque<FlowFabric::Copy>> deferred_;
  int outstanding_requests_ = 0;  // requests of reads not yet given back (open(): when)
  // The requests opened at opened_ns_ (this instant's pile: WatchFlow::engine_queue).
  double opened_ns_ = -1;
  int opened_now_ = 0;
  double piled_requests() const;
  bool sole_read() const;
  std::pair<double, double> requests_out() const;
  double queued_write_tlps() const;
  double submitted_ns(double k) const;
  double write_tlps(const CopyCommand& c) const;
  int tags_in_flight_ = 0;  // tags of reads whose data have not all arrived (free_window)
  // The engine's tags on its timeline of soonest times (issue_requests()): how many have been
  // free from the start, and when each other one is back, in the order they went out (a ring
  // of tags_ slots); not followed after a read of kPooledTlps requests or more.
  static constexpr double kLongAgo = -1e300;
  int free_tags_ = 0;
  std::vector<double> tag_back_ns_;  // a ring: tags_back_ of them from tag_head_ on
  std::size_t tag_head_ = 0, tags_back_ = 0;
  bool following_ = true;
  double last_request_ns_ = kLongAgo;  // the soonest its last request went out
  double last_data_ns_ = kLongAgo;     // the soonest that request's data came in
  struct Issued {
    double first_out = 0;   // its first request went out
    double last_data = -1;  // its last request's data came in (-1: not known)
  };
  Issued issue_requests(const flow::TransferSpec& read, double submitted_at, int free_now);
  bool timeline_behind(double trip_ns, int free_now) const;
};

}  // namespace arbsim
