#include "platforms/model_notes.h"
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <variant>
#include "models/host/engine_choice.h"
#include "platforms/topology/batch_model.h"
#include "platforms/topology/topology.h"

namespace arbsim {

const char* const kBatchSubmitEffect =
    "the batch predictions leave the copies' submission cost out (seed 002's model has none): each copy reaches its "
    "engine copy_submit_ns later in the run than predicted, one after another under time_division, so "
    "predicted_ns, program_predicted_ns and pcie-arbsim predict's times and EDF verdicts are short by it";

namespace {

std::string gbps(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

// The GPU node of `gpu` (a GPU or one of its MIG instances).
int gpu_node(const Scenario& s, const std::string& gpu) {
  return s.topo.gpus.at(static_cast<std::size_t>(s.units.at(static_cast<std::size_t>(s.unit_of(gpu))).gpu));
}

// A peer app between GPUs of two PCIe domains (their route crosses a raw processor
// interconnect: seed 002 §2.1) moves its copies as peer writes over that link; a batch app's
// peer stream stages the same copy through host memory, as such platforms do.
void cross_domain_peers(const Scenario& s, std::vector<FidelityNote>& notes) {
  const PlatformCfg& pf = s.config.platform;
  for (std::size_t k = 0; k < s.config.apps.size(); ++k) {
    const auto* st = std::get_if<StreamParams>(&s.config.apps[k].params);
    if (!st || st->peer.empty()) continue;
    const int from = gpu_node(s, st->gpu), to = gpu_node(s, st->peer);
    if (same_pcie_domain(pf, s.topo, from, to)) continue;
    notes.push_back({"fabric",
                     "peer copies " + st->gpu + " -> " + st->peer + " across PCIe domains (a raw link between them)",
                     "moved as peer writes over the processor interconnect; platforms of separate PCIe domains stage "
                     "such a copy through host memory (seed 002 §2.1), as a batch app's peer stream does "
                     "(docs/batch-method.md): use one for the staged timing",
                     {static_cast<uint32_t>(k + 1)}});
  }
}

// Each kind of copy app `a` makes, once: its GPU, the root complex ordinal of its `host`
// (-1: the GPU's socket) and its direction (batch apps: every stream of every batch).
template <typename Fn>
void for_each_copy(const AppCfg& a, Fn&& fn) {
  if (const auto* c = std::get_if<CopyExecParams>(&a.params)) {
    if (c->h2d_bytes > 0) fn(c->gpu, c->host_rc, CopyDir::H2D);
    if (c->d2h_bytes > 0) fn(c->gpu, c->host_rc, CopyDir::D2H);
  }
  if (const auto* st = std::get_if<StreamParams>(&a.params)) fn(st->gpu, st->host_rc, st->direction);
  const auto job = [&](const GpuJob& j, const std::string& gpu, int host_rc) {
    if (j.h2d_bytes > 0) fn(gpu, host_rc, CopyDir::H2D);
    if (j.d2h_bytes > 0) fn(gpu, host_rc, CopyDir::D2H);
  };
  if (const auto* m = std::get_if<SpmdParams>(&a.params)) job(*m, m->gpu, m->host_rc);
  if (const auto* p = std::get_if<PeriodicParams>(&a.params)) job(*p, p->gpu, p->host_rc);
  if (const auto* b = std::get_if<BatchParams>(&a.params))
    for (const auto& batch : b->batches)
      for (const BatchStreamCfg& st : batch) fn(st.gpu, st.host_rc, st.direction);
}

H2dMode h2d_mode(const Scenario& s, const std::string& gpu) {
  return s.config.platform.nodes[static_cast<std::size_t>(gpu_node(s, gpu))].gpu.h2d_mode;
}

// The root complexes (nodes) from whose memory app `a`'s H2D copies come with GPUs of
// h2d_mode `mode`: its `host`'s, or its GPU's socket's (push: the root complex's DMA engines
// read it inside; read: the GPU's reads cross its memory port).
std::set<int> h2d_from(const Scenario& s, const AppCfg& a, H2dMode mode) {
  std::set<int> rcs;
  for_each_copy(a, [&](const std::string& gpu, int host_rc, CopyDir dir) {
    if (dir != CopyDir::H2D || h2d_mode(s, gpu) != mode) return;
    rcs.insert(host_rc >= 0 ? s.topo.rcs.at(static_cast<std::size_t>(host_rc))
                            : s.topo.host_of.at(static_cast<std::size_t>(gpu_node(s, gpu))));
  });
  return rcs;
}

// An spmd app without a sharing layer (seed 004 Eq. 1) runs its processes one context at a
// time, paying T_init and T_ctx_switch as delays of its own; another app on the same GPU (or
// MIG instance: contexts are per instance) runs its copies and kernels beside them, where a
// GPU switching contexts runs one at a time. Noted with every app there, whatever T_init and
// T_ctx_switch are (at 0, two such apps' kernels ran side by side: 2.5 ms where one context
// at a time takes 3).
void context_switches_beside_others(const Scenario& s, std::vector<FidelityNote>& notes) {
  const std::vector<AppCfg>& apps = s.config.apps;
  for (std::size_t k = 0; k < apps.size(); ++k) {
    const auto* m = std::get_if<SpmdParams>(&apps[k].params);
    if (!m || m->streams) continue;
    const int unit = s.unit_of(m->gpu);
    std::vector<uint32_t> flows;
    std::string others;
    for (std::size_t o = 0; o < apps.size(); ++o) {
      if (o != k && s.unit_of(app_gpu(apps[o].params)) != unit) continue;
      flows.push_back(static_cast<uint32_t>(o + 1));
      if (o != k) others += (others.empty() ? "" : ", ") + apps[o].name;
    }
    if (others.empty()) continue;
    const bool delays = m->init_ns > 0 || m->ctx_switch_ns > 0;
    notes.push_back({m->gpu, "spmd app " + apps[k].name + " without a sharing layer beside other apps on " + m->gpu +
                                 " (" + others + ")",
                     std::string("its processes take turns, one context at a time (seed 004 Eq. 1") +
                         (delays ? ", T_init and T_ctx_switch delaying only them" : "") +
                         "): the other apps' copies and kernels run on the GPU meanwhile, where a GPU switching "
                         "contexts runs one context at a time (theirs would wait, and switch too); their times and "
                         "its are shorter than such a GPU's",
                     flows});
  }
}

// Whether app `a`'s copies are paced below their link's rate: a fixed share under 100 %
// (GpuJob::pcie_share_pct), or a periodic task the share controller can lower (pcie_by:
// rate; seed 003 §3.4 lowers every task below the highest priority).
bool paced(const Scenario& s, const AppCfg& a) {
  const ShareControlCfg& c = s.config.driver.share_control;
  if (const auto* p = std::get_if<PeriodicParams>(&a.params)) {
    int top = p->priority;
    for (const AppCfg& o : s.config.apps)
      if (const auto* q = std::get_if<PeriodicParams>(&o.params)) top = std::max(top, q->priority);
    return p->pcie_share_pct < 100 || (c.on && c.pcie && !c.wrr && p->priority < top);
  }
  if (const auto* m = std::get_if<SpmdParams>(&a.params)) return m->pcie_share_pct < 100;
  return false;
}

// The DMA engines app `a`'s copies use: (unit, engine), or (-1 - GPU node, 0) for the host DMA
// engine pushing to a GPU (models/host/engine_choice.h).
std::set<std::pair<int, int>> engines_of(const Scenario& s, const AppCfg& a) {
  std::set<std::pair<int, int>> out;
  for_each_copy(a, [&](const std::string& gpu, int, CopyDir dir) {
    const int unit = s.unit_of(gpu);
    if (unit < 0) return;
    const NodeCfg& n = s.config.platform.nodes[static_cast<std::size_t>(gpu_node(s, gpu))];
    const EngineChoice e = choose_engine(dir, n.gpu.h2d_mode, n.gpu.copy_engines);
    out.insert(e.host_dma ? std::make_pair(-1 - gpu_node(s, gpu), 0) : std::make_pair(unit, e.gpu_engine));
  });
  return out;
}

// A PCIe share is a rate limit at the copy engine: a paced copy holds its engine for its whole
// paced time, and other apps' copies on that engine wait behind it. Lowering a lower-priority
// task's share then delays a higher one on the same engine, the opposite of what seed 003's
// controller expects (two tasks on one GPU's H2D engine: the higher one's response went 144 ->
// 8,225 us as the lower's share fell 50 -> 1 %, with nothing said; found by a user trial).
void paced_copies_hold_their_engine(const Scenario& s, std::vector<FidelityNote>& notes) {
  const std::vector<AppCfg>& apps = s.config.apps;
  std::vector<std::set<std::pair<int, int>>> engines;  // each app's, once
  for (const AppCfg& a : apps) engines.push_back(engines_of(s, a));
  for (std::size_t k = 0; k < apps.size(); ++k) {
    if (!paced(s, apps[k])) continue;
    const std::set<std::pair<int, int>>& mine = engines[k];
    std::vector<uint32_t> flows{static_cast<uint32_t>(k + 1)};
    std::string others;
    for (std::size_t o = 0; o < apps.size(); ++o) {
      if (o == k) continue;
      const std::set<std::pair<int, int>>& theirs = engines[o];
      if (std::none_of(theirs.begin(), theirs.end(), [&](const auto& e) { return mine.count(e) > 0; })) continue;
      flows.push_back(static_cast<uint32_t>(o + 1));
      others += (others.empty() ? "" : ", ") + apps[o].name;
    }
    if (others.empty()) continue;
    notes.push_back({app_gpu(apps[k].params),
                     "copies of " + apps[k].name + " paced at a PCIe share, on a copy engine shared with " + others,
                     "a PCIe share is a rate limit at the copy engine: the paced copy holds the engine for its whole "
                     "paced time and the other apps' copies there wait behind it, so a lower share delays them too "
                     "(under driver.share_control, a lower-priority task's lowered share delays the higher ones on "
                     "its engine, where seed 003's controller expects to help them); give them separate engines, "
                     "GPUs or MIG instances, or share by pcie_by: wrr",
                     flows});
  }
}

// Whether app `a`'s GPU is in the subtree of node `n`.
bool under(const Scenario& s, const AppCfg& a, int n) {
  const int e = s.topo.endpoint_of_node.at(static_cast<std::size_t>(gpu_node(s, app_gpu(a.params))));
  return e >= s.topo.subtree_begin.at(static_cast<std::size_t>(n)) && e < s.topo.subtree_end.at(static_cast<std::size_t>(n));
}

// A root complex's memory port has a VC per TC (models/pcie/root_complex.h): a GPU's reads
// there come back on the VC of their TC, and where two TCs then leave the root complex on one
// VC, the higher ingress VC goes first (models/pcie/egress_port.cpp, collect(); the flow mode
// divides the same way): strict by TC whatever the arbiters (TC1 and TC3 onto a link of 2
// VCs: one copy at its time alone, the other after it, under `static` and `rr` alike). Noted
// once per root complex egress where the TCs of two apps reading that memory meet (under a
// policy, which chooses TCs itself: any two such apps).
void memory_reads_share_a_vc(const Scenario& s, std::vector<FidelityNote>& notes) {
  const bool any_tc = s.config.driver.policy != PolicyKind::Static;
  for (const int rc : s.topo.rcs) {
    std::vector<std::size_t> readers;
    for (std::size_t k = 0; k < s.config.apps.size(); ++k)
      if (h2d_from(s, s.config.apps[k], H2dMode::DeviceRead).count(rc)) readers.push_back(k);
    if (readers.size() < 2) continue;
    const std::string& name = s.config.platform.nodes[static_cast<std::size_t>(rc)].name;
    for (const LinkDir& out : s.walk) {
      if (out.from != name || out.link_index < 0 || out.upward) continue;  // its root ports, down
      const int to = node_index(s.config.platform, out.to);
      const auto& m = out.egress.tc_to_vc;
      std::vector<uint32_t> flows;
      std::set<int> tcs;
      for (std::size_t i = 0; i < readers.size(); ++i)
        for (std::size_t j = i + 1; j < readers.size(); ++j) {
          if (!under(s, s.config.apps[readers[i]], to) || !under(s, s.config.apps[readers[j]], to))
            continue;  // they do not meet at this egress
          const int a = s.config.apps[readers[i]].timing.tc, b = s.config.apps[readers[j]].timing.tc;
          if (!any_tc && (a == b || m[static_cast<std::size_t>(a)] != m[static_cast<std::size_t>(b)])) continue;
          flows.push_back(static_cast<uint32_t>(readers[i] + 1));
          flows.push_back(static_cast<uint32_t>(readers[j] + 1));
          tcs.insert({a, b});
        }
      if (flows.empty() || (any_tc && out.egress.vcs >= kNumTcs)) continue;
      std::sort(flows.begin(), flows.end());
      flows.erase(std::unique(flows.begin(), flows.end()), flows.end());
      std::string which;
      for (const int tc : tcs) which += (which.empty() ? "TC" : ", TC") + std::to_string(tc);
      notes.push_back({out.arrow_name(),
                       (any_tc ? std::string("the TCs a policy gives reads from ") + name + "'s memory"
                               : which + ", read from " + name + "'s memory,") +
                           " share a VC of " + std::to_string(out.egress.vcs),
                       "the memory port returns each TC on its own VC, and within a shared VC the higher goes "
                       "first (strict by TC) whatever the VC and port arbiters, in both fidelities, where this "
                       "root port is saturated; below it, where it has room, the reads' completions wait in one "
                       "queue and share by their tag windows (docs/architecture.md, \"Behind one requester\"); "
                       "with 8 VCs on the link (TC n -> VC n) the arbiters decide",
                       flows});
      break;
    }
  }
}

// Whether app `a` sends posted writes as GPU ordinal 0's requests: D2H and peer copies from
// it, or H2D copies pushed to it.
bool gpu0_posts(const Scenario& s, const AppCfg& a) {
  bool posts = false;
  for_each_copy(a, [&](const std::string& gpu, int, CopyDir dir) {
    const bool first = s.units.at(static_cast<std::size_t>(s.unit_of(gpu))).gpu == 0;
    posts = posts || (first && (dir != CopyDir::H2D || h2d_mode(s, gpu) == H2dMode::HostPush));
  });
  return posts;
}

// Seed 000's ranking policies give GPU0's requests TC0, which PCIe ties to VC0 (the lowest
// under their strict arbiters): its posted writes cannot be raised, so a smallest-first copy
// pushed to gpu0 waited behind a larger one (181.7 against 20.3 us; docs/host-policies.md
// said so in prose, the run did not).
void gpu0_writes_stay_lowest(const Scenario& s, std::vector<FidelityNote>& notes) {
  const PolicyKind p = s.config.driver.policy;
  if (p != PolicyKind::SmallestFirst && p != PolicyKind::LargestFirst && p != PolicyKind::DeadlineAware) return;
  std::vector<uint32_t> flows;
  for (std::size_t k = 0; k < s.config.apps.size(); ++k)
    if (gpu0_posts(s, s.config.apps[k])) flows.push_back(static_cast<uint32_t>(k + 1));
  if (flows.empty() || s.config.apps.size() < 2) return;
  notes.push_back({"driver", std::string("policy ") + to_string(p) + " with posted writes of GPU 0 (D2H, peer, or pushed H2D)",
                   "seed 000 Eq. 1 gives GPU 0's requests TC0, which PCIe ties to VC0, the lowest under the policy's "
                   "strict arbiters: those writes stay last whatever the ranking says (docs/host-policies.md); put "
                   "the tenant on another GPU, or use h2d_mode: read for its copies in",
                   flows});
}

}  // namespace

const char* const kBatchCreditEffect =
    "seed 002's predictor moves each copy at its max-min share of the links; a receiver's credits that carry "
    "less per round trip than the copy could move alone are not in it, so the run's copies are slower than "
    "predicted (a D2H copy over a 2-us link with 16 posted data credits: predicted 324.9 us, ran 520.9)";

// GPU names whose batch copies of `b` are credit-limited (BatchTransfer::credit_limited).
std::string batch_credit_setting(const Scenario& s, const BatchParams& b) {
  const BatchModel model = make_batch_model(s);
  std::set<std::string> gpus;
  for (const auto& batch : b.batches)
    for (const BatchStreamOp& op : batch_ops(s, batch))
      for (const BatchTransfer& t : model.stream(op).transfers)
        if (t.credit_limited) gpus.insert(s.units.at(static_cast<std::size_t>(op.gpu)).name);
  std::string out;
  for (const std::string& g : gpus) out += (out.empty() ? "" : ", ") + g;
  return out.empty() ? "" : "credit-limited copies of " + out;
}

std::string batch_submit_setting(const Scenario& s, const BatchParams& b) {
  std::set<std::string> gpus;
  for (const auto& batch : b.batches)
    for (const BatchStreamCfg& st : batch)
      for (const std::string* g : {&st.gpu, &st.peer}) {
        if (g->empty()) continue;
        const NodeCfg& n = s.config.platform.nodes[static_cast<std::size_t>(gpu_node(s, *g))];
        if (n.gpu.copy_submit_ns > 0) gpus.insert(n.name);
      }
  std::string out;
  for (const std::string& g : gpus) out += (out.empty() ? "" : ", ") + g;
  return out.empty() ? "" : "copy_submit_ns > 0 on " + out;
}

std::vector<FidelityNote> model_notes(const Scenario& s) {
  const PlatformCfg& pf = s.config.platform;
  std::vector<FidelityNote> notes;
  cross_domain_peers(s, notes);
  context_switches_beside_others(s, notes);
  paced_copies_hold_their_engine(s, notes);
  memory_reads_share_a_vc(s, notes);
  gpu0_writes_stay_lowest(s, notes);
  // Seed 002's predictor has no submission cost and no credits: its timelines (results.json
  // batch.predicted_*, the schedule Algorithm 1 issues copies by, `pcie-arbsim predict`)
  // leave copy_submit_ns and credit-limited throughput out.
  for (std::size_t k = 0; k < s.config.apps.size(); ++k)
    if (const auto* b = std::get_if<BatchParams>(&s.config.apps[k].params)) {
      if (const std::string setting = batch_submit_setting(s, *b); !setting.empty())
        notes.push_back({"batch predictor", setting + " (batch app " + s.config.apps[k].name + ")",
                         kBatchSubmitEffect, {static_cast<uint32_t>(k + 1)}});
      if (const std::string setting = batch_credit_setting(s, *b); !setting.empty())
        notes.push_back({"batch predictor", setting + " (batch app " + s.config.apps[k].name + ")",
                         kBatchCreditEffect, {static_cast<uint32_t>(k + 1)}});
    }
  bool pushes = false;  // (a GPU may push from another socket's memory: `host`, every root complex counts)
  for (const int g : s.topo.gpus) pushes = pushes || pf.nodes[g].gpu.h2d_mode == H2dMode::HostPush;
  if (!pushes) return notes;
  for (const int rc : s.topo.rcs) {
    const NodeCfg& n = pf.nodes[rc];
    double down = 0;  // what its root ports carry down, wire bytes per ns
    for (const LinkDir& d : s.walk)
      if (d.link_index >= 0 && !d.upward && d.from == n.name) down += d.egress.link.gbytes_per_s;
    if (n.memory.bandwidth_GBps >= down) continue;
    notes.push_back({n.name + ".memory",
                     "h2d_mode: push with memory.bandwidth_GBps " + gbps(n.memory.bandwidth_GBps) +
                         ", below the " + gbps(down) + " GB/s its root ports carry down",
                     "pushed copies are read by the root complex's DMA engines inside it and do not cross its memory "
                     "port: neither its bandwidth nor its read latency bounds or delays them (reads from memory, by "
                     "GPUs and devices, do); set h2d_mode: read for a memory-bound host",
                     {}});
    for (std::size_t k = 0; k < s.config.apps.size(); ++k)  // flow ids are app index + 1
      if (h2d_from(s, s.config.apps[k], H2dMode::HostPush).count(rc)) notes.back().flows.push_back(static_cast<uint32_t>(k + 1));
  }
  return notes;
}

}  // namespace arbsim
