// Ack latency limits and UpdateFC guidelines, in symbol times, by generation, width and MPS.
//
// TRANSCRIBED (by a one-off script, not kept) from ../shared/reference/pcie-dllp-limits.json,
// which reproduces PCIe Base Specification rev 5.0 Tables 3-7/3-8/3-9 (Ack latency limits) and
// Tables 2-46/2-47/2-48 (UpdateFC guidelines) as transcribed by the pcie-bench pcie-model
// (`model/pcie.py`, dicts `Ack_Limits` and `FC_Guide`). Gen4 and Gen5 repeat Gen3, as in the JSON
// and in pcie-model. See docs/pcie-reference.md §2. If the JSON changes, change these rows to match;
// the static_asserts below catch the published spot values going astray.
//
// The two tables are the same except for these entries, kept as the JSON/pcie-model have them
// (they look like typos in pcie-model, but pcie-bench compatibility means reproducing them):
//   gen1 x32 MPS2048: Ack 148, UpdateFC 248
//   gen2 x32 MPS4096: Ack 237, UpdateFC 327
#include "models/pcie/dllp_tables.h"

#include <stdexcept>
#include <string>

namespace arbsim {
namespace {

// Index order: [gen-1][width index in kDllpTableWidths][MPS index in kDllpTableMps].
constexpr int kAckLimits[kDllpGens][kDllpWidths][kDllpMpsSizes] = {
    {  // gen1; MPS 128, 256, 512, 1024, 2048, 4096
        { 237,  416,  559, 1071, 2095, 4143},  // x1
        { 128,  217,  289,  545, 1057, 2081},  // x2
        {  73,  118,  154,  282,  538, 1050},  // x4
        {  67,  107,   86,  150,  278,  534},  // x8
        {  48,   72,   86,  150,  278,  534},  // x16
        {  33,   45,   52,   84,  148,  276},  // x32
    },
    {  // gen2; MPS 128, 256, 512, 1024, 2048, 4096
        { 288,  467,  610, 1122, 2146, 4194},  // x1
        { 179,  268,  340,  596, 1108, 2132},  // x2
        { 124,  169,  205,  333,  589, 1101},  // x4
        { 118,  158,  137,  201,  329,  585},  // x8
        {  99,  123,  137,  201,  329,  585},  // x16
        {  84,   96,  103,  135,  199,  237},  // x32
    },
    {  // gen3; MPS 128, 256, 512, 1024, 2048, 4096
        { 333,  512,  655, 1167, 2191, 4239},  // x1
        { 224,  313,  385,  641, 1153, 2177},  // x2
        { 169,  214,  250,  378,  634, 1146},  // x4
        { 163,  203,  182,  246,  374,  630},  // x8
        { 144,  168,  182,  246,  374,  630},  // x16
        { 129,  141,  148,  180,  244,  372},  // x32
    },
    {  // gen4; MPS 128, 256, 512, 1024, 2048, 4096
        { 333,  512,  655, 1167, 2191, 4239},  // x1
        { 224,  313,  385,  641, 1153, 2177},  // x2
        { 169,  214,  250,  378,  634, 1146},  // x4
        { 163,  203,  182,  246,  374,  630},  // x8
        { 144,  168,  182,  246,  374,  630},  // x16
        { 129,  141,  148,  180,  244,  372},  // x32
    },
    {  // gen5; MPS 128, 256, 512, 1024, 2048, 4096
        { 333,  512,  655, 1167, 2191, 4239},  // x1
        { 224,  313,  385,  641, 1153, 2177},  // x2
        { 169,  214,  250,  378,  634, 1146},  // x4
        { 163,  203,  182,  246,  374,  630},  // x8
        { 144,  168,  182,  246,  374,  630},  // x16
        { 129,  141,  148,  180,  244,  372},  // x32
    },
};

constexpr int kFcGuide[kDllpGens][kDllpWidths][kDllpMpsSizes] = {
    {  // gen1; MPS 128, 256, 512, 1024, 2048, 4096
        { 237,  416,  559, 1071, 2095, 4143},  // x1
        { 128,  217,  289,  545, 1057, 2081},  // x2
        {  73,  118,  154,  282,  538, 1050},  // x4
        {  67,  107,   86,  150,  278,  534},  // x8
        {  48,   72,   86,  150,  278,  534},  // x16
        {  33,   45,   52,   84,  248,  276},  // x32
    },
    {  // gen2; MPS 128, 256, 512, 1024, 2048, 4096
        { 288,  467,  610, 1122, 2146, 4194},  // x1
        { 179,  268,  340,  596, 1108, 2132},  // x2
        { 124,  169,  205,  333,  589, 1101},  // x4
        { 118,  158,  137,  201,  329,  585},  // x8
        {  99,  123,  137,  201,  329,  585},  // x16
        {  84,   96,  103,  135,  199,  327},  // x32
    },
    {  // gen3; MPS 128, 256, 512, 1024, 2048, 4096
        { 333,  512,  655, 1167, 2191, 4239},  // x1
        { 224,  313,  385,  641, 1153, 2177},  // x2
        { 169,  214,  250,  378,  634, 1146},  // x4
        { 163,  203,  182,  246,  374,  630},  // x8
        { 144,  168,  182,  246,  374,  630},  // x16
        { 129,  141,  148,  180,  244,  372},  // x32
    },
    {  // gen4; MPS 128, 256, 512, 1024, 2048, 4096
        { 333,  512,  655, 1167, 2191, 4239},  // x1
        { 224,  313,  385,  641, 1153, 2177},  // x2
        { 169,  214,  250,  378,  634, 1146},  // x4
        { 163,  203,  182,  246,  374,  630},  // x8
        { 144,  168,  182,  246,  374,  630},  // x16
        { 129,  141,  148,  180,  244,  372},  // x32
    },
    {  // gen5; MPS 128, 256, 512, 1024, 2048, 4096
        { 333,  512,  655, 1167, 2191, 4239},  // x1
        { 224,  313,  385,  641, 1153, 2177},  // x2
        { 169,  214,  250,  378,  634, 1146},  // x4
        { 163,  203,  182,  246,  374,  630},  // x8
        { 144,  168,  182,  246,  374,  630},  // x16
        { 129,  141,  148,  180,  244,  372},  // x32
    },
};

// Spot checks against docs/pcie-reference.md §2 (Gen3 x16: 144/168/182/630; Gen3 x8: 163/203/182;
// Gen1 x1 MPS128: 237), so a bad regeneration fails to compile.
static_assert(kAckLimits[2][4][0] == 144 && kAckLimits[2][4][1] == 168, "Gen3 x16 Ack");
static_assert(kAckLimits[2][4][2] == 182 && kAckLimits[2][4][5] == 630, "Gen3 x16 Ack");
static_assert(kAckLimits[2][3][0] == 163 && kAckLimits[2][3][1] == 203, "Gen3 x8 Ack");
static_assert(kAckLimits[2][3][2] == 182, "Gen3 x8 Ack");
static_assert(kAckLimits[0][0][0] == 237, "Gen1 x1 MPS128 Ack");

int index_of(const int* values, int n, int v) {
  for (int i = 0; i < n; ++i) {
    if (values[i] == v) return i;
  }
  return -1;
}

// Throws rather than clamping: a silent nearest-entry lookup would hide a bad config.
int lookup(const int (&table)[kDllpGens][kDllpWidths][kDllpMpsSizes], const char* what,
                  int gen, int width, int mps) {
  const int w = dllp_width_index(width);
  const int m = dllp_mps_index(mps);
  if (gen < 1 || gen > kDllpGens || w < 0 || m < 0) {
    throw std::invalid_argument(std::string(what) + ": no table entry for gen" +
                                std::to_string(gen) + " x" + std::to_string(width) + " MPS " +
                                std::to_string(mps));
  }
  return table[gen - 1][w][m];
}

}  // namespace

int dllp_width_index(int width) { return index_of(kDllpTableWidths, kDllpWidths, width); }

int dllp_mps_index(int mps) { return index_of(kDllpTableMps, kDllpMpsSizes, mps); }

int ack_limit_symbols(int gen, int width, int mps) {
  return lookup(kAckLimits, "ack_limit_symbols", gen, width, mps);
}

int fc_guide_symbols(int gen, int width, int mps) {
  return lookup(kFcGuide, "fc_guide_symbols", gen, width, mps);
}

}  // namespace arbsim
