#include "platforms/device_registry.h"
#include <map>
#include <stdexcept>
#include "models/devices/nic.h"
#include "models/devices/nvme.h"

namespace arbsim {

namespace {

NicParams nic_params(const EndpointCfg& c) {
  NicParams p;
  p.line_rate_GBps = c.get("line_rate");
  p.message_bytes = static_cast<uint64_t>(c.get("message_bytes"));
  p.direction = static_cast<NicParams::Direction>(static_cast<int>(c.get("direction")));
  p.load = c.get("load");
  p.messages = static_cast<int64_t>(c.get("messages"));
  p.start_ns = c.get("start_ns");
  p.tc = static_cast<int>(c.get("tc"));
  p.ring = static_cast<int64_t>(c.get("ring"));
  return p;
}

NvmeParams nvme_params(const EndpointCfg& c) {
  NvmeParams p;
  p.bandwidth_GBps = c.get("bandwidth");
  p.queue_depth = static_cast<int>(c.get("queue_depth"));
  p.io_bytes = static_cast<uint64_t>(c.get("io_bytes"));
  p.read_fraction = c.get("read_fraction");
  p.access_latency_ns = c.get("access_latency_ns");
  p.ios = static_cast<int64_t>(c.get("ios"));
  p.start_ns = c.get("start_ns");
  p.tc = static_cast<int>(c.get("tc"));
  return p;
}

std::map<std::string, DeviceMaker>& makers() {
  static std::map<std::string, DeviceMaker> m = {
      {"nic", [](sc_core::sc_module_name n, const EndpointCfg& c, DeviceContext ctx) -> std::unique_ptr<Device> {
         return std::make_unique<Nic>(n, nic_params(c), std::move(ctx));
       }},
      {"nvme", [](sc_core::sc_module_name n, const EndpointCfg& c, DeviceContext ctx) -> std::unique_ptr<Device> {
         return std::make_unique<NvmeDrive>(n, nvme_params(c), std::move(ctx));
       }}};
  return m;
}

}  // namespace

void register_device(const EndpointType& type, DeviceMaker make) {
  if (!make) throw std::invalid_argument("register_device: " + type.name + ": no maker");
  register_endpoint_type(type);
  makers()[type.name] = std::move(make);
}

const DeviceMaker* find_device_maker(const std::string& type) {
  const auto it = makers().find(type);
  return it == makers().end() ? nullptr : &it->second;
}

}  // namespace arbsim
