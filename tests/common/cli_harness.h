// Shared by the suites that drive the pcie-arbsim binary (tests/cli, tests/cosim,
// tests/flow): a fresh temporary directory per test, shell quoting, file reading, and a
// run of the binary with its exit code, stdout and stderr.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace arbsim::test {

namespace fs = std::filesystem;

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Single quotes for /bin/sh: nothing inside is special except the quote itself.
inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct CliResult {
  int code = -1;
  std::string out, err;
};

// Each test gets its own temporary directory (removed afterwards) to run the binary in.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "arbsim_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `bin` with `args` inside the test's directory. `prefix`: shell words run first in
  // the same shell (e.g. "ulimit -f 4;"); `timeout_s` > 0 kills a run that takes longer
  // (exit code 124), so a hang fails the test instead of stalling the suite.
  CliResult run_binary(const std::string& bin, const std::vector<std::string>& args, const std::string& prefix = "",
                       int timeout_s = 0) const {
    std::string cmd = "cd " + quote(dir_.string()) + " && " + prefix + " ";
    if (timeout_s > 0) cmd += "timeout -k 5 " + std::to_string(timeout_s) + " ";
    cmd += quote(bin);
    for (const std::string& a : args) cmd += " " + quote(a);
    cmd += " >stdout.txt 2>stderr.txt";
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(dir_ / "stdout.txt");
    r.err = slurp(dir_ / "stderr.txt");
    return r;
  }

  fs::path dir_;
};

}  // namespace arbsim::test
