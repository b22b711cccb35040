// A zero-delay SystemC channel for the pins of a verilated arbiter (docs/cosim.md).
//
// An sc_signal makes a write visible one delta cycle later, but an egress port asks its
// arbiter for a grant inside one SC_METHOD run and needs the answer at once. A Wire is an
// sc_signal_inout_if whose write is visible immediately, like a net driven by one driver in
// the same evaluation. The adapter is the only writer of the inputs and the verilated model
// the only writer of the outputs. A Wire never notifies its events: the adapter evaluates
// the model itself on every change (RtlArbiterModule::cycle), so the model's own
// sensitivity-driven SC_METHOD runs only once, at initialisation, with nothing to do.
#pragma once
#include <systemc>

namespace arbsim::rtl {

template <class T>
class WireBase : public sc_core::sc_prim_channel, public sc_core::sc_signal_inout_if<T> {
 public:
  explicit WireBase(const char* name) : sc_core::sc_prim_channel(name) {}

  void write(const T& v) override { value_ = v; }
  const T& read() const override { return value_; }
  const T& get_data_ref() const override { return value_; }
  bool event() const override { return false; }
  const sc_core::sc_event& value_changed_event() const override { return never_; }
  const sc_core::sc_event& default_event() const override { return never_; }
  const char* kind() const override { return "arbsim_rtl_wire"; }

 protected:
  T value_{};
  sc_core::sc_event never_;
};

template <class T>
class Wire : public WireBase<T> {
 public:
  using WireBase<T>::WireBase;
};

// sc_in<bool>/sc_out<bool> also ask for edges.
template <>
class Wire<bool> : public WireBase<bool> {
 public:
  using WireBase<bool>::WireBase;
  const sc_core::sc_event& posedge_event() const override { return never_; }
  const sc_core::sc_event& negedge_event() const override { return never_; }
  bool posedge() const override { return false; }
  bool negedge() const override { return false; }
};

}  // namespace arbsim::rtl
