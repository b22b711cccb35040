// One copy a DMA engine executes: it either pulls `bytes` from a remote endpoint's memory
// (MRd requests answered by CplD) or pushes them to it (posted MWr).
#pragma once
#include <cstdint>
#include <functional>

namespace arbsim {

enum class CopyKind { Read, Write };

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
