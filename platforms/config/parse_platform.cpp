// Parsing `platform:`: fabric settings, nodes and links, each checked on its own (keys,
// types, ranges, TC/VC maps, credits). The checks across them (the graph, arbiters against
// requester counts) are the topology's (platforms/topology/topology.h). Defaults come from
// the models' Params structs (models/pcie/fabric_params.h, models/gpu/gpu_params.h).
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include "platforms/config/parse.h"

namespace arbsim {

namespace {

// Bandwidth bounds (GB/s) for raw links and host memory: below 1 MB/s one TLP takes hours
// of simulated time; the top is far above any real fabric.
constexpr double kMinGBps = 1e-3, kMaxGBps = 1e6;

// Link keys by kind. `defaults.link` may hold keys of both kinds; each link takes only
// those of its own kind.
const std::set<std::string> kPcieOnlyKeys = {"gen", "width", "ecrc", "max_up_GBps", "max_down_GBps"};
const std::set<std::string> kRawOnlyKeys = {"bandwidth_up_GBps", "bandwidth_down_GBps"};

bool raw_only(const std::string& k) { return kRawOnlyKeys.count(k) > 0; }
bool pcie_only(const std::string& k) { return kPcieOnlyKeys.count(k) > 0; }

// `impl` / `arbiter_impl`: cpp, or rtl when this build has the RTL co-simulation (docs/cosim.md).
std::string parse_impl(const Reader& r, const std::string& key) {
  const std::string impl = r.one_of(key, "cpp", {"cpp", "rtl"});
  if (!arbiter_impl_available(impl))
    r.fail(key, impl + " needs the RTL co-simulation, which this build does not have (configured without "
                       "Verilator 5 or with ARBSIM_COSIM=OFF; docs/cosim.md)");
  return impl;
}

std::vector<std::string> arbiter_names() {
  std::vector<std::string> v;
  for (const ArbiterType* t : arbiter_catalogue()) v.push_back(t->name);
  return v;
}

// An arbiter spec; its implementation is the platform's (`arbiter_impl`) unless it names one.
ArbiterSpec parse_arbiter(const Reader& r, const std::string& default_impl) {
  r.allow({"type", "weights", "phases", "starvation_threshold", "impl"});
  ArbiterSpec s;
  s.type = find_arbiter_type(r.one_of("type", "rr", arbiter_names()));
  s.impl = r.has("impl") ? parse_impl(r, "impl") : default_impl;
  if (r.has("weights")) s.weights = r.need<std::vector<int>>("weights");
  if (r.has("phases")) s.phases = r.need<std::vector<int>>("phases");
  s.starvation_threshold = r.int_in("starvation_threshold", 0, 0, 1 << 20);
  if (s.type->weighted && s.weights.empty() && s.phases.empty())
    r.fail("type", std::string(s.type->name) + " needs `weights` or `phases`");
  return s;
}

ArbitrationCfg parse_arbitration(const Reader& r, const ArbitrationCfg& base, const std::string& default_impl) {
  r.allow({"vc_arbiter", "port_arbiter"});
  ArbitrationCfg a = base;
  if (r.has("vc_arbiter")) a.vc = parse_arbiter(r.map("vc_arbiter"), default_impl);
  if (r.has("port_arbiter")) a.port = parse_arbiter(r.map("port_arbiter"), default_impl);
  return a;
}

// A credit count >= `min`, or "inf" (-1). A TLP needing more credits than the limit could
// never be sent: the fabric would deadlock instead of failing.
int64_t parse_credit(const Reader& r, const std::string& key, int64_t def, int64_t min,
                     const std::string& why) {
  if (!r.has(key)) {
    r.node()[key] = def < 0 ? YAML::Node("inf") : YAML::Node(def);
    return def;
  }
  const YAML::Node v = r.node()[key];
  if (v.IsScalar() && v.Scalar() == "inf") return -1;
  const int64_t c = r.get<int64_t>(key, def);
  if (c < min) r.fail(key, "must be >= " + std::to_string(min) + why + " or 'inf', got " + std::to_string(c));
  return c;
}

CreditLimits parse_credits(const Reader& r, const PlatformCfg& pf) {
  r.allow({"ph", "pd", "nph", "npd", "cplh", "cpld"});
  // Defaults: typical_credit_limits() (credits.h). Minimum data credits: one largest TLP,
  // n = MPS/16 (docs/pcie-reference.md §3, 16 B per credit).
  const int64_t mwr = pf.mps / kCreditUnitBytes, cpld = pf.completion_bytes / kCreditUnitBytes;
  const CreditLimits def = typical_credit_limits();
  CreditLimits c;
  c.header[0] = parse_credit(r, "ph", def.header[0], 1, "");
  c.data[0] = parse_credit(r, "pd", def.data[0], mwr, " (one MPS-sized write: mps/16)");
  c.header[1] = parse_credit(r, "nph", def.header[1], 1, "");
  c.data[1] = parse_credit(r, "npd", def.data[1], 1, "");
  c.header[2] = parse_credit(r, "cplh", def.header[2], 1, "");
  c.data[2] = parse_credit(r, "cpld", def.data[2], cpld, " (one completion: completion size/16)");
  return c;
}

// `vc_tcs[v]` lists the TCs VC v carries (the VC Resource Control TC/VC Map of PCIe Base
// Spec §7.9.1.7). Default: TC mod vcs (seed 000 Eq. 2).
void parse_tc_map(const Reader& r, LinkCfg& l) {
  if (!r.has("vc_tcs")) {
    YAML::Node m(YAML::NodeType::Sequence);
    for (int v = 0; v < l.vcs; ++v) {
      YAML::Node tcs(YAML::NodeType::Sequence);
      for (int tc = v; tc < kNumTcs; tc += l.vcs) tcs.push_back(tc);
      m.push_back(tcs);
    }
    m.SetStyle(YAML::EmitterStyle::Flow);  // one line in config.effective.yaml
    r.node()["vc_tcs"] = m;
  }
  const YAML::Node m = r.node()["vc_tcs"];
  if (!m.IsSequence() || static_cast<int>(m.size()) != l.vcs)
    r.fail("vc_tcs", "must be a list of " + std::to_string(l.vcs) + " lists of TCs (one per VC)");
  std::array<int, kNumTcs> seen;
  seen.fill(-1);
  for (int v = 0; v < l.vcs; ++v) {
    if (!m[v].IsSequence()) r.fail("vc_tcs", "entry " + std::to_string(v) + " must be a list of TCs");
    for (const YAML::Node& tn : m[v]) {
      int tc = -1;
      try { tc = tn.as<int>(); } catch (const YAML::Exception&) {}
      if (tc < 0 || tc >= kNumTcs) r.fail("vc_tcs", "TCs are 0..7, got " + scalar_text(tn));
      if (seen[tc] >= 0)
        r.fail("vc_tcs", "TC" + std::to_string(tc) + " is mapped to two VCs (VC" +
                             std::to_string(seen[tc]) + " and VC" + std::to_string(v) +
                             "); a TC maps to one VC on a link");
      seen[tc] = v;
      l.tc_to_vc[tc] = static_cast<uint8_t>(v);
    }
  }
  if (seen[0] != 0) r.fail("vc_tcs", "TC0 must map to VC0 (PCIe hard-wires TC0/VC0)");
  for (int tc = 0; tc < kNumTcs; ++tc)
    if (seen[tc] < 0) r.fail("vc_tcs", "TC" + std::to_string(tc) + " is not mapped to any VC");
}

// Copies `defaults.link` keys the link lacks (and that apply to its kind) into the link,
// so the effective config shows every link complete. An error in a copied key is reported
// at its line in `defaults.link` (Reader::inherit). A map both give (`credits`,
// `arbitration_up`/`_down`) is merged one level down: the link's `credits: {pd: 512}` keeps
// the defaults' other credit types, and its `arbitration_up: {port_arbiter: ...}` the
// defaults' `vc_arbiter` (each arbiter whole), as the node and platform arbitrations do. (The
// defaults' map was dropped whole: ph 64 in defaults.link read 128, a user trial found.)
void merge_defaults(Reader& link, const Reader& defaults) {
  const YAML::Node& l = link.node();
  const YAML::Node& d = defaults.node();
  const YAML::Node kind = l["kind"] ? l["kind"] : d["kind"];
  const bool raw = kind && kind.IsScalar() && kind.Scalar() == "raw";
  for (const auto& kv : d) {
    const std::string k = kv.first.Scalar();
    if ((raw && pcie_only(k)) || (!raw && raw_only(k))) continue;
    if (!link.has(k)) {
      link.node()[k] = YAML::Clone(kv.second);
      link.inherit(k, defaults);
      continue;
    }
    const YAML::Node own = l[k];
    if (!own.IsMap() || !kv.second.IsMap()) continue;
    YAML::Node into = link.node()[k];
    for (const auto& sub : kv.second)
      if (!own[sub.first.Scalar()]) into[sub.first.Scalar()] = YAML::Clone(sub.second);
  }
}

// The arbitration a link's egress starts from: its sender node's, else the platform's
// (effective_arbitration() resolves whole specs the same way).
const ArbitrationCfg& arbitration_base(const PlatformCfg& pf, const std::string& sender) {
  const NodeCfg* n = pf.node(sender);
  return n && n->arbitration ? *n->arbitration : pf.arbitration;
}

// Optional effective-bandwidth ceilings of a PCIe link, per direction (seed 002 §4.1: the
// measured H2D and D2H bandwidths differ). Absent = no cap (0), and nothing is written back.
double parse_cap(const Reader& r, const std::string& key) {
  if (!r.has(key)) return 0;
  return r.rate_in(key, 0, kMinGBps, kMaxGBps);
}

// `gen`: 1..5, or the generation's transfer rate ("16GT/s" = Gen4; docs/pcie-reference.md §1).
int parse_gen(const Reader& r) {
  const YAML::Node v = r.has("gen") ? r.node()["gen"] : YAML::Node();
  if (v && v.IsScalar() && v.Scalar().find("GT/s") != std::string::npos) {
    for (int g = 1; g <= 5; ++g) {
      std::ostringstream rate;
      rate << gts_per_lane(g);
      if (v.Scalar() == rate.str() + "GT/s" || v.Scalar() == rate.str() + " GT/s") return g;
    }
    r.fail("gen", "expected 1..5 or a PCIe rate (2.5GT/s, 5GT/s, 8GT/s, 16GT/s, 32GT/s), got " + scalar_text(v));
  }
  return r.int_in("gen", 3, 1, 5);
}

// The keys that differ by `kind`: a PCIe link's generation and width, or a raw link's rates.
void parse_link_kind(const Reader& r, const PlatformCfg& pf, LinkCfg& l) {
  l.raw = r.one_of("kind", "pcie", {"pcie", "raw"}) == "raw";
  if (l.raw) {
    r.allow({"name", "up", "down", "kind", "bandwidth_up_GBps", "bandwidth_down_GBps", "latency_ns",
             "vcs", "vc_tcs", "credits", "fc_latency_ns", "arbitration_up", "arbitration_down"});
    l.up_GBps = r.rate_in("bandwidth_up_GBps", LinkParams().raw_GBps, kMinGBps, kMaxGBps);
    l.down_GBps = r.rate_in("bandwidth_down_GBps", LinkParams().raw_GBps, kMinGBps, kMaxGBps);
    return;
  }
  r.allow({"name", "up", "down", "kind", "gen", "width", "ecrc", "max_up_GBps", "max_down_GBps", "latency_ns",
           "vcs", "vc_tcs", "credits", "fc_latency_ns", "arbitration_up", "arbitration_down"});
  l.max_up_GBps = parse_cap(r, "max_up_GBps");
  l.max_down_GBps = parse_cap(r, "max_down_GBps");
  l.pcie.gen = parse_gen(r);
  l.pcie.width = r.get<int>("width", PcieLinkParams().width);
  if (!valid_width(l.pcie.width))
    r.fail("width", "must be one of 1, 2, 4, 8, 16, 32 lanes, got " + std::to_string(l.pcie.width));
  l.pcie.ecrc = r.get<bool>("ecrc", false);
  l.pcie.mps = pf.mps;
  l.pcie.dllp = pf.dllp;
}

LinkCfg parse_link(const Reader& r, const PlatformCfg& pf) {
  LinkCfg l;
  parse_link_kind(r, pf, l);
  l.up = r.need<std::string>("up");
  l.down = r.need<std::string>("down");
  if (r.has("name")) r.check_name("name", r.need<std::string>("name"));
  l.name = r.get<std::string>("name", l.up + "-" + l.down);
  const LinkParams def;
  l.latency_ns = r.latency_ns("latency_ns", def.latency_ns);
  l.vcs = r.int_in("vcs", def.vcs, 1, kMaxVcs);
  parse_tc_map(r, l);
  l.credits = parse_credits(r.map("credits"), pf);
  l.fc_latency_ns = r.latency_ns("fc_latency_ns", l.raw ? 0.0 : update_fc_latency_ns(l.pcie));
  // Upward traffic leaves from the lower node's egress, downward from the upper node's.
  if (r.has("arbitration_up"))
    l.arb_up = parse_arbitration(r.map("arbitration_up"), arbitration_base(pf, l.down), pf.arbiter_impl);
  if (r.has("arbitration_down"))
    l.arb_down = parse_arbitration(r.map("arbitration_down"), arbitration_base(pf, l.up), pf.arbiter_impl);
  l.origin = r.origin();
  return l;
}

std::vector<std::string> node_type_names() {
  std::vector<std::string> v = {"root_complex", "io_hub", "switch", "gpu"};
  for (const std::string& e : endpoint_type_names()) v.push_back(e);
  return v;
}

NodeKind node_kind(const std::string& type) {
  if (type == "root_complex") return NodeKind::RootComplex;
  if (type == "io_hub") return NodeKind::IoHub;
  if (type == "switch") return NodeKind::Switch;
  if (type == "gpu") return NodeKind::Gpu;
  return NodeKind::Endpoint;
}

double read_endpoint_key(const Reader& r, const EndpointKey& k) {
  switch (k.kind) {
    case KeyKind::Number: return r.number_in(k.name, k.def, k.lo, k.hi);
    case KeyKind::Count: return static_cast<double>(r.int_in(k.name, static_cast<int>(k.def), static_cast<int>(k.lo),
                                                             static_cast<int>(std::min(k.hi, 2e9))));
    case KeyKind::Time: return r.time_in(k.name, k.def, k.lo, k.hi);
    case KeyKind::Rate: return r.rate_in(k.name, k.def, k.lo, k.hi);
    case KeyKind::Bytes: {
      const double b = static_cast<double>(r.bytes(k.name, static_cast<uint64_t>(k.def)));
      if (b < k.lo || b > k.hi) r.fail(k.name, "must be in [" + std::to_string(static_cast<uint64_t>(k.lo)) + ", " +
                                                   std::to_string(static_cast<uint64_t>(k.hi)) + "] bytes");
      return b;
    }
    case KeyKind::Choice: {
      const std::string v = r.one_of(k.name, k.choices.at(static_cast<std::size_t>(k.def)), k.choices);
      return static_cast<double>(std::find(k.choices.begin(), k.choices.end(), v) - k.choices.begin());
    }
  }
  return k.def;
}

// A node of a registered endpoint type (node_types.h): its keys as the type declares them.
EndpointCfg parse_endpoint(const Reader& r, const EndpointType& t) {
  std::vector<std::string> keys = {"name", "type", "arbitration"};
  for (const EndpointKey& k : t.keys) keys.push_back(k.name);
  r.allow(keys);
  EndpointCfg e;
  e.type = &t;
  for (const EndpointKey& k : t.keys) e.values[k.name] = read_endpoint_key(r, k);
  if (t.check) {
    const auto [key, reason] = t.check(e);
    if (!key.empty()) r.fail(key, reason);
  }
  return e;
}

// A MIG profile's compute slices: "3g" or "3g.20gb" (seed 001 §3.1 names 1g.5gb, 2g.10gb,
// 3g.20gb; the memory part is accepted and not modelled). An A100 (7 slices) offers 1g, 2g,
// 3g, 4g and 7g instances; a GPU with other `mig_slices` any size up to it.
int mig_profile_slices(const Reader& r, const std::string& key, const YAML::Node& v, int slices) {
  const std::string text = v.IsScalar() ? v.Scalar() : std::string("(not a string)");
  std::size_t g = 0;
  while (g < text.size() && std::isdigit(static_cast<unsigned char>(text[g]))) ++g;
  const bool memory_ok = g + 1 == text.size() || (text.size() > g + 4 && text[g + 1] == '.' &&
                                                   text.compare(text.size() - 2, 2, "gb") == 0);
  if (g == 0 || g > 4 || g >= text.size() || text[g] != 'g' || !memory_ok)
    r.fail(key, "expected a MIG profile such as 1g, 3g or 3g.20gb, got '" + text + "'");
  const int n = std::stoi(text.substr(0, g));
  if (!mig_size_offered(n, slices))
    r.fail(key, "no " + std::to_string(n) + "g instance on a GPU of " + std::to_string(slices) +
                    " slices (mig_slices)" + (slices == 7 ? ": an A100 offers 1g, 2g, 3g, 4g and 7g" : ""));
  return n;
}

// `mig:` the GPU's instances, their slices adding up to at most `mig_slices`. Each copies with
// its own engines, pulling H2D data (a host DMA engine per GPU would serialise them).
void parse_mig(const Reader& r, GpuParams& g) {
  g.mig_slices = r.int_in("mig_slices", g.mig_slices, 1, 64);
  int used = 0;
  const YAML::Node list = r.has("mig") ? r.node()["mig"] : YAML::Node();
  if (list.IsDefined() && !list.IsNull() && !list.IsSequence())
    r.fail("mig", "expected a list of MIG profiles, e.g. [1g, 2g, 3g.20gb]");
  for (std::size_t i = 0; list.IsSequence() && i < list.size(); ++i) {
    g.mig.push_back(mig_profile_slices(r, "mig[" + std::to_string(i) + "]", list[i], g.mig_slices));
    used += g.mig.back();
  }
  if (used > g.mig_slices)
    r.fail("mig", "the instances take " + std::to_string(used) + " slices; the GPU has " +
                      std::to_string(g.mig_slices) + " (mig_slices)");
  if (!g.mig.empty() && g.h2d_mode == H2dMode::HostPush)
    r.fail("mig", "MIG instances need h2d_mode read: each pulls its data with its own copy engine (one "
                  "host DMA engine per GPU would serialise them)");
  if (!g.mig.empty() && g.sm.sms / g.mig_slices < 1)
    r.fail("sms", std::to_string(g.sm.sms) + " SMs cannot make " + std::to_string(g.mig_slices) + " MIG slices");
}

void parse_gpu(const Reader& r, const PlatformCfg& pf, GpuParams& g) {
  r.allow({"name", "type", "copy_engines", "tags", "read_latency_ns", "h2d_mode", "copy_submit_ns", "sms", "blocks_per_sm",
           "max_concurrent_kernels", "block_slowdown", "mig", "mig_slices", "arbitration"});
  const GpuParams def;
  g.copy_engines = r.int_in("copy_engines", def.copy_engines, 1, 16);
  g.tags = r.int_in("tags", def.tags, 1, 768);
  g.read_latency_ns = r.latency_ns("read_latency_ns", def.read_latency_ns);
  g.copy_submit_ns = r.latency_ns("copy_submit_ns", def.copy_submit_ns);
  g.sm.sms = r.int_in("sms", def.sm.sms, 1, 4096);
  g.sm.blocks_per_sm = r.int_in("blocks_per_sm", def.sm.blocks_per_sm, 1, 64);
  g.sm.max_concurrent_kernels = r.int_in("max_concurrent_kernels", def.sm.max_concurrent_kernels, 1, 1024);
  g.sm.block_slowdown = r.number_in("block_slowdown", def.sm.block_slowdown, 0, 10);
  g.h2d_mode = r.one_of("h2d_mode", pf.h2d_mode == H2dMode::HostPush ? "push" : "read", {"read", "push"}) == "push"
                   ? H2dMode::HostPush
                   : H2dMode::DeviceRead;
  parse_mig(r, g);
}

// A switch's, I/O hub's or root complex's crossbar; a root complex's host memory too.
void parse_crossbar(const Reader& r, NodeCfg& n) {
  if (n.is(NodeKind::RootComplex))
    r.allow({"name", "type", "latency_ns", "forwarding", "voq", "memory", "arbitration"});
  else
    r.allow({"name", "type", "latency_ns", "forwarding", "voq", "arbitration"});
  n.crossbar.latency_ns =
      r.latency_ns("latency_ns", n.is(NodeKind::Switch) ? SwitchParams().latency_ns : kCrossbarLatencyNs);
  n.crossbar.store_and_forward =
      r.one_of("forwarding", "cut_through", {"cut_through", "store_and_forward"}) == "store_and_forward";
  n.crossbar.voq = r.get<bool>("voq", SwitchParams().voq);
  if (!n.is(NodeKind::RootComplex)) return;
  Reader m = r.map("memory");
  m.allow({"bandwidth_GBps", "write_GBps", "read_latency_ns"});
  const HostMemoryParams def;
  n.memory.bandwidth_GBps = m.rate_in("bandwidth_GBps", def.bandwidth_GBps, kMinGBps, kMaxGBps);
  n.memory.write_GBps = m.rate_in("write_GBps", n.memory.bandwidth_GBps, kMinGBps, kMaxGBps);
  n.memory.read_latency_ns = m.latency_ns("read_latency_ns", def.read_latency_ns);
}

NodeCfg parse_node(const Reader& r, const PlatformCfg& pf) {
  NodeCfg n;
  n.name = r.need<std::string>("name");
  r.check_name("name", n.name);
  const std::string type = r.one_of("type", "switch", node_type_names());
  n.kind = node_kind(type);
  if (n.is(NodeKind::Gpu)) parse_gpu(r, pf, n.gpu);
  else if (n.is(NodeKind::Endpoint)) n.endpoint = parse_endpoint(r, *find_endpoint_type(type));
  else parse_crossbar(r, n);
  if (r.has("arbitration"))
    n.arbitration = parse_arbitration(r.map("arbitration"), pf.arbitration, pf.arbiter_impl);
  n.origin = r.origin();
  return n;
}

// `defaults.link`, when given: its keys are checked here (names and `kind`); their values
// where a link uses them, with errors reported here (merge_defaults).
std::optional<Reader> link_defaults(const Reader& r) {
  if (!r.has("defaults")) return std::nullopt;
  const Reader d = r.map("defaults");
  d.allow({"link"});
  if (!d.has("link")) return std::nullopt;
  const Reader l = d.map("link");
  l.allow({"kind", "gen", "width", "ecrc", "max_up_GBps", "max_down_GBps", "bandwidth_up_GBps",
           "bandwidth_down_GBps", "latency_ns", "vcs", "vc_tcs", "credits", "fc_latency_ns", "arbitration_up",
           "arbitration_down"});
  if (l.has("kind")) l.one_of("kind", "pcie", {"pcie", "raw"});
  return l;
}

void parse_fabric_settings(const Reader& r, PlatformCfg& pf) {
  r.allow({"name", "description", "mps", "mrrs", "completion", "rcb", "dllp_model", "h2d_mode", "defaults",
           "arbitration", "arbiter_impl", "nodes", "links"});
  if (r.has("description")) r.need<std::string>("description");
  pf.name = r.get<std::string>("name", "platform");
  // Default H2D mode of every GPU: device read (MRd by the GPU's copy engine) or host push.
  pf.h2d_mode = r.one_of("h2d_mode", "read", {"read", "push"}) == "push" ? H2dMode::HostPush : H2dMode::DeviceRead;
  pf.mps = r.get<int>("mps", DmaParams().mps);
  if (!valid_payload_size(pf.mps)) r.fail("mps", "must be 128, 256, 512, 1024, 2048 or 4096");
  pf.mrrs = r.get<int>("mrrs", DmaParams().mrrs);
  if (!valid_payload_size(pf.mrrs)) r.fail("mrrs", "must be 128, 256, 512, 1024, 2048 or 4096");
  const std::string completion = r.one_of("completion", "mps", {"mps", "rcb"});
  const int rcb = r.get<int>("rcb", 64);
  if (rcb != 64 && rcb != 128) r.fail("rcb", "must be 64 or 128 (docs/pcie-reference.md §3)");
  pf.completion_bytes = completion == "rcb" ? rcb : pf.mps;
  const std::string dllp = r.get<std::string>("dllp_model", "pcie-bench");
  if (!parse_dllp_model(dllp, &pf.dllp)) r.fail("dllp_model", "must be pcie-bench, lane-scaled or none");
  // The implementation of every arbiter that names none, including those the platform
  // builds itself (--arbiter-impl sets it).
  pf.arbiter_impl = parse_impl(r, "arbiter_impl");
  // The platform's arbiters are the last fallback, so both are always parsed: their
  // defaults (rr) then show in the effective config.
  const Reader a = r.map("arbitration");
  a.allow({"vc_arbiter", "port_arbiter"});
  pf.arbitration.vc = parse_arbiter(a.map("vc_arbiter"), pf.arbiter_impl);
  pf.arbitration.port = parse_arbiter(a.map("port_arbiter"), pf.arbiter_impl);
}

}  // namespace

PlatformCfg parse_platform(const Reader& r) {
  PlatformCfg pf;
  parse_fabric_settings(r, pf);
  for (const Reader& nr : r.list("nodes")) pf.nodes.push_back(parse_node(nr, pf));
  if (pf.nodes.empty()) r.fail("nodes", "a platform needs at least one node");
  const std::optional<Reader> defaults = link_defaults(r);
  for (Reader& lr : r.list("links")) {
    if (defaults) merge_defaults(lr, *defaults);
    pf.links.push_back(parse_link(lr, pf));
  }
  pf.origin = r.origin();
  return pf;
}

}  // namespace arbsim
