#include "bench/bare_fabric.h"
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>
#include <stdexcept>

namespace arbsim::bench {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
int64_t ps(double ns) { return static_cast<int64_t>(std::llround(ns * 1000.0)); }

enum Kind : uint8_t { kMWr, kMRd, kCplD };

enum EventKind : uint32_t { kWake, kArrive, kServe };  // a port arbitrates; a TLP's tail at an endpoint; memory serves a read

struct Event {
  int64_t t;
  uint32_t kind;  // EventKind
  int32_t a;      // the port, the TLP, the read
  bool operator>(const Event& o) const { return t > o.t; }
};

// Credits a port gets back, at `at` (a port's returns come in time order: one delay).
struct Return {
  int64_t at;
  int32_t data;  // posted data units; < 0: one non-posted header
};

// A FIFO of ints on a ring (no allocation once grown).
class Ring {
 public:
  bool empty() const { return n_ == 0; }
  std::size_t size() const { return n_; }
  int front() const { return b_[h_]; }
  void push_back(int v) {
    if (n_ == b_.size()) grow();
    b_[(h_ + n_) & (b_.size() - 1)] = v;
    ++n_;
  }
  void pop_front() {
    h_ = (h_ + 1) & (b_.size() - 1);
    --n_;
  }

 private:
  void grow() {
    std::vector<int> b(b_.empty() ? 8 : 2 * b_.size());
    for (std::size_t i = 0; i < n_; ++i) b[i] = b_[(h_ + i) & (b_.size() - 1)];
    b_.swap(b);
    h_ = 0;
  }
  std::vector<int> b_;
  std::size_t h_ = 0, n_ = 0;
};


struct Tlp {
  Kind kind = kMWr;
  uint32_t bytes = 0;
  int dest = -1;              // endpoint index it is routed to
  int reader = -1;            // a read's engine (its GPU site), for the completions
  bool last = false;          // a read's last completion / a copy's last write
  int64_t head = 0, tail = 0, ready = 0;
  int egress = -1;            // the port its current node sends it out of
};

struct Queue {  // a FIFO that requests at one or more egress ports
  Ring tlps;
  int site = -1;
  int in_port = -1;  // a crossbar's ingress queue: the port it receives on (else -1)
};

struct Port {  // the transmit side of one link direction (Scenario::walk)
  LinkDirection link;
  int to_site = -1, to_port = -1;
  int64_t prop = 0, credit_return = 0, busy_until = 0, wake_at = kNever;
  int64_t posted_hdr = -1, posted_data = -1, np_hdr = -1;  // the receiver's buffer; < 0: infinite
  std::vector<int> queues;  // requesters, in slot order
  std::size_t rr = 0;       // the next requester to look at first
  std::deque<Return> returns;
  bool blocked = false;     // a ready head waits for credits
};

struct Site {
  bool crossbar = false, memory = false;
  int64_t latency = 0, read_latency = 0;
  bool store_and_forward = false;
  std::vector<int> out, in;  // ports (walk indices)
  std::vector<int> ingress;  // [port] its queue (crossbars)
  std::vector<Route> routes;
  int default_port = -1;
  int endpoint = -1;
  int memory_endpoint = -1;  // a GPU: its root complex's memory
  // A GPU's engines: queue, copies left, bytes issued of the current copy, tags free.
  int write_q = -1, read_q = -1, completer_q = -1;
  uint64_t writes_left = 0, reads_left = 0, write_issued = 0, read_issued = 0, read_received = 0;
  int tags = 0;
};

class Bare {
 public:
  Bare(const Scenario& s, const BareWorkload& w) : s_(s), w_(w) { build(); }

  BareResult run() {
    for (std::size_t i = 0; i < sites_.size(); ++i) {
      refill(static_cast<int>(i));
    }
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      now_ = e.t;
      switch (e.kind) {
        case kWake: wake(e.a); break;
        case kArrive: arrive(e.a); break;
        case kServe: serve(e.a); break;
      }
    }
    return result_;
  }

 private:
  void build() {
    const PlatformCfg& pf = s_.platform();
    mps_ = static_cast<uint32_t>(pf.mps);
    mrrs_ = static_cast<uint32_t>(pf.mrrs);
    cpl_ = static_cast<uint32_t>(pf.completion_bytes);
    ports_.resize(s_.walk.size());
    for (std::size_t d = 0; d < s_.walk.size(); ++d) {
      const LinkDir& l = s_.walk[d];
      Port& p = ports_[d];
      p.link = l.egress.link;
      p.to_site = l.to_site;
      p.to_port = l.to_port;
      p.prop = ps(l.egress.link.propagation_ns);
      p.credit_return = ps(l.ingress.credit_return_ns);
      p.posted_hdr = l.egress.credits.header[0];
      p.posted_data = l.egress.credits.data[0];
      p.np_hdr = l.egress.credits.header[1];
    }
    sites_.resize(s_.sites.size());
    for (std::size_t i = 0; i < s_.sites.size(); ++i) build_site(static_cast<int>(i));
    for (int g : w_.writers) gpu(g).writes_left = w_.copies;
    for (int g : w_.readers) gpu(g).reads_left = w_.copies;
  }

  void build_site(int i) {
    const arbsim::Site& from = s_.sites[static_cast<std::size_t>(i)];
    Site& x = sites_[static_cast<std::size_t>(i)];
    x.out = from.out;
    x.in = from.in;
    x.endpoint = from.endpoint;
    x.routes = from.routes;
    x.default_port = from.default_port;
    const NodeCfg& n = s_.platform().nodes[static_cast<std::size_t>(from.node)];
    if (from.memory) {
      x.memory = true;
      x.read_latency = ps(n.memory.read_latency_ns);
      x.completer_q = queue(i, -1, from.out.at(0));
    } else if (n.is(NodeKind::RootComplex) || n.is(NodeKind::Switch)) {
      x.crossbar = true;
      x.latency = ps(n.crossbar.latency_ns);
      x.store_and_forward = n.crossbar.store_and_forward;
      for (std::size_t p = 0; p < from.in.size(); ++p) x.ingress.push_back(queue(i, static_cast<int>(p), -1));
      // Every ingress queue requests at every egress of the node (its head says where).
      for (int d : from.out)
        for (int q : x.ingress) ports_[static_cast<std::size_t>(d)].queues.push_back(q);
    } else if (n.is(NodeKind::Gpu)) {
      x.tags = n.gpu.tags;
      x.read_q = queue(i, -1, from.out.at(0));
      x.write_q = queue(i, -1, from.out.at(0));
      x.memory_endpoint = memory_above(i);
    } else {
      throw std::invalid_argument("bare loop: node '" + n.name + "' is neither root complex, switch nor GPU");
    }
  }

  int queue(int site, int in_port, int requests_at) {
    queues_.push_back(Queue{{}, site, in_port});
    const int q = static_cast<int>(queues_.size()) - 1;
    if (requests_at >= 0) ports_[static_cast<std::size_t>(requests_at)].queues.push_back(q);
    return q;
  }

  // A GPU's root complex (up through the default ports) and its memory's endpoint.
  int memory_above(int gpu_site) const {
    int site = s_.walk.at(static_cast<std::size_t>(s_.sites[static_cast<std::size_t>(gpu_site)].out.at(0))).to_site;
    while (true) {
      const arbsim::Site& x = s_.sites[static_cast<std::size_t>(site)];
      if (s_.platform().nodes[static_cast<std::size_t>(x.node)].is(NodeKind::RootComplex))
        return s_.sites[static_cast<std::size_t>(s_.memory_site(x.node))].endpoint;
      if (x.default_port < 0) throw std::invalid_argument("bare loop: a GPU with no root complex above it");
      site = s_.walk.at(static_cast<std::size_t>(x.out.at(static_cast<std::size_t>(x.default_port)))).to_site;
    }
  }

  Site& gpu(int ordinal) {
    return sites_.at(static_cast<std::size_t>(s_.topo.gpus.at(static_cast<std::size_t>(ordinal))));
  }

  void at(int64_t t, uint32_t kind, int a) { events_.push({t, kind, a}); }

  void wake_at(int port, int64_t t) {
    Port& p = ports_[static_cast<std::size_t>(port)];
    t = std::max(t, now_);
    if (t >= p.wake_at) return;
    p.wake_at = t;
    at(t, kWake, port);
  }

  int new_tlp(Kind k, uint32_t bytes, int dest) {
    int id;
    if (free_.empty()) {
      id = static_cast<int>(tlps_.size());
      tlps_.emplace_back();
    } else {
      id = free_.back();
      free_.pop_back();
    }
    Tlp& t = tlps_[static_cast<std::size_t>(id)];
    t = Tlp{};
    t.kind = k;
    t.bytes = bytes;
    t.dest = dest;
    t.head = t.tail = t.ready = now_;
    return id;
  }

  // The egress port a crossbar sends a TLP for endpoint `dest` out of.
  int route(const Site& x, int dest) const {
    for (const Route& r : x.routes)
      if (dest >= r.lo && dest < r.hi) return x.out[static_cast<std::size_t>(r.port)];
    return x.out[static_cast<std::size_t>(x.default_port)];
  }

  // A queue's new head asks for its egress (a crossbar's routes; an endpoint's one port).
  void present(int q) {
    const Queue& x = queues_[static_cast<std::size_t>(q)];
    if (x.tlps.empty()) return;
    Tlp& t = tlps_[static_cast<std::size_t>(x.tlps.front())];
    const Site& site = sites_[static_cast<std::size_t>(x.site)];
    t.egress = site.crossbar ? route(site, t.dest) : site.out[0];
    wake_at(t.egress, t.ready);
  }

  // A GPU's engines keep two TLPs prepared (DmaParams::queue_depth); a read within its tags.
  void refill(int i) {
    Site& x = sites_[static_cast<std::size_t>(i)];
    if (x.write_q >= 0) {
      Queue& q = queues_[static_cast<std::size_t>(x.write_q)];
      const bool empty = q.tlps.empty();
      while (q.tlps.size() < 2 && x.writes_left > 0) {
        const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(mps_, w_.bytes - x.write_issued));
        const int t = new_tlp(kMWr, n, x.memory_endpoint);
        x.write_issued += n;
        if (x.write_issued == w_.bytes) {
          tlps_[static_cast<std::size_t>(t)].last = true;
          x.write_issued = 0;
          --x.writes_left;
        }
        q.tlps.push_back(t);
      }
      if (empty) present(x.write_q);
    }
    if (x.read_q >= 0) {
      Queue& q = queues_[static_cast<std::size_t>(x.read_q)];
      const bool empty = q.tlps.empty();
      while (q.tlps.size() < 2 && x.tags > 0 && x.reads_left > 0) {
        const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(mrrs_, w_.bytes - x.read_issued));
        const int t = new_tlp(kMRd, n, x.memory_endpoint);
        tlps_[static_cast<std::size_t>(t)].reader = i;
        --x.tags;
        x.read_issued += n;
        if (x.read_issued == w_.bytes) {
          x.read_issued = 0;
          --x.reads_left;
        }
        q.tlps.push_back(t);
      }
      if (empty) present(x.read_q);
    }
  }

  bool has_credits(const Port& p, const Tlp& t) const {
    if (t.kind == kMWr) return (p.posted_hdr < 0 || p.posted_hdr > 0) && (p.posted_data < 0 || p.posted_data >= data_units(t));
    if (t.kind == kMRd) return p.np_hdr < 0 || p.np_hdr > 0;
    return true;  // completions: infinite
  }
  static int64_t data_units(const Tlp& t) { return credit_cost(TlpType::MWr, t.bytes).data; }

  void wake(int port) {
    Port& p = ports_[static_cast<std::size_t>(port)];
    if (now_ != p.wake_at) return;  // superseded by an earlier wake
    p.wake_at = kNever;
    apply_returns(p);
    if (now_ < p.busy_until) return wake_at(port, p.busy_until);
    int64_t next = kNever;
    for (std::size_t k = 0; k < p.queues.size(); ++k) {
      const std::size_t slot = (p.rr + k) % p.queues.size();
      Queue& q = queues_[static_cast<std::size_t>(p.queues[slot])];
      if (q.tlps.empty()) continue;
      const Tlp& head = tlps_[static_cast<std::size_t>(q.tlps.front())];
      if (head.egress != port) continue;
      if (head.ready > now_) {
        next = std::min(next, head.ready);
        continue;
      }
      if (!has_credits(p, head)) {
        p.blocked = true;
        continue;
      }
      p.rr = (slot + 1) % p.queues.size();
      p.blocked = false;
      return transmit(port, p.queues[slot]);
    }
    if (p.blocked && !p.returns.empty()) next = std::min(next, p.returns.front().at);
    if (next != kNever) wake_at(port, next);
  }

  void apply_returns(Port& p) {
    while (!p.returns.empty() && p.returns.front().at <= now_) {
      const Return r = p.returns.front();
      p.returns.pop_front();
      if (r.data < 0) {
        if (p.np_hdr >= 0) ++p.np_hdr;
      } else {
        if (p.posted_hdr >= 0) ++p.posted_hdr;
        if (p.posted_data >= 0) p.posted_data += r.data;
      }
    }
  }

  void transmit(int port, int qi) {
    Port& p = ports_[static_cast<std::size_t>(port)];
    Queue& q = queues_[static_cast<std::size_t>(qi)];
    const int id = q.tlps.front();
    q.tlps.pop_front();
    Tlp& t = tlps_[static_cast<std::size_t>(id)];
    if (t.kind == kMWr) {
      if (p.posted_hdr > 0) --p.posted_hdr;
      if (p.posted_data >= 0) p.posted_data -= data_units(t);
    } else if (t.kind == kMRd && p.np_hdr > 0) {
      --p.np_hdr;
    }
    const int64_t ser = static_cast<int64_t>(p.link.serialize_ps(p.link.wire_bytes(
        t.kind == kMWr ? TlpType::MWr : t.kind == kMRd ? TlpType::MRd : TlpType::CplD, t.kind == kMRd ? 0 : t.bytes)));
    p.busy_until = now_ + ser;
    ++result_.hops;
    // What leaves a buffer frees its credits at the port that filled it.
    if (q.in_port >= 0) give_back(sites_[static_cast<std::size_t>(q.site)].in[static_cast<std::size_t>(q.in_port)], t, now_);
    t.head = now_ + p.prop;
    t.tail = p.busy_until + p.prop;
    Site& to = sites_[static_cast<std::size_t>(p.to_site)];
    if (to.crossbar) {
      t.ready = (to.store_and_forward ? t.tail : t.head) + to.latency;
      Queue& in = queues_[static_cast<std::size_t>(to.ingress[static_cast<std::size_t>(p.to_port)])];
      in.tlps.push_back(id);
      if (in.tlps.size() == 1) present(to.ingress[static_cast<std::size_t>(p.to_port)]);
    } else if (t.kind == kMRd) {
      give_back(to.in[0], t, t.tail);
      at(t.tail + to.read_latency, kServe, id);  // served after the memory's latency
    } else if (t.kind == kCplD || t.last) {
      at(t.tail, kArrive, id);
    } else {
      give_back(to.in[0], t, t.tail);  // a write's bytes land: nothing waits on them
      free_.push_back(id);
    }
    if (q.in_port < 0) refill(q.site);
    present(qi);
    wake_at(port, p.busy_until);
  }

  // Credits back at `port` after its return delay: applied at its next arbitration, which
  // comes then if a head waits for them.
  void give_back(int port, const Tlp& t, int64_t when) {
    if (t.kind == kCplD) return;
    Port& p = ports_[static_cast<std::size_t>(port)];
    const int64_t at_ = when + p.credit_return;
    p.returns.push_back({at_, t.kind == kMRd ? -1 : static_cast<int32_t>(data_units(t))});
    if (p.blocked) wake_at(port, at_);
  }

  // A TLP's tail at an endpoint: a write lands, a read reaches memory, a completion its engine.
  void arrive(int id) {
    Tlp& t = tlps_[static_cast<std::size_t>(id)];
    give_back(sites_[static_cast<std::size_t>(endpoint_site(t.dest))].in[0], t, now_);
    if (t.kind == kCplD) {
      Site& g = sites_[static_cast<std::size_t>(t.reader)];
      g.read_received += t.bytes;
      if (t.last) {
        ++g.tags;
        refill(t.reader);
      }
      if (g.read_received == w_.bytes) {  // a copy's worth (reads of consecutive copies overlap)
        g.read_received = 0;
        copy_done();
      }
    } else if (t.last) {
      copy_done();
    }
    free_.push_back(id);
  }

  void copy_done() {
    ++result_.copies;
    result_.end_ns = static_cast<double>(now_) / 1000.0;
  }

  // A read at memory after its latency: completions of the completion size, in its queue.
  void serve(int id) {
    const Tlp mrd = tlps_[static_cast<std::size_t>(id)];
    free_.push_back(id);
    Site& m = sites_[static_cast<std::size_t>(endpoint_site(mrd.dest))];
    Queue& q = queues_[static_cast<std::size_t>(m.completer_q)];
    const bool empty = q.tlps.empty();
    for (uint32_t done = 0; done < mrd.bytes;) {
      const uint32_t n = std::min(cpl_, mrd.bytes - done);
      const int c = new_tlp(kCplD, n, sites_[static_cast<std::size_t>(mrd.reader)].endpoint);
      done += n;
      tlps_[static_cast<std::size_t>(c)].reader = mrd.reader;
      tlps_[static_cast<std::size_t>(c)].last = done == mrd.bytes;
      q.tlps.push_back(c);
    }
    if (empty) present(m.completer_q);
  }

  int endpoint_site(int endpoint) {
    if (endpoint_site_.empty()) {
      for (std::size_t i = 0; i < sites_.size(); ++i)
        if (sites_[i].endpoint >= 0) {
          if (endpoint_site_.size() <= static_cast<std::size_t>(sites_[i].endpoint))
            endpoint_site_.resize(static_cast<std::size_t>(sites_[i].endpoint) + 1, -1);
          endpoint_site_[static_cast<std::size_t>(sites_[i].endpoint)] = static_cast<int>(i);
        }
    }
    return endpoint_site_.at(static_cast<std::size_t>(endpoint));
  }

  const Scenario& s_;
  const BareWorkload& w_;
  uint32_t mps_ = 256, mrrs_ = 512, cpl_ = 256;
  std::vector<Port> ports_;
  std::vector<Site> sites_;
  std::vector<Queue> queues_;
  std::vector<Tlp> tlps_;
  std::vector<int> free_, endpoint_site_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  int64_t now_ = 0;
  BareResult result_;
};

}  // namespace

BareResult run_bare(const Scenario& s, const BareWorkload& w) { return Bare(s, w).run(); }

}  // namespace arbsim::bench
