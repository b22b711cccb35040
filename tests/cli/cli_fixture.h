// The fixture of the command-line suites (tests/cli/): the binary run in a fresh temporary
// directory, and the bad-input contract (docs/config.md, "Errors and exit codes"): exit
// code 2, exactly one line on stderr starting "error:", naming the file, the dotted key (with
// the line when YAML gives one) and the reason; and no results written.
#pragma once
#include <sstream>
#include <string>
#include <vector>
#include "tests/common/cli_harness.h"

namespace arbsim::test {

namespace fs = std::filesystem;

inline const std::string kBin = ARBSIM_BIN;
inline const std::string kSrc = ARBSIM_SRC;

inline std::string bad(const std::string& file) { return kSrc + "/tests/data/bad/" + file; }
inline std::string config(const std::string& file) { return kSrc + "/configs/" + file; }

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string l; std::getline(s, l);) out.push_back(l);
  return out;
}

using Result = CliResult;

class Cli : public TempDirTest {
 protected:
  // Runs the binary with `args` inside the test's directory; a run over 100 s is a hang.
  Result run(const std::vector<std::string>& args, const std::string& prefix = "") const {
    return run_binary(kBin, args, prefix, 100);
  }

  // One error line holding every needle, exit code `code`.
  static void expect_one_error(const Result& r, const std::vector<std::string>& needles, int code = 2) {
    EXPECT_EQ(r.code, code) << r.err;
    const std::vector<std::string> err = lines(r.err);
    ASSERT_EQ(err.size(), 1u) << "stderr must be one error line:\n" << r.err;
    EXPECT_EQ(err[0].rfind("error: ", 0), 0u) << err[0];
    for (const std::string& n : needles) EXPECT_NE(err[0].find(n), std::string::npos) << "'" << n << "' not in: " << err[0];
  }

  // Both `run` and `validate` reject the input; `run` writes nothing.
  void expect_bad_input(const std::string& cfg, const std::vector<std::string>& needles,
                        const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args = {"run", cfg, "--out", "out", "--vcd", "out/w.vcd"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run(args);
    expect_one_error(r, needles);
    EXPECT_FALSE(fs::exists(dir_ / "out")) << "bad input must not create the output directory";
    EXPECT_FALSE(fs::exists(dir_ / "runs")) << "bad input must not create runs/";
    args = {"validate", cfg};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result v = run(args);
    expect_one_error(v, needles);
    EXPECT_EQ(v.out, "") << "validate prints the config only when it is valid";
  }

  // Writes `text` to `name` in the test's directory; returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    if (p.has_parent_path()) fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
};

}  // namespace arbsim::test
