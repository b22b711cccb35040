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
// seed 003 §3.2): its blocks occupy at most max(1, floor(share x SMs)) distinct SMs at once. A
// new share applies to blocks dispatched from then on; resident blocks finish where they are
// (seed 003's MPS needed a process restart; the model does not).
//
// A block goes to the least-loaded SM it may use (fewest resident blocks, then lowest index).
// Co-resident blocks share their SM: with k blocks on it each runs at 1 / (1 + slowdown x
// (k - 1)) of its speed alone (`block_slowdown`; seed 003 §5.2 measured 4.2 ms alone, 4.74 ms
// with two blocks on some SMs, 5.64 ms with 3.5 blocks per SM: 0.12-0.13). With the default
// 0 a block's time does not depend on what else the SM holds (the block time is measured at
// the occupancy the kernel runs at). Plain C++, integer picoseconds, no SystemC.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <tuple>
#include <vector>

namespace arbsim {

struct SmParams {
  int sms = 108;                    // an A100
  int blocks_per_sm = 1;
  int max_concurrent_kernels = 128;
  double block_slowdown = 0;        // per further co-resident block on an SM (see above)
};

struct KernelShape {
  int64_t blocks = 1;               // grid size, >= 1
  uint64_t block_ps = 0;            // one block's run time on its SM
  int owner = 0;                    // the process it belongs to (for its SM share)
};

// A kernel given as a duration `alone_ps` (its time alone on the GPU) and a grid: the time
// of one block, in whole picoseconds (gpu_compute.cpp says how the waves' factors are
// summed). wave_factors() is that sum: alone_ps / wave_factors() is the block time before
// rounding (the config checks it is at least 1 ns, where rounding moves a kernel by 0.05 %
// at most).
double wave_factors(const SmParams& p, int64_t grid);
uint64_t block_time_ps(const SmParams& p, int64_t grid, uint64_t alone_ps);

// A kernel's owner (KernelShape::owner): process `process` of the app with flow id `app`. SM
// shares are per owner (seed 003's MPS percentage, per process); same-instant ties are per app
// (gpu_compute.h, kernel_ties()), so an owner names its app too: owner_app().
constexpr int kernel_owner(uint32_t app, int process = 0) { return static_cast<int>(app) * 4096 + process; }
constexpr int owner_app(int owner) { return owner < 0 ? -1 : owner / 4096; }

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
  // Whether kernel `id` (submitted, perhaps complete) has blocks waiting for slots.
  bool waiting(int id) const {
    const auto it = kernels_.find(id);
    return it != kernels_.end() && it->second.waiting > 0;
  }
  int resident_kernels() const { return resident_kernels_; }

 private:
  struct Kernel {
    KernelShape shape;
    int64_t waiting = 0, unfinished = 0;
    int resident = 0;  // its blocks on SMs now
  };
  // Blocks live in reused slots (no node per block: a run dispatches millions of them).
  struct Block {
    uint64_t id = 0;  // in placement order: kernels ending at one time complete by id
    int kernel = 0, sm = 0;
    double work_ps = 0;     // left to do at full speed
    uint64_t since_ps = 0;  // when work_ps was last brought up to date
    uint64_t end_ps = 0;
    uint64_t end_seq = 0;  // its live entry in ends_ (a retimed block's older ones are stale)
    bool live = false;
  };
  struct End {
    uint64_t ps, seq;
    int slot;
  };
  struct Owner {
    std::vector<int> on_sm;  // [SM] its blocks there
    int sms_held = 0;        // distinct SMs it occupies
  };
  void dispatch(uint64_t now_ps);
  bool place(uint64_t now_ps, int kernel);  // one block of `kernel` on an SM it may use
  int pick_sm(int owner) const;             // -1: none has room
  int least_loaded() const;                 // over every SM; -1: none has room
  void moved_load(int sm, std::size_t from, std::size_t to);  // keeps with_load_
  int owner_cap(int owner) const;           // distinct SMs
  Owner& owner(int id);
  double speed(int sm) const;               // of each block on `sm`
  void retime(uint64_t now_ps, int sm, double old_speed);  // its blocks, after its load changed
  static bool later(const End& a, const End& b);  // ends_'s heap order
  void push_end(int slot);
  void drop_stale() const;  // pops ends_'s stale entries off its top
  void finish_block(int slot);

  SmParams p_;
  int free_ = 0, resident_kernels_ = 0;
  std::map<int, Kernel> kernels_;  // submitted, not complete
  std::deque<int> queue_;          // kernels with blocks waiting, in submission order
  std::map<int, Owner> owners_;
  std::map<int, double> share_;  // owner -> share of the SMs
  std::vector<Block> blocks_;
  std::vector<int> spare_;                 // free slots of blocks_
  std::vector<std::vector<int>> on_sm_;    // [SM] its resident blocks' slots, in placement order
  // [load] a bit per SM holding that many blocks (loads below blocks_per_sm: those with
  // room), so the least-loaded SM is the first bit of the first non-empty level, not a walk
  // over every SM per block (a 108-SM GPU dispatching grids of thousands of blocks).
  std::vector<std::vector<uint64_t>> with_load_;
  mutable std::vector<End> ends_;  // a min-heap of block ends by time
  std::vector<std::tuple<int, uint64_t, int>> ending_;  // advance()'s (kernel, block id, slot)
  uint64_t now_ = 0, next_block_ = 0, next_seq_ = 0;
  int next_id_ = 0;
};

}  // namespace arbsim
