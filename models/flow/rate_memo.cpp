#include "models/flow/rate_memo.h"
#include <cstring>
#include <tuple>

namespace arbsim::flow {

namespace {

uint64_t bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

// Word by word, as hash_combine does, with splitmix64's finaliser on each word: cheap, and
// a collision only costs a comparison (matches()).
void mix(uint64_t& h, uint64_t v) {
  v ^= v >> 30;
  v *= 0xbf58476d1ce4e5b9ULL;
  v ^= v >> 27;
  v *= 0x94d049bb133111ebULL;
  v ^= v >> 31;
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
}
constexpr uint64_t kSeed = 0x84222325cbf29ce4ULL;

// A hop's fields, as compared: doubles by their bits, so equal means identical.
auto fields(const Hop& h) {
  return std::make_tuple(h.edge, bits(h.weight), h.ahead, h.slot, bits(h.tlp), h.starts, h.cls, bits(h.window));
}

}  // namespace

uint64_t spec_hash(const FlowSpec& s) {
  uint64_t h = kSeed;
  mix(h, bits(s.cap));
  mix(h, static_cast<uint64_t>(s.tc));
  for (const Hop& p : s.path) {
    std::apply([&](auto... f) { (mix(h, static_cast<uint64_t>(f)), ...); }, fields(p));
  }
  return h;
}

bool spec_equal(const FlowSpec& a, const FlowSpec& b) {
  if (bits(a.cap) != bits(b.cap) || a.tc != b.tc || a.path.size() != b.path.size()) return false;
  for (std::size_t k = 0; k < a.path.size(); ++k)
    if (fields(a.path[k]) != fields(b.path[k])) return false;
  return true;
}

bool spec_less(uint64_t hash_a, const FlowSpec& a, uint64_t hash_b, const FlowSpec& b) {
  if (hash_a != hash_b) return hash_a < hash_b;
  const auto head = [](const FlowSpec& s) { return std::make_tuple(bits(s.cap), s.tc, s.path.size()); };
  if (head(a) != head(b)) return head(a) < head(b);
  for (std::size_t k = 0; k < a.path.size(); ++k)
    if (fields(a.path[k]) != fields(b.path[k])) return fields(a.path[k]) < fields(b.path[k]);
  return false;
}

uint64_t RateMemo::key_hash(const Key& k) {
  uint64_t h = kSeed;
  for (uint64_t s : *k.hashes) mix(h, s);
  uint64_t word = 1;  // the binds, 63 to a word (the leading 1 marks where a word starts)
  for (char b : *k.hop_binds) {
    word = word << 1 | (b != 0);
    if (word >> 63) mix(h, word), word = 1;
  }
  mix(h, word);
  return h;
}

// Equal hashes, binds, caps, TCs and hops, bit for bit.
bool RateMemo::matches(const Entry& e, const Key& k) {
  if (e.hashes != *k.hashes || e.hop_binds != *k.hop_binds) return false;
  std::size_t from = 0;
  for (std::size_t f = 0; f < e.hashes.size(); ++f) {
    const FlowSpec& s = *(*k.specs)[f];
    const std::size_t to = e.hops_end[f];
    if (bits(e.caps[f]) != bits(s.cap) || e.tcs[f] != s.tc || to - from != s.path.size()) return false;
    for (std::size_t h = 0; h < s.path.size(); ++h)
      if (fields(e.hops[from + h]) != fields(s.path[h])) return false;
    from = to;
  }
  return true;
}

const ArbitratedRates* RateMemo::find(const Key& k) const {
  const auto it = table_.find(key_hash(k));
  if (it == table_.end()) return nullptr;
  for (const Entry& e : it->second)
    if (matches(e, k)) {
      ++hits_;
      return &e.rates;
    }
  return nullptr;
}

void RateMemo::store(const Key& k, const ArbitratedRates& rates) {
  if (hops_ + k.hop_binds->size() > kMaxHops) clear();
  Entry e;
  e.hashes = *k.hashes;
  for (const FlowSpec* s : *k.specs) {
    e.caps.push_back(s->cap);
    e.tcs.push_back(s->tc);
    e.hops.insert(e.hops.end(), s->path.begin(), s->path.end());
    e.hops_end.push_back(e.hops.size());
  }
  e.hop_binds = *k.hop_binds;
  e.rates = rates;
  table_[key_hash(k)].push_back(std::move(e));
  hops_ += k.hop_binds->size();
}

void RateMemo::clear() {
  table_.clear();
  hops_ = 0;
}

}  // namespace arbsim::flow
