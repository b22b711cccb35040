// Parsing `apps:` (traffic testbenches, one params struct per kind: testbenches/app_params.h)
// and resolving their references to nodes: a GPU that exists, a host that is a root complex
// of the GPU's tree, a peer GPU of the same tree.
#include <algorithm>
#include <set>
#include "platforms/config/parse.h"

namespace arbsim {

int node_index(const PlatformCfg& pf, const std::string& name) {
  for (std::size_t i = 0; i < pf.nodes.size(); ++i)
    if (pf.nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

GpuRef split_gpu_ref(const std::string& ref) {
  const std::size_t slash = ref.find('/');
  if (slash == std::string::npos) return {ref, -1};
  const std::string tail = ref.substr(slash + 1);
  // One spelling per instance: "mig01" would read as instance 1 while the name, kept as
  // written, matched none (a crash at elaboration), so a leading zero is malformed.
  const bool digits = tail.size() > 3 && tail.size() < 6 && tail.compare(0, 3, "mig") == 0 &&
                      std::all_of(tail.begin() + 3, tail.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
                      !(tail.size() > 4 && tail[3] == '0');
  return {ref.substr(0, slash), digits ? std::stoi(tail.substr(3)) : -2};
}

int gpu_node_index(const PlatformCfg& pf, const std::string& ref) { return node_index(pf, split_gpu_ref(ref).node); }

int tree_root(const PlatformCfg& pf, int node) {
  for (std::size_t hops = 0; hops <= pf.nodes.size(); ++hops) {
    const auto up = std::find_if(pf.links.begin(), pf.links.end(),
                                 [&](const LinkCfg& l) { return l.down == pf.nodes[node].name; });
    if (up == pf.links.end()) return node;
    const int next = node_index(pf, up->up);
    if (next < 0) return node;  // a link to no node: the topology's checks report it
    node = next;
  }
  return node;
}

// Whether the links form trees as the topology's checks want them (each node below at most
// one, a root complex only below a root complex): only then do the app checks of hosts and
// peers (tree_root) mean anything. Else the topology's checks, which run later, say what is
// wrong (an app's `host` named as "not connected" was the report of a link given twice).
bool trees_well_formed(const PlatformCfg& pf) {
  std::set<std::string> below;
  for (const LinkCfg& l : pf.links) {
    const int u = node_index(pf, l.up), d = node_index(pf, l.down);
    if (u < 0 || d < 0 || !below.insert(l.down).second) return false;
    if (pf.nodes[d].is(NodeKind::RootComplex) && !pf.nodes[u].is(NodeKind::RootComplex)) return false;
  }
  return true;
}

int rc_ordinal(const PlatformCfg& pf, int node) {
  int k = 0;
  for (int n = 0; n < node; ++n) k += pf.nodes[n].is(NodeKind::RootComplex);
  return k;
}

namespace {

// A GPU, or one of its MIG instances ("gpu0/mig1"): a GPU split into instances is only
// addressed through them (each has its own engines and SMs; the whole GPU has none left).
std::string gpu_ref(const Reader& r, const PlatformCfg& pf, const std::string& key) {
  const std::string g = r.need<std::string>(key);
  const GpuRef ref = split_gpu_ref(g);
  const NodeCfg* n = pf.node(ref.node);
  if (!n) r.fail(key, "no node named '" + ref.node + "'");
  if (!n->is(NodeKind::Gpu)) r.fail(key, "'" + ref.node + "' is a " + n->type_name() + ", not a gpu");
  const int count = n->gpu.instances();
  const std::string range = "'" + ref.node + "/mig0' .. '" + ref.node + "/mig" + std::to_string(count - 1) + "'";
  if (ref.instance == -2) r.fail(key, "'" + g + "': a MIG instance is named <gpu>/mig<i>, i in decimal with no leading zero, e.g. '" +
                                        ref.node + "/mig0'");
  if (ref.instance >= 0 && count == 0)
    r.fail(key, "gpu '" + ref.node + "' is not split into MIG instances (its key `mig`), so there is no '" + g + "'");
  if (ref.instance < 0 && count > 0)
    r.fail(key, "gpu '" + g + "' is split into " + std::to_string(count) + " MIG instances: name one, " + range);
  if (ref.instance >= count) r.fail(key, "no '" + g + "': gpu '" + ref.node + "' has MIG instances " + range);
  return g;
}

// `host:` the socket whose memory an app's copies use (seed 002 §2.1: a remote socket's
// memory is reached over the inter-socket link). Absent = the GPU's nearest root complex.
void parse_host(const Reader& r, const PlatformCfg& pf, const std::string& gpu, std::string* host, int* host_rc) {
  if (!r.has("host")) return;
  *host = r.need<std::string>("host");
  const int n = node_index(pf, *host);
  if (n < 0) r.fail("host", "no node named '" + *host + "'");
  if (!pf.nodes[n].is(NodeKind::RootComplex))
    r.fail("host", "'" + *host + "' is of type " + pf.nodes[n].type_name() + ", not a root complex with host memory");
  if (trees_well_formed(pf) && tree_root(pf, n) != tree_root(pf, gpu_node_index(pf, gpu)))
    r.fail("host", "root complex '" + *host + "' is not connected to gpu '" + gpu + "'");
  *host_rc = rc_ordinal(pf, n);
}

// A peer copy's destination: another GPU, in the same tree (a route, direct or through host
// memory, exists).
std::string peer_ref(const Reader& r, const PlatformCfg& pf, const std::string& gpu) {
  const std::string peer = gpu_ref(r, pf, "peer");
  if (peer == gpu) r.fail("peer", "a peer copy needs two different GPUs");
  if (gpu_node_index(pf, peer) == gpu_node_index(pf, gpu))
    r.fail("peer", "'" + gpu + "' and '" + peer + "' are instances of one GPU: a copy between them does not cross PCIe");
  if (trees_well_formed(pf) && tree_root(pf, gpu_node_index(pf, peer)) != tree_root(pf, gpu_node_index(pf, gpu)))
    r.fail("peer", "gpu '" + peer + "' is not connected to gpu '" + gpu + "'");
  return peer;
}

void parse_until(const Reader& r, AppTiming& t, const char* count_key, int64_t* count) {
  // Neither key given: the message points at the app (its defaults have no line).
  const char* at = r.has(count_key) || r.has("duration_ns") ? count_key : "";
  *count = r.get<int64_t>(count_key, 0);
  if (*count < 0) r.fail(count_key, "must be >= 0, got " + std::to_string(*count));
  t.duration_ns = r.time_ns("duration_ns", 0);
  if (*count == 0 && t.duration_ns == 0)
    r.fail(at, std::string("give `") + count_key + "` or `duration_ns` (or both) so the app ends");
  t.start_ns = r.time_ns("start_ns", 0);
  t.tc = r.int_in("tc", 0, 0, kNumTcs - 1);
  // Given, a deadline is a time a response can meet: 0 read as "none" (stream kinds) or "the
  // period" (periodic) while the effective config said 0. At least the kernel's 1 ps.
  t.deadline_ns = r.has("deadline_ns") ? r.time_in("deadline_ns", 0, 1e-3, kMaxTimeNs) : 0;
}

CopyExecParams parse_copy_exec(const Reader& r, const PlatformCfg& pf, AppTiming& t) {
  r.allow({"name", "type", "workload", "gpu", "host", "h2d_bytes", "kernel_ns", "d2h_bytes", "iterations",
           "duration_ns", "start_ns", "tc", "deadline_ns"});
  CopyExecParams c;
  c.gpu = gpu_ref(r, pf, "gpu");
  parse_host(r, pf, c.gpu, &c.host, &c.host_rc);
  c.h2d_bytes = r.need_bytes("h2d_bytes");
  c.kernel_ns = r.time_ns("kernel_ns", 0);
  c.d2h_bytes = r.has("d2h_bytes") ? r.bytes("d2h_bytes", 1) : 0;
  parse_until(r, t, "iterations", &c.iterations);
  return c;
}

// A command stream of a batch operation (seed 002 §3.1): an optional copy (H2D, D2H, or to
// a `peer` GPU) then an optional kernel on `gpu`.
BatchStreamCfg parse_batch_stream(const Reader& s, const PlatformCfg& pf) {
  s.allow({"gpu", "host", "direction", "peer", "bytes", "kernel_ns"});
  BatchStreamCfg b;
  b.gpu = gpu_ref(s, pf, "gpu");
  if (split_gpu_ref(b.gpu).instance >= 0)  // seed 002's predictor plans per GPU engine
    s.fail("gpu", "batch apps run on whole GPUs; '" + b.gpu + "' is a MIG instance");
  parse_host(s, pf, b.gpu, &b.host, &b.host_rc);
  if (s.has("peer")) {
    if (s.has("direction")) s.fail("direction", "a peer copy has no direction: it goes from `gpu` to `peer`");
    b.peer = peer_ref(s, pf, b.gpu);
    b.direction = CopyDir::P2P;
  } else {
    b.direction = s.one_of("direction", "h2d", {"h2d", "d2h"}) == "h2d" ? CopyDir::H2D : CopyDir::D2H;
  }
  b.bytes = s.has("bytes") ? s.bytes("bytes", 1) : 0;
  b.kernel_ns = s.time_ns("kernel_ns", 0);
  if (b.bytes == 0 && b.kernel_ns == 0) s.fail("", "a stream needs `bytes` or `kernel_ns` (or both)");
  return b;
}

// One batch operation: its streams, added to the app's distinct batches; returns its index.
int parse_one_batch(const Reader& r, const PlatformCfg& pf, BatchParams& a) {
  std::vector<BatchStreamCfg> streams;
  for (const Reader& s : r.list("streams")) streams.push_back(parse_batch_stream(s, pf));
  if (streams.empty()) r.fail("streams", "a batch needs at least one stream");
  a.batches.push_back(streams);
  return static_cast<int>(a.batches.size()) - 1;
}

// `program`: steps run in order, each one batch (`streams`) or several (`batches`), the
// step repeated `repeat` times (seed 002 §4.2's domain decomposition loops over two).
void parse_program(const Reader& r, const PlatformCfg& pf, BatchParams& a) {
  constexpr int64_t kMaxBatches = 1000000;
  for (const Reader& step : r.list("program")) {
    step.allow({"streams", "batches", "repeat"});
    if (step.has("streams") == step.has("batches")) step.fail("", "give either `streams` or `batches`");
    std::vector<int> body;
    if (step.has("streams")) body.push_back(parse_one_batch(step, pf, a));
    for (const Reader& b : step.has("batches") ? step.list("batches") : std::vector<Reader>()) {
      b.allow({"streams"});
      body.push_back(parse_one_batch(b, pf, a));
    }
    if (body.empty()) step.fail("batches", "a step needs at least one batch");
    const int64_t repeat = step.int_in("repeat", 1, 1, static_cast<int>(kMaxBatches));
    if (static_cast<int64_t>(a.program.size()) + repeat * static_cast<int64_t>(body.size()) > kMaxBatches)
      step.fail("repeat", "the program would run more than 1000000 batch operations");
    for (int64_t k = 0; k < repeat; ++k) a.program.insert(a.program.end(), body.begin(), body.end());
  }
  if (a.program.empty()) r.fail("program", "a program needs at least one step");
}

BatchParams parse_batch(const Reader& r, const PlatformCfg& pf, AppTiming& t) {
  r.allow({"name", "type", "method", "streams", "program", "count", "period_ns", "duration_ns", "start_ns", "tc",
           "deadline_ns"});
  // Its copies carry no QoS deadline for the driver and nothing counted one (results showed
  // 0 met, 0 missed): the program is timed as a whole (results' batch.program_ns).
  if (r.has("deadline_ns"))
    r.fail("deadline_ns", "a batch app's copies carry no deadline and none is counted; its programs' times are "
                          "in results.json apps[].p50_ns/max_ns and batch.program_ns (a stream or copy_exec app "
                          "takes a per-transfer deadline)");
  BatchParams a;
  parse_batch_method(r.one_of("method", "batch", {"batch", "bandwidth_allocation", "time_division"}), &a.method);
  a.period_ns = r.time_ns("period_ns", 0);
  if (r.has("streams") == r.has("program")) r.fail("", "a batch app needs either `streams` or `program`");
  if (r.has("streams")) a.program = {parse_one_batch(r, pf, a)};
  else parse_program(r, pf, a);
  parse_until(r, t, "count", &a.count);
  return a;
}

void parse_size(const Reader& r, StreamParams& a) {
  if (!r.has("size")) r.fail("size", "required key is missing (give {fixed: N} or {min: N, max: M})");
  Reader s = r.map("size");
  s.allow({"fixed", "min", "max"});
  if (s.has("fixed") == (s.has("min") || s.has("max")))
    s.fail("", "give either `fixed` or `min` and `max` (uniform, seeded by sim.seed)");
  a.uniform = !s.has("fixed");
  if (a.uniform) {
    a.size_min = s.need_bytes("min");
    a.size_max = s.need_bytes("max");
    if (a.size_max < a.size_min) s.fail("max", "must be >= min");
  } else {
    a.size = s.need_bytes("fixed");
  }
}

// A paced stream issues a copy every size / rate. Below the kernel's 1 ps resolution that
// interval rounds to 0 and simulated time would stop advancing: rejected here.
void check_issue_period(const Reader& r, const StreamParams& a) {
  if (a.rate_GBps <= 0) return;
  const uint64_t smallest = a.uniform ? a.size_min : a.size;
  const double period_ns = static_cast<double>(smallest) / a.rate_GBps;
  if (period_ns < 1e-3)
    r.fail("rate_GBps", "a copy of " + std::to_string(smallest) + " B every " + std::to_string(period_ns * 1e3) +
                            " ps is below the simulator's 1 ps resolution; lower the rate or raise the size");
}

StreamParams parse_stream(const Reader& r, const PlatformCfg& pf, AppTiming& t, bool peer) {
  if (peer)
    r.allow({"name", "type", "gpu", "peer", "size", "rate_GBps", "depth", "count", "duration_ns",
             "start_ns", "tc", "deadline_ns"});
  else
    r.allow({"name", "type", "gpu", "host", "direction", "size", "rate_GBps", "depth", "count", "duration_ns",
             "start_ns", "tc", "deadline_ns"});
  StreamParams a;
  a.gpu = gpu_ref(r, pf, "gpu");
  parse_host(r, pf, a.gpu, &a.host, &a.host_rc);
  if (peer) {
    a.direction = CopyDir::P2P;
    a.peer = peer_ref(r, pf, a.gpu);
  } else {
    a.direction = r.one_of("direction", "h2d", {"h2d", "d2h"}) == "h2d" ? CopyDir::H2D : CopyDir::D2H;
  }
  parse_size(r, a);
  // 0 = back to back; else at least 1 MB/s, so one command's interval fits the time range.
  a.rate_GBps = r.rate_in("rate_GBps", 0, 0, 1e6);
  if (a.rate_GBps > 0 && a.rate_GBps < 1e-3) r.fail("rate_GBps", "must be 0 (back to back) or >= 0.001");
  check_issue_period(r, a);
  a.depth = r.int_in("depth", 2, 1, 1024);
  parse_until(r, t, "count", &a.count);
  return a;
}

// A copy phase's size; 0 (or absent): the process has no such phase (a profiling run of one).
uint64_t phase_bytes(const Reader& r, const std::string& key) {
  if (r.has(key) && r.need<std::string>(key) == "0") return 0;
  return r.bytes(key, 0);
}

// A kernel's grid: 0 (the whole GPU in one wave) or 1..2^31 blocks.
int64_t grid_blocks(const Reader& r) {
  const int64_t b = r.get<int64_t>("blocks", 0);
  if (b < 0 || b > (int64_t{1} << 31))
    r.fail("blocks", "must be 0 (the whole GPU) or a grid of 1..2^31 blocks, got " + std::to_string(b));
  return b;
}

// The job of an spmd process or a periodic task: copy in, kernel (its grid), copy out, at
// least one of them; its SM and PCIe shares.
void parse_phases(const Reader& r, const std::string& what, GpuJob& m) {
  m.h2d_bytes = phase_bytes(r, "h2d_bytes");
  m.d2h_bytes = phase_bytes(r, "d2h_bytes");
  m.kernel_ns = r.time_ns("kernel_ns", 0);
  m.blocks = grid_blocks(r);
  if (m.h2d_bytes == 0 && m.d2h_bytes == 0 && m.kernel_ns == 0)
    r.fail("", what + " needs `h2d_bytes`, `kernel_ns` or `d2h_bytes`");
  m.sm_share_pct = r.number_in("sm_share_pct", 100, 0.01, 100);
  m.pcie_share_pct = r.number_in("pcie_share_pct", 100, 0.01, 100);
}

// spmd: one round of `processes` processes; it ends when they do (no count or duration).
SpmdParams parse_spmd(const Reader& r, const PlatformCfg& pf, AppTiming& t) {
  r.allow({"name", "type", "gpu", "host", "processes", "h2d_bytes", "d2h_bytes", "kernel_ns", "blocks", "sharing",
           "order", "queues", "init_ns", "ctx_switch_ns", "sm_share_pct", "pcie_share_pct", "start_ns", "tc"});
  SpmdParams m;
  m.gpu = gpu_ref(r, pf, "gpu");
  parse_host(r, pf, m.gpu, &m.host, &m.host_rc);
  m.processes = r.int_in("processes", 1, 1, 1024);
  parse_phases(r, "a process", m);
  m.streams = r.one_of("sharing", "none", {"none", "streams"}) == "streams";
  if (!m.streams && (r.has("order") || r.has("queues")))
    r.fail(r.has("order") ? "order" : "queues", "applies to `sharing: streams` only (without it, processes run one "
                                                "after another)");
  // Each mode's keys are read (and so written to the effective config) in that mode only:
  // read in both, they made every spmd app's config.effective.yaml one the config refuses.
  if (m.streams) {
    m.ps1 = r.one_of("order", "ps1", {"ps1", "ps2"}) == "ps1";
    m.per_stream_queues = r.one_of("queues", "single", {"single", "per_stream"}) == "per_stream";
  }
  // Streams share one context: no T_init per process and no context switches (seed 004
  // §3.2), so those keys would be ignored there: refused, as `order` is without streams.
  if (m.streams && (r.has("init_ns") || r.has("ctx_switch_ns")))
    r.fail(r.has("init_ns") ? "init_ns" : "ctx_switch_ns",
           "applies to `sharing: none` only (streams share one context: no per-process start-up, no context "
           "switches)");
  if (!m.streams) {
    m.init_ns = r.time_ns("init_ns", 0);
    m.ctx_switch_ns = r.time_ns("ctx_switch_ns", 0);
  }
  t.start_ns = r.time_ns("start_ns", 0);
  t.tc = r.int_in("tc", 0, 0, kNumTcs - 1);
  return m;
}

// periodic: jobs every period_ns until `count` or `duration_ns`; its deadline is per job
// (not the per-transfer QoS deadline of the other kinds, which the driver's policies read).
PeriodicParams parse_periodic(const Reader& r, const PlatformCfg& pf, AppTiming& t) {
  r.allow({"name", "type", "gpu", "host", "priority", "period_ns", "deadline_ns", "h2d_bytes", "d2h_bytes",
           "kernel_ns", "blocks", "count", "duration_ns", "sm_share_pct", "pcie_share_pct", "start_ns", "tc"});
  PeriodicParams m;
  m.gpu = gpu_ref(r, pf, "gpu");
  parse_host(r, pf, m.gpu, &m.host, &m.host_rc);
  m.priority = r.int_in("priority", 0, -1000000, 1000000);
  if (!r.has("period_ns")) r.fail("", "a periodic app needs `period_ns`");
  m.period_ns = r.time_in("period_ns", 0, 1e-3, kMaxTimeNs);
  parse_phases(r, "a job", m);
  parse_until(r, t, "count", &m.count);
  m.deadline_ns = t.deadline_ns > 0 ? t.deadline_ns : m.period_ns;
  t.deadline_ns = 0;
  return m;
}

AppParams parse_kind(const Reader& r, const PlatformCfg& pf, const std::string& kind, AppTiming& t) {
  if (kind == "copy_exec") return parse_copy_exec(r, pf, t);
  if (kind == "periodic") return parse_periodic(r, pf, t);
  if (kind == "spmd") return parse_spmd(r, pf, t);
  if (kind == "batch") return parse_batch(r, pf, t);
  return parse_stream(r, pf, t, kind == "peer");
}

}  // namespace

std::vector<AppCfg> parse_apps(const Reader& top, const PlatformCfg& pf) {
  std::vector<AppCfg> apps;
  std::set<std::string> names;
  for (const Reader& r : top.list("apps")) {
    AppCfg a;
    const std::string kind = r.one_of("type", "copy_exec", {"copy_exec", "stream", "peer", "batch", "spmd", "periodic"});
    const bool named = r.has("name");
    a.name = r.get<std::string>("name", kind + std::to_string(apps.size()));
    r.check_name("name", a.name);  // it names the app's SystemC module, "app_<name>"
    if (pf.node("app_" + a.name))
      r.fail(named ? "name" : "", "the app's module name 'app_" + a.name + "' is taken by a node");
    if (!names.insert(a.name).second) r.fail(named ? "name" : "", "duplicate app name '" + a.name + "'");
    a.params = parse_kind(r, pf, kind, a.timing);
    a.origin = r.origin();
    apps.push_back(a);
  }
  if (apps.empty()) top.fail("apps", "a run needs at least one app");
  return apps;
}

}  // namespace arbsim
