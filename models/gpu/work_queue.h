// The order in which one GPU context starts the copies and kernels its streams issue (seed 004
// §4.2). Each stream is a sequence of operations, each depending on the one before it. The
// context feeds them to the engines through hardware work queues:
//
// * `Queues::Single` (one hardware queue, a Fermi-class GPU such as seed 004's Tesla C2070):
//   - copies of one direction and kernel launches each start in issue order (one queue per
//     engine: H2D copies, D2H copies, kernel launches; kernels may then run concurrently);
//   - a D2H copy that follows a kernel needs the implicit dependency check of §4.2: it
//     starts only when every kernel issued before it has completed (the queue signals a
//     kernel complete only with the kernels launched before the check: rule (1), "only when
//     all prior kernel launches have started", and their completion);
//   - and while such a check is pending, it blocks every later kernel launch (rule (2)).
//   With fixed phase times these rules give seed 004's Eq. 2-7 exactly (PS-1: all copies in,
//   all kernels, then all copies out after the last kernel; PS-2: kernel i+1 after kernel i,
//   copies in overlapping both): tests/unit/test_work_queue.cpp.
// * `Queues::PerStream` (Hyper-Q class GPUs): only each stream's own order holds.
//
// Plain C++: the caller reports starts and completions and asks what may start next.
#pragma once
#include <cstdint>
#include <vector>

namespace arbsim {

enum class OpKind { H2D = 0, Kernel = 1, D2H = 2 };
enum class Queues { Single, PerStream };

class WorkQueue {
 public:
  explicit WorkQueue(Queues q) : q_(q) {}
  // Issues an operation of `stream`; returns its id (0, 1, ... in issue order).
  int issue(OpKind kind, int stream);
  // The operations that may start now, in issue order (each is returned until started()).
  std::vector<int> ready() const;
  void started(int id);
  void completed(int id);

  OpKind kind(int id) const { return ops_.at(static_cast<std::size_t>(id)).kind; }
  int stream(int id) const { return ops_.at(static_cast<std::size_t>(id)).stream; }
  bool all_completed() const { return completed_ == static_cast<int>(ops_.size()); }
  // Every operation of `stream` issued so far has completed.
  bool stream_done(int stream) const;

 private:
  struct Op {
    OpKind kind;
    int stream;
    int prev_in_stream;  // -1: the stream's first
    bool started = false, completed = false;
  };
  bool may_start(int id) const;
  bool kernels_done_before(int id) const;  // every kernel issued before `id` completed
  bool earlier_of_kind_started(int id) const;

  Queues q_;
  std::vector<Op> ops_;
  std::vector<int> last_of_stream_;
  int completed_ = 0;
};

}  // namespace arbsim
