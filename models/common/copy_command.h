// The vocabulary of copies. A CopyCommand is one copy a DMA engine executes: it either pulls
// `bytes` from a remote endpoint's memory (MRd requests answered by CplD) or pushes them to
// it (posted MWr). Plain C++.
#pragma once
#include <cstdint>
#include <functional>

namespace arbsim {

enum class CopyKind { Read, Write };

// The direction of a copy as an app asks for it: host to GPU, GPU to host, GPU to GPU.
enum class CopyDir { H2D, D2H, P2P };
const char* to_string(CopyDir d);

// How a GPU's host-to-device copies travel: pulled by the GPU's copy engine with reads
// (device read, what GPU copy engines do), or pushed by a host DMA engine with writes.
enum class H2dMode { DeviceRead, HostPush };

struct CopyCommand {
  CopyKind kind = CopyKind::Write;
  uint64_t bytes = 0;
  uint8_t tc = 0;
  int remote = -1;           // endpoint index of the memory read or written
  uint32_t flow_id = 0;
  double rate_GBps = 0;      // pace the copy at this payload rate (bandwidth allocation); 0 = as fast as it goes
  std::function<void(uint64_t transfer)> on_start;  // the engine took it (TransferTracker id)
  std::function<void()> on_done;   // last byte delivered
};

}  // namespace arbsim
