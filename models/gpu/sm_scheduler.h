// Where a GPU's kernels run: the block dispatcher of seed 004 §3.3. A kernel is a grid of
// blocks; each block runs on one SM for the kernel's block time, and an SM holds up to
// `blocks_per_sm` blocks at once (its register, shared-memory and warp limits, folded into
// one number). Blocks are dispatched kernel by kernel in submission order, so kernels whose
// grids fit in the free SMs run concurrently (seed 004: "small kernels can achieve better
// kernel execution concurrency") and a grid that fills the GPU runs in waves, the next
// kernel's blocks taking SMs as the earlier grid's last wave frees them. At most
// `max_concurrent_kernels` kernels have blocks resident (a Tesla C2070: 14 SMs, 16 kernels).
//
// An owner (a process) may be capped to a share of the SMs (MPS active-thread percentage,
// seed 003 §3.2): its kernels together hold at most max(1, floor(share x SMs)) SMs' worth of
// block slots. A new share applies to blocks dispatched from then on; resident blocks finish
// where they are (seed 003's MPS needed a process restart; the model does not).
//
// A resident block's time does not depend on what else the SM holds: the block time is
// measured at the occupancy the kernel runs at. Plain C++, integer picoseconds, no SystemC.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <vector>

namespace arbsim {

struct SmParams {
  int sms = 108;                    // an A100
  int blocks_per_sm = 1;
  int max_concurrent_kernels = 128;
};

struct KernelShape {
  int64_t blocks = 1;               // grid size, >= 1
  uint64_t block_ps = 0;            // one block's run time on its SM
  int owner = 0;                    // the process it belongs to (for its SM share)
};

class SmScheduler {
 public:
  // Throws std::invalid_argument on a non-positive count.
  explicit SmScheduler(const SmParams& p);

  // Caps `owner`'s kernels to `share` (0, 1] of the SMs; 1 (the default) is no cap.
  void set_share(int owner, double share);
  // A kernel is submitted at `now_ps` (not before the last advance); its blocks are
  // dispatched at once as far as slots allow. Returns its id (0, 1, ...).
  int submit(uint64_t now_ps, const KernelShape& k);
  // Completes every block ending at or before `now_ps`, in time order, dispatching waiting
  // blocks into the slots each completion frees; returns the kernels that completed, in
  // completion order (ties by id).
  std::vector<int> advance(uint64_t now_ps);
  // When the next block ends; UINT64_MAX when none is resident.
  uint64_t next_event_ps() const;

  int free_slots() const { return free_; }
  int resident_kernels() const { return static_cast<int>(resident_.size()); }

 private:
  struct Kernel {
    KernelShape shape;
    int64_t waiting = 0, unfinished = 0;
  };
  void dispatch(uint64_t now_ps);
  int owner_cap(int owner) const;

  SmParams p_;
  int free_ = 0;
  std::map<int, Kernel> kernels_;                 // submitted, not complete
  std::deque<int> queue_;                         // kernels with blocks waiting, in submission order
  std::map<int, int> resident_;                   // kernel -> blocks resident
  std::map<int, int> owner_slots_;                // owner -> slots held
  std::map<int, double> share_;                   // owner -> share of the SMs
  std::multimap<uint64_t, int> ends_;             // block end time -> kernel
  uint64_t now_ = 0;
  int next_id_ = 0;
};

}  // namespace arbsim
