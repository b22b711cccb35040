// Endpoint devices (models/devices/, registered node types): a NIC and an NVMe drive on a
// switch port, against hand-worked timelines. Each drive or NIC has its own root port path
// (rc0 - sw0 - device, Gen4 x16 unless said); a 4 KiB copy on gpu0, on its own root port,
// is the app every run needs and shares nothing with the device but host memory (1 TB/s).
#include <cmath>
#include <gtest/gtest.h>
#include "models/pcie/link_timing.h"
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

std::string platform_with(const std::string& device, const std::string& device_link = "") {
  return "platform:\n"
         "  defaults: {link: {gen: 4, width: 16, latency_ns: 20, credits: {ph: inf, pd: inf, nph: inf, npd: inf}}}\n"
         "  nodes:\n"
         "    - {name: rc0, type: root_complex, memory: {bandwidth_GBps: 1000, read_latency_ns: 400}}\n"
         "    - {name: sw0, type: switch}\n"
         "    - {name: gpu0, type: gpu}\n"
         "    - " + device + "\n"
         "  links:\n"
         "    - {up: rc0, down: sw0}\n"
         "    - {up: rc0, down: gpu0}\n"
         "    - {up: sw0, down: dev" + device_link + "}\n"
         "apps: [{type: stream, gpu: gpu0, direction: h2d, size: {fixed: 4KiB}, count: 1}]\n";
}

const nlohmann::ordered_json& device(const SimOutcome& o, const std::string& name) {
  for (const auto& d : o.results["devices"])
    if (d["name"] == name) return d;
  throw std::runtime_error("no device " + name);
}

double gbps(const nlohmann::ordered_json& d) { return d["throughput_gbps"].get<double>(); }

}  // namespace

// Queue depth 1: each read I/O is the flash access (10 us) then its 128 KiB at the drive's
// 2 GB/s (65.536 us), one after another: 131072 x 8 / 75536 ns = 13.88 Gb/s. The path's
// few hundred ns per I/O stay within 1 %.
TEST(Devices, NvmeAtQueueDepthOneAddsAccessAndTransfer) {
  SimOutcome o = run_yaml(platform_with(
      "{name: dev, type: nvme, bandwidth: 2GB/s, queue_depth: 1, access_latency_ns: 10us, ios: 20}"));
  const auto& d = device(o, "dev");
  EXPECT_EQ(d["operations"].get<int>(), 20);
  EXPECT_EQ(d["bytes_to_host"].get<uint64_t>(), 20u * 131072);
  EXPECT_NEAR(gbps(d), 131072 * 8.0 / 75536.0, 0.01 * 13.88);
  EXPECT_NEAR(d["p50_ns"].get<double>(), 75536.0, 0.01 * 75536.0);
}

// A device whose DMA is under way when the run stops issued work and moved nothing: a
// throughput of 0.0 (starved, as an app), not null as one that issued nothing; no latency.
// Its one 16 MiB read I/O: 10 us of access, then 16.8 ms at 1 GB/s, cut at 100 us.
TEST(Devices, ADeviceCutOffMidDmaHasAThroughputOfZero) {
  SimOutcome o = run_yaml(platform_with("{name: dev, type: nvme, bandwidth: 1GB/s, io_bytes: 16MiB, read_fraction: 1, "
                                        "queue_depth: 1, access_latency_ns: 10us, ios: 1}") +
                          "sim: {time_ns: 100000}\n");
  const auto& d = device(o, "dev");
  EXPECT_EQ(d["operations"].get<int>(), 0);
  EXPECT_EQ(d["throughput_gbps"], 0.0);
  EXPECT_TRUE(d["p50_ns"].is_null());
  EXPECT_TRUE(d["p99_ns"].is_null());
}

// makespan_ns is the whole run's, warm-up included: a drive's I/Os all issued at 0, before a
// 1 us warm-up, count in no statistic but end the run; makespan_ns read 2.6 us of 379.5
// (only the app's copy) where the run ended with the drive's last I/O (a user re-trial).
TEST(Devices, TheMakespanCountsOperationsIssuedInTheWarmUp) {
  SimOutcome o = run_yaml(platform_with("{name: dev, type: nvme, bandwidth: 2GB/s, queue_depth: 32, "
                                        "access_latency_ns: 5us, ios: 20}") + "sim: {warmup_ns: 1000}\n");
  EXPECT_EQ(device(o, "dev")["operations"].get<int>(), 0);  // all issued in the warm-up
  EXPECT_GT(o.results["sim_time_ns"].get<double>(), 100000.0);
  EXPECT_DOUBLE_EQ(o.results["makespan_ns"].get<double>(), o.results["sim_time_ns"].get<double>());
}

// Queue depth 32: accesses overlap, the drive's bandwidth binds: 2 GB/s = 16 Gb/s, the
// first access (10 us of 13.1 ms) within 1 %. Reads and writes (half each) share it.
TEST(Devices, NvmeAtDepthIsBoundByItsBandwidth) {
  SimOutcome o = run_yaml(platform_with("{name: dev, type: nvme, bandwidth: 2GB/s, queue_depth: 32, "
                                        "access_latency_ns: 10us, ios: 200, read_fraction: 0.5}"));
  const auto& d = device(o, "dev");
  EXPECT_EQ(d["bytes_to_host"].get<uint64_t>(), 100u * 131072);
  EXPECT_EQ(d["bytes_from_host"].get<uint64_t>(), 100u * 131072);
  EXPECT_NEAR(gbps(d), 16.0, 0.01 * 16.0);
}

// Small I/Os at depth: their DMAs are paced one after another on the drive's engine, so
// 2,000 x 512 B at 1 GB/s take 1.024 ms: 8 Gb/s. Each DMA's first TLP went at once, beside
// the one before's last, and the drive moved 29.7 Gb/s (found by a user trial); at 4 KiB,
// 9.1 Gb/s.
TEST(Devices, NvmeSmallIosAreBoundByItsBandwidth) {
  SimOutcome o = run_yaml(platform_with("{name: dev, type: nvme, bandwidth: 1GB/s, io_bytes: 512, "
                                        "access_latency_ns: 0, ios: 2000}"));
  const auto& d = device(o, "dev");
  EXPECT_EQ(d["operations"].get<int>(), 2000);
  EXPECT_NEAR(gbps(d), 8.0, 0.001 * 8.0);
  EXPECT_GE(o.results["makespan_ns"].get<double>(), 2000 * 512 / 1.0 - 512);  // the last TLP's slot ends the run
}

// The same mixing reads and writes, in the flow fidelity: a read (the drive's MRds) behind a
// read is paced too, which holds the engine; issued early, its pace overlapped a write's and
// the drive moved 16 Gb/s (a user re-trial).
TEST(Devices, NvmeSmallMixedIosAreBoundByItsBandwidthInTheFlowFidelity) {
  SimOutcome o = run_yaml(platform_with("{name: dev, type: nvme, bandwidth: 1GB/s, io_bytes: 512, queue_depth: 32, "
                                        "access_latency_ns: 1us, ios: 4000, read_fraction: 0.5}") +
                          "sim: {fidelity: flow}\n");
  EXPECT_NEAR(gbps(device(o, "dev")), 8.0, 0.01 * 8.0);
}

// A NIC receiving at half of 100 Gb/s: the fabric keeps up, so it writes host memory at the
// offered 50 Gb/s and each packet takes only its path (under 2 us).
TEST(Devices, NicBelowTheLinkRateDeliversTheOfferedLoad) {
  SimOutcome o = run_yaml(platform_with(
      "{name: dev, type: nic, line_rate: 100Gb/s, load: 0.5, direction: rx, message_bytes: 4KiB, messages: 2000}"));
  const auto& d = device(o, "dev");
  EXPECT_EQ(d["bytes_to_host"].get<uint64_t>(), 2000u * 4096);
  EXPECT_EQ(d["bytes_from_host"].get<uint64_t>(), 0u);
  EXPECT_NEAR(gbps(d), 50.0, 0.01 * 50.0);
  EXPECT_LT(d["p99_ns"].get<double>(), 2000.0);
}

// A 400 Gb/s NIC behind a Gen3 x16 port: packets arrive every 4096 / 50 = 81.9 ns, the link
// writes one every 4096 / W ns (W: pcie-bench's write bandwidth for 4 KiB, GB/s). The NIC
// gets W, and packet k waits k x (4096/W - 81.9) ns: the 99th percentile of 1000 packets
// is packet 990's wait, within 5 %.
TEST(Devices, NicAboveTheLinkRateQueuesAndGetsTheLinkRate) {
  SimOutcome o = run_yaml(platform_with(
      "{name: dev, type: nic, line_rate: 400Gb/s, direction: rx, message_bytes: 4KiB, messages: 1000}", ", gen: 3"));
  PcieLinkParams p;
  p.gen = 3;
  p.width = 16;
  p.mps = 256;
  const double w = pciebench_write_gbps(p, 4096) / 8.0;  // GB/s
  const auto& d = device(o, "dev");
  EXPECT_NEAR(gbps(d) / 8.0, w, 0.02 * w);
  const double wait = 989 * (4096.0 / w - 4096.0 / 50.0);
  EXPECT_NEAR(d["p99_ns"].get<double>(), wait, 0.05 * wait);
}

// The same NIC with a ring of 8: at most 8 packets in flight, the rest dropped. Arrivals
// every 81.92 ns for 999 x 81.92 = 81,838 ns; the link serves one per 4096/W ns (315 ns), so
// the ring accepts its 8 and then one per service: 8 + 81,838 / (4096/W) = 267.6 accepted
// (within 3 %: the first service waits for the path's latency), the rest of the 1000 dropped.
TEST(Devices, NicRingFullDropsPackets) {
  SimOutcome o = run_yaml(platform_with(
      "{name: dev, type: nic, line_rate: 400Gb/s, direction: rx, message_bytes: 4KiB, messages: 1000, ring: 8}",
      ", gen: 3"));
  PcieLinkParams p;
  p.gen = 3;
  p.width = 16;
  p.mps = 256;
  const double w = pciebench_write_gbps(p, 4096) / 8.0;
  const auto& d = device(o, "dev");
  const double accepted = 8 + 999 * 4096.0 / 50.0 / (4096.0 / w);
  EXPECT_NEAR(d["operations"].get<double>(), accepted, 0.03 * accepted);
  EXPECT_EQ(d["operations"].get<uint64_t>() + d["dropped"].get<uint64_t>(), 1000u);
  EXPECT_TRUE(d["finished"].get<bool>());
}

// The same NIC in the flow-level fidelity gets the same link rate (a device drives copy
// engines, which either fabric executes; the flow fabric charges every TLP of a copy to the
// link, so back-to-back 4 KiB packets cannot run above it).
TEST(Devices, NicInTheFlowFidelityGetsTheSameLinkRate) {
  SimOutcome o = run_yaml(platform_with("{name: dev, type: nic, line_rate: 400Gb/s, direction: rx, "
                                        "message_bytes: 4KiB, messages: 1000}",
                                        ", gen: 3"),
                          {"sim.fidelity=flow"});
  PcieLinkParams p;
  p.gen = 3;
  p.width = 16;
  p.mps = 256;
  const double w = pciebench_write_gbps(p, 4096) / 8.0;
  EXPECT_NEAR(gbps(device(o, "dev")) / 8.0, w, 0.02 * w);
}

// Bad device keys are config errors naming the key (the registry's rows are checked as
// built-in nodes are).
TEST(Devices, BadDeviceKeysAreConfigErrors) {
  const auto error_of = [](const std::string& dev) {
    try {
      load_scenario_text(platform_with(dev));
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("{name: dev, type: nic, line_rate: fast}").find("platform.nodes[3].line_rate"), std::string::npos);
  EXPECT_NE(error_of("{name: dev, type: nic, speed: 1}").find("speed"), std::string::npos);
  EXPECT_NE(error_of("{name: dev, type: nvme, queue_depth: 0}").find("queue_depth"), std::string::npos);
  EXPECT_NE(error_of("{name: dev, type: nvme, read_fraction: 2}").find("read_fraction"), std::string::npos);
}
