// The parameters of the fabric's nodes and links, with their defaults: the one place each
// default is written. The models take them (models/pcie/switch.h, root_complex.h, endpoint.h,
// dma_engine.h), and the config loader fills in what a config leaves out from these same
// structs (platforms/config/). Plain C++: no SystemC.
#pragma once

namespace arbsim {

// A switch, an I/O hub or a root complex's crossbar (docs/architecture.md, "Timing of one TLP").
struct SwitchParams {
  // Head in -> head eligible at the egress. PCIe switches are cut-through with 100-150 ns
  // (docs/pcie-reference.md §5); a root complex's or I/O hub's crossbar takes 50 ns.
  double latency_ns = 110;
  bool store_and_forward = false;
  bool voq = false;  // ingress virtual output queues (no head-of-line blocking)
};
constexpr double kCrossbarLatencyNs = 50;  // root complex, I/O hub

// A root complex's host memory, a completer on its crossbar's internal port. The default rate
// is a socket's DRAM (8 channels of DDR4-3200: 204.8 GB/s, docs/pcie-reference.md §5), so by
// default the fabric, not the memory, limits what links carry: above four Gen5 x16 links.
struct HostMemoryParams {
  double bandwidth_GBps = 200;  // reads out of it (its egress to the crossbar)
  double write_GBps = 200;      // DMA writes into it; the config's default is bandwidth_GBps
  double read_latency_ns = 400; // MRd consumed -> first CplD (RC + DRAM: docs/pcie-reference.md §5)
};

// A DMA (copy) engine: how it cuts a copy into TLPs (docs/pcie-reference.md §3).
struct DmaParams {
  int mps = 256;
  int mrrs = 512;
  int tags = 256;        // outstanding reads (8-bit extended tags)
  int queue_depth = 2;   // TLPs prepared ahead of the egress arbiter
};
constexpr int kHostDmaTags = 256;  // a root complex's host DMA engines (they only write)

// A link's defaults that are not the PCIe generation's (PcieLinkParams, link_timing.h).
struct LinkParams {
  double latency_ns = 20;      // PHY + data link per hop (docs/pcie-reference.md §5)
  int vcs = 1;
  double raw_GBps = 10;        // a raw link's rate per direction (processor interconnect)
};

}  // namespace arbsim
