// The fabric's calendar of port wake-ups (models/pcie/port_calendar.h): sc_event's timed
// notification rule per port (the earliest wins), and wakes of one picosecond handed out in
// the order they were asked for. Expected orders are worked by hand from those two rules.
#include <gtest/gtest.h>
#include <vector>
#include "models/pcie/port_calendar.h"

namespace arbsim {
namespace {

PortCalendar with_ports(int n) {
  PortCalendar c;
  for (int i = 0; i < n; ++i) EXPECT_EQ(c.add(), i);
  return c;
}

std::vector<int> drain(PortCalendar& c, uint64_t now) {
  std::vector<int> out;
  for (int who; (who = c.pop_due(now)) >= 0;) out.push_back(who);
  return out;
}

TEST(PortCalendar, AnEarlierWakeReplacesALaterOneAndALaterOneIsDropped) {
  PortCalendar c = with_ports(2);
  EXPECT_TRUE(c.wake(0, 100));
  EXPECT_TRUE(c.wake(1, 50));
  EXPECT_TRUE(c.wake(0, 80));
  EXPECT_FALSE(c.wake(0, 90));
  EXPECT_EQ(c.pending(0), 80u);
  EXPECT_EQ(c.earliest(), 50u);
  EXPECT_EQ(c.pop_due(49), -1);
  EXPECT_EQ(drain(c, 50), std::vector<int>{1});
  EXPECT_EQ(c.earliest(), 80u);
  // Port 0 runs once, at 80: its replaced wake at 100 is gone.
  EXPECT_EQ(drain(c, 1000), std::vector<int>{0});
  EXPECT_EQ(c.earliest(), PortCalendar::kNever);
}

TEST(PortCalendar, WakesOfOnePicosecondGoInTheOrderTheyWereAskedFor) {
  PortCalendar c = with_ports(3);
  c.wake(2, 5);
  c.wake(0, 5);
  c.wake(1, 5);
  EXPECT_EQ(drain(c, 5), (std::vector<int>{2, 0, 1}));
}

TEST(PortCalendar, AReplacedWakeTakesItsPlaceInTheOrderWhenItIsAskedFor) {
  PortCalendar c = with_ports(2);
  c.wake(0, 10);
  c.wake(1, 5);
  c.wake(0, 5);  // asked for after port 1's
  EXPECT_EQ(drain(c, 10), (std::vector<int>{1, 0}));
}

TEST(PortCalendar, APortWokenAgainAtTheTimeItRanRunsAgain) {
  PortCalendar c = with_ports(2);
  c.wake(0, 7);
  c.wake(1, 7);
  EXPECT_EQ(c.pop_due(7), 0);
  EXPECT_TRUE(c.wake(0, 7));  // port 0, having run, is asked for again at the same time
  EXPECT_EQ(drain(c, 7), (std::vector<int>{1, 0}));
}

TEST(PortCalendar, ACancelledWakeNeverComes) {
  PortCalendar c = with_ports(2);
  c.wake(0, 3);
  c.wake(1, 4);
  c.cancel(0);
  EXPECT_EQ(c.earliest(), 4u);
  EXPECT_EQ(drain(c, 10), std::vector<int>{1});
}

}  // namespace
}  // namespace arbsim
