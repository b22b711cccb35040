#include "platforms/config/node_types.h"
#include <memory>
#include <set>
#include <algorithm>
#include <stdexcept>
#include "models/devices/device_params.h"
#include "platforms/config/reader.h"

namespace arbsim {

namespace {

// The NIC and NVMe rows: their keys, defaults from the models' Params (device_params.h).
EndpointType nic_type() {
  const NicParams d;
  return {"nic",
          "a network adapter: rx DMA writes and tx DMA reads of host memory at its line rate (models/devices/nic.h)",
          {{"line_rate", KeyKind::Rate, d.line_rate_GBps, 1e-3, 1e3, {}, "per direction, e.g. 200Gb/s or 400Gb/s"},
           {"message_bytes", KeyKind::Bytes, static_cast<double>(d.message_bytes), 64, 1 << 30, {}, "one DMA per packet"},
           {"direction", KeyKind::Choice, static_cast<double>(d.direction), 0, 0, {"both", "rx", "tx"},
            "rx: network -> host memory; tx: host memory -> network"},
           {"load", KeyKind::Number, d.load, 1e-3, 1, {}, "offered fraction of the line rate"},
           {"messages", KeyKind::Count, static_cast<double>(d.messages), 0, 1e8, {}, "per direction, then it stops"},
           {"start_ns", KeyKind::Time, d.start_ns, 0, kMaxTimeNs, {}, "first packet"},
           {"tc", KeyKind::Count, static_cast<double>(d.tc), 0, 7, {}, "traffic class of its DMAs"},
           {"ring", KeyKind::Count, static_cast<double>(d.ring), 1, 1 << 20, {},
            "DMAs it holds at once (rx descriptors or tx packets); a packet beyond them is dropped"}},
          NicParams::kEngines,
          [](const EndpointCfg& e) -> std::pair<std::string, std::string> {
            // Packets are clocked at the line rate: the last must arrive inside the time range.
            const double interval = e.get("message_bytes") / (e.get("line_rate") * e.get("load"));
            if (e.get("start_ns") + std::max(0.0, e.get("messages") - 1) * interval > kMaxTimeNs)
              return {"messages", "the last packet would arrive after 1e15 ns (start_ns + messages x "
                                  "message_bytes / (line_rate x load))"};
            return {};
          }};
}

EndpointType nvme_type() {
  const NvmeParams d;
  return {"nvme",
          "an NVMe drive: queue_depth I/Os in flight, each a flash access and a DMA at the drive's bandwidth "
          "(models/devices/nvme.h)",
          {{"bandwidth", KeyKind::Rate, d.bandwidth_GBps, 1e-3, 1e3, {}, "the drive's own data rate"},
           {"queue_depth", KeyKind::Count, static_cast<double>(d.queue_depth), 1, 65535, {}, "I/Os in flight"},
           {"io_bytes", KeyKind::Bytes, static_cast<double>(d.io_bytes), 512, 1 << 30, {}, "bytes per I/O"},
           {"read_fraction", KeyKind::Number, d.read_fraction, 0, 1, {}, "share of reads (drive -> host memory)"},
           {"access_latency_ns", KeyKind::Time, d.access_latency_ns, 0, kMaxLatencyNs, {}, "flash read or program"},
           {"ios", KeyKind::Count, static_cast<double>(d.ios), 0, 1e8, {}, "I/Os in all"},
           {"start_ns", KeyKind::Time, d.start_ns, 0, kMaxTimeNs, {}, "first I/O"},
           {"tc", KeyKind::Count, static_cast<double>(d.tc), 0, 7, {}, "traffic class of its DMAs"}},
          NvmeParams::kEngines,
          [](const EndpointCfg& e) -> std::pair<std::string, std::string> {
            // Even at its full bandwidth the drive must finish inside the time range.
            if (e.get("start_ns") + e.get("ios") * e.get("io_bytes") / e.get("bandwidth") > kMaxTimeNs)
              return {"ios", "the drive could not finish before 1e15 ns even at its bandwidth"};
            return {};
          }};
}

std::map<std::string, std::unique_ptr<EndpointType>>& registry() {
  static std::map<std::string, std::unique_ptr<EndpointType>> r = [] {
    std::map<std::string, std::unique_ptr<EndpointType>> m;
    for (const EndpointType& t : {nic_type(), nvme_type()}) m[t.name] = std::make_unique<EndpointType>(t);
    return m;
  }();
  return r;
}

bool builtin(const std::string& name) {
  return name == "root_complex" || name == "io_hub" || name == "switch" || name == "gpu";
}

}  // namespace

void register_endpoint_type(const EndpointType& t) {
  if (!valid_name(t.name) || builtin(t.name) || registry().count(t.name))
    throw std::invalid_argument("register_endpoint_type: the name '" + t.name + "' is taken or not a valid name");
  if (t.engines < 0 || t.engines > 64)
    throw std::invalid_argument("register_endpoint_type: " + t.name + ": engines must be in 0..64");
  std::set<std::string> seen;
  for (const EndpointKey& k : t.keys) {
    const std::string where = "register_endpoint_type: " + t.name + ": key '" + k.name + "' ";
    if (!valid_name(k.name) || k.name == "name" || k.name == "type" || k.name == "arbitration")
      throw std::invalid_argument(where + "is reserved or not valid");
    if (!seen.insert(k.name).second) throw std::invalid_argument(where + "is given twice");
    if (k.kind == KeyKind::Choice) {
      if (k.choices.empty() || !(k.def >= 0 && k.def < static_cast<double>(k.choices.size())))
        throw std::invalid_argument(where + "needs choices and a default index among them");
    } else if (!(k.lo <= k.def && k.def <= k.hi)) {
      throw std::invalid_argument(where + "has its default outside [lo, hi]");
    }
  }
  registry()[t.name] = std::make_unique<EndpointType>(t);
}

const EndpointType* find_endpoint_type(const std::string& name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

std::vector<std::string> endpoint_type_names() {
  std::vector<std::string> v;
  for (const auto& [name, t] : registry()) v.push_back(name);
  return v;
}

}  // namespace arbsim
