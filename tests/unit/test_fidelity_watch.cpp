// The fidelity watch's bookkeeping of when a sighting holds (models/flow/fidelity_watch.h),
// on a hand-built case: rc -> sw (edge 0, FIFO ingress at sw), sw -> gpu0 (1), sw -> gpu1 (2).
// Flow 1 runs over 0 and 1 and is held back at 1: its TLPs queue in sw's FIFO behind edge 0,
// where flow 2 (over 0 and 2, leaving by the other egress) waits behind them: head-of-line
// blocking, keyed (HeadOfLine, 0, 1), for as long as both run.
#include <gtest/gtest.h>
#include <functional>
#include <optional>
#include <vector>
#include "models/flow/fidelity_watch.h"

namespace arbsim::flow {
namespace {

EdgeArbitration fifo() {
  EdgeArbitration a;
  a.fifo_ingress = true;
  return a;
}

// Flow 1 over `held_path` (edges 0, 1), held back at edge 1 (unless `held` says where), and
// flow 2 over `beside_path` (edges 0, 2), owners 1 and 2, started together and looked at
// `at_ns`; `held` brings any other field of flow 1.
void start_held_and_beside(FidelityWatch& watch, const std::vector<int>& held_path,
                           const std::vector<int>& beside_path, WatchFlow held, double at_ns) {
  held.data_path = &held_path;
  if (held.held.empty()) held.held = {1};
  held.owner = 1;
  WatchFlow beside;
  beside.data_path = &beside_path;
  beside.owner = 2;
  watch.add(1, held);
  watch.add(2, beside);
  watch.look(at_ns);
}

class WatchTest : public ::testing::Test {
 protected:
  std::vector<int> to_gpu0{0, 1}, to_gpu1{0, 2};
  FidelityWatch watch{{fifo(), EdgeArbitration{}, EdgeArbitration{}}, [](int, int) { return 0; }};
  const FidelityWatch::Key hol{Unrepresented::HeadOfLine, 0, 1};

  void start_both(double at_ns) { start_held_and_beside(watch, to_gpu0, to_gpu1, WatchFlow{}, at_ns); }
  const Sighting& hol_sighting() const {
    const auto it = watch.sightings().find(hol);
    EXPECT_NE(it, watch.sightings().end());
    return it->second;
  }
};

// Both end at one instant, with no look between the two ends: the sighting held from 100
// to 350 ns (it was measured to the last look, 100 ns, giving 0).
TEST_F(WatchTest, FlowsEndingTogetherCountTheirWholeRun) {
  start_both(100);
  watch.remove(1, 350);
  watch.remove(2, 350);
  watch.look(350);
  watch.finish(1000);
  const Sighting& s = hol_sighting();
  EXPECT_DOUBLE_EQ(s.first_ns, 100);
  EXPECT_DOUBLE_EQ(s.total_ns, 250);
  EXPECT_EQ(s.owners, (std::vector<uint32_t>{1, 2}));
}

// The held flow ends first: the blocking ends with it, not with the run.
TEST_F(WatchTest, BlockingEndsWithTheHeldFlow) {
  start_both(0);
  watch.remove(1, 40);
  watch.look(40);
  watch.remove(2, 90);
  watch.look(90);
  watch.finish(1000);
  EXPECT_DOUBLE_EQ(hol_sighting().total_ns, 40);
}

// Held beyond edge 0 its TLPs queue at sw; held at edge 0 too from 50 ns (a tie) it arrives
// as fast as it leaves, so that queue stands and flow 2 still waits behind it: the blocking
// goes on to 200 ns (it stopped at the tie). A flow tied from its start never queued: none.
TEST_F(WatchTest, AQueueThatBuiltStandsThroughATie) {
  start_both(0);
  watch.set_held(1, {0, 1});
  watch.look(50);
  watch.remove(1, 200);
  watch.look(200);
  watch.finish(1000);
  EXPECT_DOUBLE_EQ(hol_sighting().total_ns, 200);
}

TEST_F(WatchTest, AFlowTiedFromItsStartQueuesNothing) {
  WatchFlow tied;
  tied.held = {0, 1};
  start_held_and_beside(watch, to_gpu0, to_gpu1, tied, 0);
  watch.finish(1000);
  EXPECT_EQ(watch.sightings().count(hol), 0u);
}

// Still running when the run ends: counted to the end.
TEST_F(WatchTest, ARunningSightingCountsToTheRunsEnd) {
  start_both(10);
  watch.finish(510);
  EXPECT_DOUBLE_EQ(hol_sighting().total_ns, 500);
}

// The held flow ends at 100 ns and its engine's next copy (flow 3: the same path, TC and
// owner) starts then, held where it was: it takes flow 1's place with flow 1's sightings, so
// nothing is examined again, and the sighting runs on, 0 to 300 ns, as examining it would
// count it. A copy of another owner is examined afresh (and names its owner).
TEST_F(WatchTest, ACopyTakingAnEndedOnesPlaceChangesNothingForTheOthers) {
  for (const uint32_t owner : {1u, 3u}) {
    FidelityWatch w{{fifo(), EdgeArbitration{}, EdgeArbitration{}}, [](int, int) { return 0; }};
    start_held_and_beside(w, to_gpu0, to_gpu1, WatchFlow{}, 0);
    const uint64_t before = w.examinations();
    w.remove(1, 100);
    WatchFlow next;
    next.data_path = &to_gpu0;
    next.owner = owner;
    w.add(3, next);
    w.set_held(3, {1});  // as the rates computed at its start hold it
    w.look(100);
    EXPECT_EQ(w.examinations() - before, owner == 1 ? 0u : 1u) << owner;
    w.finish(300);
    const Sighting& s = w.sightings().at(hol);
    EXPECT_DOUBLE_EQ(s.first_ns, 0);
    EXPECT_DOUBLE_EQ(s.total_ns, 300);
    const std::vector<uint32_t> owners = owner == 1 ? std::vector<uint32_t>{1, 2} : std::vector<uint32_t>{1, 2, 3};
    EXPECT_EQ(s.owners, owners);
  }
}

// An overtaken tail (fidelity_watch.h): copy 1 (TC0, over 0 and 1) ends, and its engine's
// next copy 3 (TC1: another VC, as each TC has its own here) starts over 0 and 2. `holds`:
// where copy 1 is held, in turn, before it ends at 300 ns. Returns the tail's sighting
// (OvertakenTail, 0, 1), if any.
std::optional<Sighting> tail_after(const std::vector<std::vector<int>>& holds) {
  const std::vector<int> first{0, 1}, next{0, 2};
  FidelityWatch watch({fifo(), EdgeArbitration{}, EdgeArbitration{}}, [](int, int tc) { return tc; });
  WatchFlow a;
  a.data_path = &first;
  a.owner = 1;
  watch.add(1, a);
  double t = 0;
  for (const std::vector<int>& held : holds) {
    watch.set_held(1, held);
    watch.look(t);
    t += 100;
  }
  watch.remove(1, 300);
  WatchFlow b;
  b.data_path = &next;
  b.tc = 1;
  b.owner = 3;
  watch.add(3, b);
  watch.look(300);
  watch.remove(3, 400);
  watch.look(400);
  watch.finish(500);
  const auto it = watch.sightings().find({Unrepresented::OvertakenTail, 0, 1});
  if (it == watch.sightings().end()) return std::nullopt;
  return it->second;
}

// Held beyond its first link when it ends: its last TLPs queue before link 1, and copy 3
// overtakes them for as long as it runs (300 to 400 ns).
TEST(WatchTail, HeldBeyondItsFirstLinkLeavesATail) {
  const std::optional<Sighting> s = tail_after({{1}});
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->total_ns, 100);
  EXPECT_EQ(s->owners, (std::vector<uint32_t>{1, 3}));
}

// Held beyond its first link once (stopped there), then at both links in a row (a tie):
// what queued before link 1 never drains, and is overtaken the same.
TEST(WatchTail, AQueueKeptByATieIsATail) {
  const std::optional<Sighting> s = tail_after({{1}, {0, 1}});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->owners, (std::vector<uint32_t>{1, 3}));
}

// Tied from the start (nothing ever queued), or held at its first link alone after the
// stop (link 1 then takes what arrives and more: the queue drains): no tail.
TEST(WatchTail, NoQueueNoTail) {
  EXPECT_FALSE(tail_after({{0, 1}}));
  EXPECT_FALSE(tail_after({{1}, {0}, {0, 1}}));
}


// Write flow 1 (data over links 0 and 1, held back at egress 1) of `own` TLPs, with `behind`
// more TLPs of its stream's copies queued on its engine, and flow 2 beside it in the queue at
// link 0's receiver (128 posted credits), leaving by egress 1 too: a read's requests (over 0
// and 1, its data over link 2), or a write. Whether the stream's share of that queue is named.
bool stream_named(double own, double behind, bool beside_read) {
  EdgeArbitration credits;
  credits.buffered[0] = 128;
  FidelityWatch watch({credits, EdgeArbitration{}, EdgeArbitration{}}, [](int, int) { return 0; });
  const std::vector<int> write_path{0, 1}, requests{0, 1}, data{2};
  WatchFlow held;
  held.data_path = &write_path;
  held.held = {1};
  held.owner = 1;
  held.data_tlps = own;
  held.engine_queue = [behind] { return behind; };
  WatchFlow beside;
  beside.owner = 2;
  if (beside_read) {
    beside.completions = true;
    beside.data_path = &data;
    beside.request_path = &requests;
  } else {
    beside.data_path = &write_path;
  }
  watch.add(1, held);
  watch.add(2, beside);
  watch.look(0);
  watch.finish(100);
  const auto it = watch.sightings().find({Unrepresented::StreamInQueue, 0, 1});
  if (it == watch.sightings().end()) return false;
  EXPECT_EQ(it->second.owners, (std::vector<uint32_t>{1, 2}));
  return true;
}

// The fluid weighs the write's class in that queue by its own 32 TLPs; its engine's next
// copies keep the queue's 128 credits in the packet model (trees trial u1607). Not named
// where nothing is queued behind it, where one copy fills the credits itself (the fluid
// counts it so), or where the flow beside it is of the same class (no division by class).
TEST(WatchStream, ShortWritesStreamingIntoAQueueBesideAnotherClassAreNamed) {
  EXPECT_TRUE(stream_named(32, 96, true));
  EXPECT_TRUE(stream_named(32, 8, true));
  EXPECT_FALSE(stream_named(32, 0, true));
  EXPECT_FALSE(stream_named(128, 96, true));
  EXPECT_FALSE(stream_named(32, 96, false));
}

// Whether a flow held back beyond link 0 (at egress 1) names backpressure for a flow beside
// it on link 0 (leaving by egress 2), link 0's receiver advertising 32 TLPs of credits for
// the flow's class.
bool backpressure_named(bool read, double window_tlps) {
  EdgeArbitration credits;
  credits.buffered[read ? 2 : 0] = 32;
  FidelityWatch watch({credits, EdgeArbitration{}, EdgeArbitration{}}, [](int, int) { return 0; });
  const std::vector<int> to_gpu0{0, 1}, to_gpu1{0, 2};
  WatchFlow held;
  held.completions = read;
  held.data_tlps = window_tlps;
  start_held_and_beside(watch, to_gpu0, to_gpu1, held, 0);
  return watch.sightings().count({Unrepresented::Backpressure, 0, 1}) > 0;
}

// A read fills the receiver's 32 completion credits only with a tag window of 32 TLPs or
// more (the rule the rate computation backs a queue up by); with 16 in flight it cannot,
// and naming backpressure there was a false alarm. A write always can.
TEST(WatchCredits, AReadFillsFiniteCreditsOnlyWithAWindowAsLarge) {
  EXPECT_FALSE(backpressure_named(true, 16));
  EXPECT_TRUE(backpressure_named(true, 32));
  EXPECT_TRUE(backpressure_named(true, 64));
  EXPECT_TRUE(backpressure_named(false, kUnbounded));
}

// A remap (TC/VC maps changed) while flow 1 (TC 1) is held at edges 0 and 1, and flow 2
// (TC 3) shares edge 0 with it: the packet model drains what queued under the old map.
// Kept where a moved TC's flow crosses a saturated link another flow shares (edge 0), not
// where it is alone (edge 1: held there too, but no other queue stands in its new VC), nor
// for a TC that did not move (flow 2's).
TEST(WatchRemap, AMovedTcOnASharedSaturatedLinkIsKept) {
  std::vector<int> to_gpu0{0, 1}, to_gpu1{0, 2};
  FidelityWatch w{{EdgeArbitration{}, EdgeArbitration{}, EdgeArbitration{}}, [](int, int tc) { return tc; }};
  WatchFlow held;
  held.data_path = &to_gpu0;
  held.held = {0, 1};
  held.tc = 1;
  held.owner = 1;
  WatchFlow beside;
  beside.data_path = &to_gpu1;
  beside.tc = 3;
  beside.owner = 2;
  w.add(1, held);
  w.add(2, beside);
  w.look(0);
  for (const double t : {7000.0, 9000.0}) {
    w.remap(t, [](int, int tc) { return tc == 1; });
    w.look(t);
  }
  w.remap(9500, [](int, int tc) { return tc == 5; });
  w.look(9500);
  ASSERT_EQ(w.remaps().size(), 1u);
  const auto& [edge, r] = *w.remaps().begin();
  EXPECT_EQ(edge, 0);
  EXPECT_DOUBLE_EQ(r.first_ns, 7000);
  EXPECT_EQ(r.times, 2);
  EXPECT_EQ(r.owners, (std::vector<uint32_t>{1, 2}));  // every flow crossing it then
}

// A remap that moves a lone flow's TC where a copy starts at the same instant (the command
// whose arrival made the policy re-rank; found by a user trial: priority_s raising a new
// 512 KiB read above a running 1 MiB one, 9.2 us late in the packet model, not named): kept
// once a look at that instant finds the newcomer; not where none comes.
TEST(WatchRemap, ACopyStartingAtTheRemapCounts) {
  std::vector<int> path{0, 1}, other{0, 2};
  FidelityWatch w{{EdgeArbitration{}, EdgeArbitration{}, EdgeArbitration{}}, [](int, int tc) { return tc; }};
  WatchFlow running;
  running.data_path = &path;
  running.held = {0};
  running.tc = 5;
  running.owner = 1;
  w.add(1, running);
  w.look(0);
  w.remap(10000, [](int, int tc) { return tc == 5; });
  w.look(10000);
  EXPECT_TRUE(w.remaps().empty());  // alone so far
  WatchFlow newcomer;
  newcomer.data_path = &other;
  newcomer.tc = 7;
  newcomer.owner = 2;
  w.add(2, newcomer);
  w.look(10000);
  ASSERT_EQ(w.remaps().size(), 1u);
  EXPECT_EQ(w.remaps().begin()->second.owners, (std::vector<uint32_t>{1, 2}));
  w.remove(2, 15000);
  w.look(15000);
  w.remap(20000, [](int, int tc) { return tc == 5; });  // alone again, and nobody joins at 20 us
  w.look(20000);
  w.look(30000);
  EXPECT_EQ(w.remaps().begin()->second.times, 1);
}


// A read's burst of MRds piling up in one ingress queue (FidelityWatch::request_burst()): its
// requests cross gpu -> sw (edge 0, an MRd in 1.5 ns) and sw -> rc (edge 1, 12 ns, saturated:
// a 4 KiB write from the same GPU is held there). Its 128 MRds arrive 8 times faster than
// edge 1 sends them: they pile up in sw's queue for edge 1, and the write's TLPs, in the same
// queue, wait behind the pile (3,072 wire bytes of MRds: more than 3 % of the write's 4 KiB).
struct BurstCase {
  std::vector<double> mrd_ns{1.5, 12};
  std::vector<int> write_path{0, 1};
  bool strict = false;  // edge 1's VC arbiter strict, the read (TC 1) in VC 1 above the write's VC 0
  bool sighted() {
    const std::vector<int> requests{0, 1}, completions{2};
    std::vector<EdgeArbitration> edges(4);
    if (strict) edges[1].vc.kind = ShareKind::Strict;
    FidelityWatch watch(edges, [](int, int tc) { return tc; });
    // (Edges without a time here, the completions' 2 and an unused 3: 1 ns.)
    watch.set_tlp_time([this](int edge, TlpKind, double) {
      return static_cast<std::size_t>(edge) < mrd_ns.size() ? mrd_ns[static_cast<std::size_t>(edge)] : 1.0;
    });
    WatchFlow read;
    read.data_path = &completions;
    read.request_path = &requests;
    read.completions = true;
    read.owner = 1;
    read.bytes = 64 * 1024;
    read.window = 128 * 512;
    read.request_burst_bytes = 128 * 24;
    read.request_burst_ns = 128 * 12;
    read.tc = strict ? 1 : 0;
    WatchFlow write;
    write.data_path = &write_path;
    write.held = {1};
    write.owner = 2;
    write.bytes = 4096;
    watch.add(1, read);
    watch.add(2, write);
    watch.look(0);
    return watch.sightings().count({Unrepresented::RequestBurst, 1, 1}) == 1;
  }
};

TEST(RequestBurst, APileInTheWritesIngressQueueIsSighted) { EXPECT_TRUE(BurstCase{}.sighted()); }

// Arriving no faster than they leave, the MRds do not pile up: what came interleaved leaves so.
TEST(RequestBurst, NoPileWhereTheLinkBeforeIsNoFaster) {
  BurstCase c;
  c.mrd_ns = {12, 12};
  EXPECT_FALSE(c.sighted());
}

// A write arriving by another link (edge 3) waits in another queue for edge 1: the egress's
// arbiter gives it turns between the MRds.
TEST(RequestBurst, AWriteFromAnotherIngressIsNotBehindThePile) {
  BurstCase c;
  c.write_path = {3, 1};
  c.mrd_ns = {1.5, 12, 1, 1.5};
  EXPECT_FALSE(c.sighted());
}

// Under strict VC priority the MRds go ahead of a lower VC's write from another ingress too,
// where they arrive no slower than edge 1 sends them (1.5 ns each on both links)...
TEST(RequestBurst, AheadOfALowerVcBeyondTheRequester) {
  BurstCase c;
  c.write_path = {3, 1};
  c.mrd_ns = {1.5, 1.5, 1, 1.5};
  c.strict = true;
  EXPECT_TRUE(c.sighted());
}

// ... not where the link before is slower (12 ns an MRd into 1.5 ns out): they come one at a
// time, and the write takes its turns between them.
TEST(RequestBurst, NotAheadWhereTheyArriveSlowerThanTheyLeave) {
  BurstCase c;
  c.write_path = {3, 1};
  c.mrd_ns = {12, 1.5, 1, 1.5};
  c.strict = true;
  EXPECT_FALSE(c.sighted());
}


// TLP turns (FidelityWatch::tlp_turns()): one link (edge 0) where a write of 1000 B TLPs
// (each 130 ns on the link) runs beside a copy of `least_ns` least time, whose own TLPs take
// 35 ns. The packet model's arbiter turns whole TLPs: the copy can wait one 130 ns TLP, 3 % of
// its time where that is under 130 / 0.03 = 4,333 ns. Returns the owners named.
std::vector<uint32_t> named_for_turns(double least_ns, bool short_copy_first) {
  const std::vector<int> path{0};
  FidelityWatch watch(std::vector<EdgeArbitration>(1), [](int, int) { return 0; });
  watch.set_tlp_time([](int, TlpKind, double payload) { return payload >= 1000 ? 130.0 : 35.0; });
  WatchFlow big;
  big.data_path = &path;
  big.owner = 1;
  big.bytes = 1 << 20;
  big.data_tlp_bytes = 1000;
  big.least_ns = 1e6;
  WatchFlow copy;
  copy.data_path = &path;
  copy.owner = 2;
  copy.bytes = 256;
  copy.data_tlp_bytes = 256;
  copy.least_ns = least_ns;
  watch.add(short_copy_first ? 2 : 1, short_copy_first ? copy : big);
  watch.look(0);
  watch.add(short_copy_first ? 1 : 2, short_copy_first ? big : copy);
  watch.look(10);
  const auto it = watch.sightings().find({Unrepresented::TlpTurns, 0, 0});
  return it == watch.sightings().end() ? std::vector<uint32_t>{} : it->second.owners;
}

// Named, the short copy alone (the write's 1 MiB does not move by a 35 ns TLP), whichever
// starts first;
TEST(TlpTurns, AShortCopyBesideLongerTlpsIsNamedAlone) {
  EXPECT_EQ(named_for_turns(300, true), std::vector<uint32_t>{2});
  EXPECT_EQ(named_for_turns(300, false), std::vector<uint32_t>{2});
}

// Several sharers' TLPs add up: a turn of each before the copy's. Three 35 ns TLPs beside a
// copy of 3,000 ns least time: one is 1.2 % of it, the three 3.5 %.
TEST(TlpTurns, SeveralSharersTurnsAddUp) {
  const std::vector<int> path{0};
  FidelityWatch watch(std::vector<EdgeArbitration>(1), [](int, int) { return 0; });
  watch.set_tlp_time([](int, TlpKind, double) { return 35.0; });
  for (int k = 1; k <= 4; ++k) {
    WatchFlow f;
    f.data_path = &path;
    f.owner = static_cast<uint32_t>(k);
    f.bytes = 256;
    f.data_tlp_bytes = 256;
    f.least_ns = k == 4 ? 3000 : 1e6;
    watch.add(k, f);
  }
  watch.look(0);
  const auto it = watch.sightings().find({Unrepresented::TlpTurns, 0, 0});
  ASSERT_NE(it, watch.sightings().end());
  EXPECT_EQ(it->second.owners, std::vector<uint32_t>{4});
}

// not a copy whose least time is over 33 of the sharer's TLPs.
TEST(TlpTurns, ACopyLongerThan33SharerTlpsIsNotNamed) {
  EXPECT_TRUE(named_for_turns(4400, true).empty());
  EXPECT_TRUE(named_for_turns(4400, false).empty());
}

// Two writes up edge 0, whose receiver advertises 8 posted-header credits, each holding 2
// credit-ns per unit of its rate there (a TLP of 64 units out for a 128 ns round trip): at
// rates r1 and r2 they hold 2 (r1 + r2) credits. Whether the pool is named, and for whom.
struct PoolCase {
  std::vector<int> path0{0, 1}, path1{0, 2};
  FidelityWatch watch{{EdgeArbitration{}, EdgeArbitration{}, EdgeArbitration{}}, [](int, int) { return 0; }};
  // `second_pooled` false: copy 2 has no pool entry (640 B in five TLPs of 128 units: they
  // could not run the credits out alone) but takes them at the pool's 128 ns round trip all
  // the same, 1 credit-ns per unit.
  void start(double r1, double r2, bool second_pooled = true) {
    for (int id : {1, 2}) {
      WatchFlow w;
      w.data_path = id == 1 ? &path0 : &path1;
      w.owner = static_cast<uint32_t>(id);
      w.bytes = 640;
      w.data_tlp_bytes = 128;
      if (id == 1 || second_pooled) w.credit_pools.push_back({0, false, 2.0, 0.0, 8.0, kUnbounded, 128.0});
      watch.add(id, w);
      watch.set_rate(id, id == 1 ? r1 : r2);
    }
    watch.look(0);
  }
  const Sighting* sighting() const {
    const auto it = watch.sightings().find({Unrepresented::PooledCreditLoop, 0, 0});
    return it == watch.sightings().end() ? nullptr : &it->second;
  }
};

// The copies a pool started at rates r1 and r2 names (none: not named).
std::vector<uint32_t> pool_names(double r1, double r2, bool second_pooled = true) {
  PoolCase c;
  c.start(r1, r2, second_pooled);
  return c.sighting() ? c.sighting()->owners : std::vector<uint32_t>{};
}

// 2 x (2.5 + 2.5) = 10 credits against 8: both copies are named.
TEST(PooledCredits, CopiesNeedingMoreCreditsTogetherAreNamed) {
  EXPECT_EQ(pool_names(2.5, 2.5), (std::vector<uint32_t>{1, 2}));
}

// 2 x (2 + 1.9) = 7.8 credits: within the 8 advertised; 8.2 is within the 3 % margin.
TEST(PooledCredits, CopiesWithinTheCreditsAreNotNamed) {
  EXPECT_TRUE(pool_names(2.0, 1.9).empty());
  EXPECT_TRUE(pool_names(2.05, 2.05).empty());
}

// A copy of full-size TLPs with no pool entry of its own still takes the pool's credits, at
// its own TLPs' size: 2 x 2.5 + 1 x 4 = 9 against 8, both named; 2 x 2.5 + 1 x 2 = 7 is not.
TEST(PooledCredits, ACopyWithoutAPoolEntryCountsAtItsOwnTlps) {
  EXPECT_EQ(pool_names(2.5, 4.0, false), (std::vector<uint32_t>{1, 2}));
  EXPECT_TRUE(pool_names(2.5, 2.0, false).empty());
}

// Data credits bind as headers do: two copies holding 4 data-credit-ns per unit each at 2.5
// hold 20 of the 16 advertised (their headers, 0.1 each, are far from binding).
TEST(PooledCredits, DataCreditsPoolToo) {
  const std::vector<int> p0{0, 1}, p1{0, 2};
  FidelityWatch watch{{EdgeArbitration{}, EdgeArbitration{}, EdgeArbitration{}}, [](int, int) { return 0; }};
  for (int id : {1, 2}) {
    WatchFlow w;
    w.data_path = id == 1 ? &p0 : &p1;
    w.owner = static_cast<uint32_t>(id);
    w.credit_pools.push_back({0, false, 0.1, 4.0, kUnbounded, 16.0, 128.0});
    watch.add(id, w);
    watch.set_rate(id, 2.5);
  }
  watch.look(0);
  EXPECT_EQ(watch.sightings().count({Unrepresented::PooledCreditLoop, 0, 0}), 1u);
}

// One copy alone beyond its credits is a credit loop (CreditLoop), not a pool: 2 x 5 = 10
// credits with the other stopped (rate 0).
TEST(PooledCredits, OneCopyAloneIsNoPool) { EXPECT_TRUE(pool_names(5.0, 0.0).empty()); }

// How long a pool over its credits (2.5 + 2.5 against 8) is sighted in a run to 1000 ns
// when `change` happens at `at_ns` (-1: never seen again).
double pool_held_ns(const std::function<void(FidelityWatch&)>& change, double at_ns) {
  PoolCase c;
  c.start(2.5, 2.5);
  change(c.watch);
  c.watch.look(at_ns);
  c.watch.finish(1000);
  return c.sighting() ? c.sighting()->total_ns : -1;
}

// The sighting holds while the rates need more than the credits: from 0 to 100 ns, when
// copy 2's rate falls (7 credits in all), not to the end of the run; and from 0 to 40 ns,
// when copy 2 ends (copy 1 alone, 5 credits, is no pool).
TEST(PooledCredits, TheSightingEndsWhenTheRatesFallOrACopyLeaves) {
  EXPECT_DOUBLE_EQ(pool_held_ns([](FidelityWatch& w) { w.set_rate(2, 1.0); }, 100), 100);
  EXPECT_DOUBLE_EQ(pool_held_ns([](FidelityWatch& w) { w.remove(2, 40); }, 40), 40);
}

}  // namespace
}  // namespace arbsim::flow

namespace arbsim::flow {
namespace {

// Flow 1 held at edge 1 blocks flow 2 behind edge 0's FIFO ingress (head-of-line); flow 3
// starts later over edges 3 and 2, held at edge 2, which flow 2 crosses: flow 2's rate is not
// the fluid's there, so neither is flow 3's, and the sighting names it (a knock-on), as it
// would have had flow 3 run from the start. Flow 3 ending first, before the sighting, is not.
std::vector<uint32_t> knocked_on(bool third_during_sighting) {
  FidelityWatch watch{{fifo(), EdgeArbitration{}, EdgeArbitration{}, EdgeArbitration{}}, [](int, int) { return 0; }};
  const std::vector<int> held_path{0, 1}, beside_path{0, 2}, third_path{3, 2};
  WatchFlow third;
  third.data_path = &third_path;
  third.held = {2};
  third.owner = 3;
  if (!third_during_sighting) {
    watch.add(3, third);
    watch.look(0);
    watch.remove(3, 10);
    watch.look(10);
  }
  start_held_and_beside(watch, held_path, beside_path, WatchFlow{}, 20);
  if (third_during_sighting) {
    watch.add(3, third);
    watch.look(50);
  }
  watch.finish(100);
  return watch.sightings().at({Unrepresented::HeadOfLine, 0, 1}).owners;
}

TEST(WatchKnockOn, ACopyStartingHeldBesideAConcernedFlowIsNamed) {
  EXPECT_EQ(knocked_on(true), (std::vector<uint32_t>{1, 2, 3}));
}

TEST(WatchKnockOn, ACopyThatEndedBeforeTheSightingIsNot) { EXPECT_EQ(knocked_on(false), (std::vector<uint32_t>{1, 2})); }

}  // namespace
}  // namespace arbsim::flow
