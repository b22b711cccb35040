// Deadline checks at the kernel's resolution, 1 ps, as every time in the model is kept.
// A response in ns is a picosecond count over 1000 in floating point and a deadline a
// decimal from the config: compared as doubles, a response equal to its deadline could come
// out one ulp above it (5113.456000000001 against 5113.456, "missed"), while the results
// print both as 5113.456. So both are taken to whole picoseconds first.
#pragma once
#include <cmath>
#include <cstdint>

namespace arbsim {

inline int64_t deadline_ps(double ns) { return std::llround(ns * 1000.0); }

// A response meets its deadline when it ends within it (at it counts as met).
inline bool meets_deadline(double response_ns, double deadline_ns) {
  return deadline_ps(response_ns) <= deadline_ps(deadline_ns);
}

// A job released at `release_ns` and still open at `end_ns` has missed its deadline by then
// only once the deadline has passed (at the end exactly, it could still meet it).
inline bool past_deadline_at(double release_ns, double deadline_ns, double end_ns) {
  return deadline_ps(release_ns) + deadline_ps(deadline_ns) < deadline_ps(end_ns);
}

}  // namespace arbsim
