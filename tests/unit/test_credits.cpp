// Flow-control credit counting (PCIe Base Spec §2.6.1; docs/pcie-reference.md §3): one
// header credit per TLP, ceil(payload / 16) data credits, per VC and class; infinite limits
// never block. Counts outside [0, advertised] are a model fault (an always-on run check).
#include <gtest/gtest.h>
#include <stdexcept>
#include "models/pcie/credits.h"

using namespace arbsim;

namespace {

CreditLimits posted(int64_t hdr, int64_t data) {
  CreditLimits l;
  l.header[0] = hdr;
  l.data[0] = data;
  return l;
}

}  // namespace

TEST(Credits, CostIsOneHeaderAndSixteenBytePerDataCredit) {
  EXPECT_EQ(credit_cost(TlpType::MWr, 256).data, 16);
  EXPECT_EQ(credit_cost(TlpType::MWr, 1).data, 1);
  EXPECT_EQ(credit_cost(TlpType::MWr, 17).data, 2);
  EXPECT_EQ(credit_cost(TlpType::MRd, 512).data, 0);  // a read request carries no data
  EXPECT_EQ(credit_cost(TlpType::MRd, 512).header, 1);
}

TEST(Credits, ConsumeUntilBlockedThenRestore) {
  CreditCounter c;
  c.configure(2, posted(2, 32));
  const CreditCost mwr = credit_cost(TlpType::MWr, 256);
  EXPECT_TRUE(c.can_send(1, CreditClass::Posted, mwr));
  c.consume(1, CreditClass::Posted, mwr);
  c.consume(1, CreditClass::Posted, mwr);
  EXPECT_FALSE(c.can_send(1, CreditClass::Posted, mwr));  // 0 headers, 0 data left
  EXPECT_TRUE(c.can_send(0, CreditClass::Posted, mwr));   // VCs count apart
  c.restore(1, CreditClass::Posted, mwr);
  EXPECT_TRUE(c.can_send(1, CreditClass::Posted, mwr));
  EXPECT_EQ(c.data_available(1, CreditClass::Posted), 16);
  EXPECT_EQ(c.data_available(1, CreditClass::Completion), -1);  // infinite
}

TEST(Credits, OutOfBoundsIsAFault) {
  CreditCounter c;
  c.configure(1, posted(1, 16));
  const CreditCost mwr = credit_cost(TlpType::MWr, 256);
  EXPECT_THROW(c.restore(0, CreditClass::Posted, mwr), std::logic_error);  // returned twice
  CreditCounter d;
  d.configure(1, posted(1, 16));
  d.consume(0, CreditClass::Posted, mwr);
  EXPECT_THROW(d.consume(0, CreditClass::Posted, mwr), std::logic_error);  // sent without credits
  CreditCounter inf;
  inf.configure(1, CreditLimits());  // all infinite: never a fault
  for (int i = 0; i < 3; ++i) inf.consume(0, CreditClass::Posted, mwr);
  inf.restore(0, CreditClass::Posted, mwr);
}
