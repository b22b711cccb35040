#include "models/pcie/arbiters/rtl/rtl_arbiter.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <utility>
#include "models/pcie/arbiters/rtl/rtl_waves.h"
#include "models/pcie/arbiters/weighted_round_robin.h"

namespace arbsim::rtl {

namespace {

// Modules destroyed before the simulation started (see rtl_arbiter.h): kept, never freed.
std::vector<RtlArbiterModule*>& graveyard() {
  static auto* g = new std::vector<RtlArbiterModule*>();
  return *g;
}

std::string hex(uint32_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

// The verilated model for a spec, and the phase table it would hold; a reason in `why`
// when this build has none.
const ModelEntry* model_for(const ArbiterSpec& spec, int n, std::vector<int>* phases, std::string* why) {
  const ModelEntry* m = find_model(spec.type->name, n);
  if (!m) {
    std::string sizes;
    for (const ModelEntry& e : built_models())
      if (e.type == std::string(spec.type->name)) sizes += (sizes.empty() ? "" : ", ") + std::to_string(e.n);
    *why = "impl rtl has no verilated '" + std::string(spec.type->name) + "' arbiter for " + std::to_string(n) +
           " requesters (built: N = " + sizes + "; ARBSIM_RTL_SIZES in cmake/rtl.cmake)";
    return nullptr;
  }
  if (spec.type->weighted)
    *phases = spec.phases.empty() ? WeightedRoundRobinArbiter::expand_weights(spec.weights) : spec.phases;
  if (static_cast<int>(phases->size()) > m->maxl) {
    *why = "impl rtl holds at most " + std::to_string(m->maxl) + " wrr phases (PCIe tables have up to 256), this one has " +
           std::to_string(phases->size());
    return nullptr;
  }
  return m;
}

std::string check_rtl(const ArbiterSpec& spec, int n) {
  std::vector<int> phases;
  std::string why;
  model_for(spec, n, &phases, &why);
  return why;
}

std::unique_ptr<Arbiter> make_rtl(const ArbiterSpec& spec, int n, std::unique_ptr<Arbiter> reference) {
  RtlSetup s;
  std::string why;
  const ModelEntry* m = model_for(spec, n, &s.phases, &why);
  if (!m) throw std::invalid_argument("arbiter spec: " + why);
  s.n = n;
  s.threshold = static_cast<uint32_t>(spec.starvation_threshold);
  s.describe = reference->describe();
  return std::make_unique<RtlArbiter>(*m, std::move(s));
}

void request_waves(const std::string& path) { Waves::get().request(path); }

const bool registered = (register_arbiter_impl("rtl", ArbiterImpl{&make_rtl, &request_waves, &check_rtl}), true);

}  // namespace

const ModelEntry* find_model(const std::string& type, int n) {
  const ModelEntry* best = nullptr;
  for (const ModelEntry& e : built_models())
    if (type == e.type && e.n >= std::max(n, 2) && (!best || e.n < best->n)) best = &e;
  return best;
}

// ---- RtlArbiterModule ----------------------------------------------------------------------

RtlArbiterModule::RtlArbiterModule(sc_core::sc_module_name name, const ModelEntry& model, RtlSetup setup)
    : sc_core::sc_module(name), entry_(model), setup_(std::move(setup)), model_(model.make("rtl", pins_)) {
  (void)registered;
}

RtlArbiterModule::~RtlArbiterModule() {
  if (traced_) Waves::get().detach();
}

void RtlArbiterModule::end_of_elaboration() {
  bound_ = true;  // the ports reach their wires from now on
  configure();
}

void RtlArbiterModule::start_of_simulation() {
  if (orphaned_ || !Waves::get().requested()) return;
  Waves::get().attach(*model_);
  traced_ = true;
}

// One full clock with the inputs as they are.
void RtlArbiterModule::clock() {
  pins_.clk.write(false);
  model_->eval();
  if (traced_) Waves::get().dump(false);
  pins_.clk.write(true);
  model_->eval();
  if (traced_) Waves::get().dump(true);
}

void RtlArbiterModule::configure() {
  if (!bound_) return;  // end_of_elaboration() configures
  pins_.req.write(0);
  pins_.tbl_we.write(false);
  pins_.thresh.write(setup_.threshold);
  pins_.tbl_len.write(setup_.phases.empty() ? 1u : static_cast<uint32_t>(setup_.phases.size()));
  pins_.rst_n.write(false);
  clock();
  pins_.rst_n.write(true);
  for (std::size_t j = 0; j < setup_.phases.size(); ++j) {
    pins_.tbl_we.write(true);
    pins_.tbl_addr.write(static_cast<uint32_t>(j));
    pins_.tbl_data.write(static_cast<uint32_t>(setup_.phases[j]));
    clock();
  }
  pins_.tbl_we.write(false);
}

RawGrant RtlArbiterModule::cycle(uint32_t requests) {
  if (!bound_) {
    const std::string msg = std::string(name()) + ": an RTL arbiter cannot grant before elaboration has ended";
    SC_REPORT_ERROR("arbsim/rtl", msg.c_str());
  }
  pins_.req.write(requests);
  pins_.clk.write(false);
  model_->eval();
  const RawGrant g{pins_.gnt_valid.read(), pins_.gnt.read()};
  if (traced_) Waves::get().dump(false);
  pins_.clk.write(true);
  model_->eval();
  if (traced_) Waves::get().dump(true);
  return g;
}

// ---- RtlArbiter ----------------------------------------------------------------------------

RtlArbiter::RtlArbiter(const ModelEntry& model, RtlSetup setup)
    : valid_(setup.n >= 32 ? ~0u : (1u << setup.n) - 1u) {
  if (sc_core::sc_start_of_simulation_invoked())
    throw std::invalid_argument("arbiter spec: an rtl arbiter must be built before the simulation starts");
  mod_ = new RtlArbiterModule(sc_core::sc_gen_unique_name("rtl_arbiter"), model, std::move(setup));
}

RtlArbiter::~RtlArbiter() {
  if (sc_core::sc_start_of_simulation_invoked()) {
    delete mod_;
  } else {
    mod_->orphan();
    graveyard().push_back(mod_);
  }
}

// The RTL models have at most 32 requesters (find_model() refuses more), so the requests
// are word 0's low 32 bits.
int RtlArbiter::grant(const Requests& requests) {
  uint32_t req = 0;
  requests.for_each_below(mod_->setup().n, [&](int i) { req |= 1u << i; });
  req &= valid_;
  const RawGrant g = mod_->cycle(req);
  if (req == 0 && !g.valid) return -1;
  if (req != 0 && g.valid && g.gnt < 32 && ((req >> g.gnt) & 1u)) return static_cast<int>(g.gnt);
  const std::string msg = std::string(name()) + " (" + describe() + ", " + model().top + " N=" +
                          std::to_string(model().n) + "): requests " + hex(req) + " gave gnt_valid=" +
                          std::to_string(g.valid) + " gnt=" + std::to_string(g.gnt) +
                          (req == 0 ? " (no request: gnt_valid must be 0)" : " (not a requesting index)");
  SC_REPORT_ERROR("arbsim/rtl", msg.c_str());
  return -1;
}

}  // namespace arbsim::rtl
