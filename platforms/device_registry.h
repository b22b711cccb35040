// Endpoint devices beyond GPUs: a registered node type (its `type:` name and YAML keys,
// platforms/config/node_types.h) and the SystemC module that gives a node of that type its
// behaviour (models/devices/device.h). The platform builds an endpoint for such a node in
// either fidelity (its completer and DMA engines) and attaches the module to its engines.
// NICs and NVMe drives are built in; a user's device registers the same way, before the
// config is loaded (examples/custom_endpoint, docs/api.md).
#pragma once
#include <functional>
#include <memory>
#include "models/devices/device.h"
#include "platforms/config/node_types.h"

namespace arbsim {

// Makes the device of one node: its module name, the node's values (every key of its type,
// defaults filled in) and what it is attached to.
using DeviceMaker =
    std::function<std::unique_ptr<Device>(sc_core::sc_module_name name, const EndpointCfg& cfg, DeviceContext ctx)>;

// Registers `type` (register_endpoint_type's rules) with the maker of its devices. Throws
// std::invalid_argument when the name is taken.
void register_device(const EndpointType& type, DeviceMaker make);
// The maker of a registered type's devices (NIC and NVMe built in); nullptr for none.
const DeviceMaker* find_device_maker(const std::string& type);

}  // namespace arbsim
