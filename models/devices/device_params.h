// The parameters of the endpoint devices that share a server's PCIe switches with the GPUs,
// with their defaults (the one place each is written: the config's node types
// (platforms/config/node_types.cpp) read them). Plain C++.
//
// Figures, docs/pcie-reference.md §8: a 200 Gb/s NIC (ConnectX-6/7 class) moves 25 GB/s per
// direction; a Gen4 x4 NVMe drive about 7 GB/s sequential, with flash access latencies of
// tens of microseconds per I/O.
#pragma once
#include <cstdint>

namespace arbsim {

// A NIC: packets arrive from (rx) and leave to (tx) the network at the line rate; each is one
// DMA of `message_bytes` into host memory (rx: MWr) or out of it (tx: MRd + CplD).
struct NicParams {
  enum class Direction { Both = 0, Rx = 1, Tx = 2 };
  double line_rate_GBps = 25;    // per direction: 200 Gb/s
  uint64_t message_bytes = 4096; // one DMA per packet (a 4 KiB MTU)
  Direction direction = Direction::Both;
  double load = 1.0;             // offered fraction of the line rate
  int64_t messages = 10000;      // per direction, then it stops
  double start_ns = 0;
  int tc = 0;
  // DMAs in flight per direction: an rx descriptor ring (a packet that finds it full is
  // dropped, as a NIC drops on an exhausted ring) or the tx packets queued to the host.
  int64_t ring = 4096;
  static constexpr int kEngines = 2;  // rx writes with engine 0, tx reads with engine 1
};

// An NVMe drive: `queue_depth` I/Os in flight; each waits the flash access latency, and its
// data moves by DMA at no more than the drive's bandwidth (a read I/O writes host memory,
// a write I/O reads it).
struct NvmeParams {
  double bandwidth_GBps = 7;     // the drive's own rate (Gen4 x4 class)
  int queue_depth = 32;
  uint64_t io_bytes = 128 * 1024;
  double read_fraction = 1.0;    // share of I/Os that are reads, spread evenly
  double access_latency_ns = 80000;  // flash read or program
  int64_t ios = 1000;
  double start_ns = 0;
  int tc = 0;
  static constexpr int kEngines = 1;
};

}  // namespace arbsim
