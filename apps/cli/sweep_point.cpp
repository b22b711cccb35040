// What every sweep backend shares about a point (apps/cli/sweep_point.h).
#include "apps/cli/sweep_point.h"
#include <signal.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include "apps/cli/output_dir.h"
#include "apps/run/version.h"
#include "platforms/config/config.h"
#include "platforms/config/reader.h"

namespace arbsim {

namespace fs = std::filesystem;

namespace {

volatile sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int sig) { g_stop_signal = sig; }

std::string fnv_hex(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

bool log_says_out_of_memory(const fs::path& log) {
  std::string text;
  try {
    text = read_text_file(log.string());
  } catch (const ConfigError&) {
    return false;
  }
  return text.find("bad_alloc") != std::string::npos || text.find("out of memory") != std::string::npos;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Two points whose parameters differ but whose configs are one: a later key set the
// setting an earlier one names in another spelling (platform.links.0.gen and
// platform.links.rc0-sw0.gen in one product), so a column would show values never
// simulated. Refused before anything runs.
// The same where they differ only in platform.defaults keys that no element takes: a base
// whose elements set every key themselves (a config.effective.yaml) made a sweep of
// platform.defaults.link.width points that ran alike (found by a user trial).
void refuse_points_that_run_alike(const SweepSpec& s, const std::vector<SweepPoint>& points) {
  std::map<std::string, const SweepPoint*> first, first_elements;
  // The first point with `key` in `seen`; a later one with other parameters is refused, `why`.
  const auto once = [&](std::map<std::string, const SweepPoint*>& seen, const std::string& key, const SweepPoint& p,
                        const char* why) {
    const auto [it, fresh] = seen.emplace(key, &p);
    if (!fresh && it->second->run->varied != p.run->varied)
      throw ConfigError(s.file + ": runs " + it->second->run->id + " (" + joined(it->second->run->varied) + ") and " +
                        p.run->id + " (" + joined(p.run->varied) + ") " + why);
  };
  for (const SweepPoint& p : points) {
    once(first, p.config_hash, p,
         "give one config: two keys set one setting (a list element by index and by name?), the later winning, so "
         "the summary would show values never simulated");
    once(first_elements, p.elements, p,
         "run alike: they differ only in platform.defaults keys that no element takes (the base's elements set "
         "them themselves, as a config.effective.yaml does); vary the elements' keys");
  }
}

// One setting varied under two spellings (apps.0.size in one run, apps.bulk.size or
// apps[0].size in another) would split into two summary columns, each blank where the other
// is set: refused, naming both, before anything runs.
void refuse_two_spellings(const SweepSpec& s) {
  std::map<std::string, std::pair<std::string, std::string>> spelling;  // setting -> first key, its run
  for (const SweepRun& r : s.runs) {
    const std::vector<std::string> targets = override_targets(s.base, r.overrides);
    const std::size_t first_varied = r.overrides.size() - r.varied.size();
    for (std::size_t i = 0; i < r.varied.size(); ++i) {
      const std::string key = r.varied[i].substr(0, r.varied[i].find('='));
      const auto [it, fresh] = spelling.emplace(targets[first_varied + i], std::make_pair(key, r.id));
      if (!fresh && it->second.first != key)
        throw ConfigError(s.file + ": run " + r.id + " varies " + key + ", the setting run " + it->second.second +
                          " varies as " + it->second.first + ": spell it one way, or the summary splits it into two columns");
    }
  }
}

}  // namespace

std::vector<SweepPoint> make_points(const SweepSpec& s, const fs::path& out) {
  std::vector<SweepPoint> points;
  for (const SweepRun& r : s.runs) {
    SweepPoint p;
    p.run = &r;
    p.dir = out / "runs" / r.id;
    try {
      const Config c = load_config(s.base, r.overrides);
      p.config_hash = config_hash(c);
      p.elements = fnv_hex(elements_yaml(c));
    } catch (const ConfigError& e) {
      throw ConfigError(s.file + ": run " + r.id + ": " + e.what());
    }
    p.key = fnv_hex(p.config_hash + "|" + version());
    points.push_back(p);
  }
  refuse_points_that_run_alike(s, points);
  refuse_two_spellings(s);
  return points;
}

nlohmann::json read_json_file(const fs::path& p) {
  try {
    return nlohmann::json::parse(read_text_file(p.string()), nullptr, false);
  } catch (const ConfigError&) {
    return nlohmann::json();  // missing, a directory, unreadable
  }
}

bool point_complete(const SweepPoint& p) {
  const nlohmann::json mark = read_json_file(p.dir / "point.json");
  if (!mark.is_object() || mark.value("key", "") != p.key) return false;
  const nlohmann::json res = read_json_file(p.dir / "results.json");
  return res.is_object() && res.value("config_hash", "") == p.config_hash;
}

void write_point_mark(const SweepPoint& p) {
  const nlohmann::json mark = {{"key", p.key}, {"config_hash", p.config_hash}, {"version", version()}};
  OutputDir::write_file(p.dir / "point.json", mark.dump(2) + "\n");
}

void finish_ok_run(SweepPoint& p) {
  const nlohmann::json res = read_json_file(p.dir / "results.json");
  if (!res.is_object() || res.value("config_hash", "") != p.config_hash) {
    p.status = "failed";
    p.detail = "exit 0 but no results.json for this config";
    return;
  }
  try {
    write_point_mark(p);
  } catch (const OutputError& e) {
    p.status = "failed";
    p.detail = e.what();
    return;
  }
  p.status = "ok";
  p.detail.clear();
}

void classify_failed_run(SweepPoint& p, const std::string& how) {
  if (log_says_out_of_memory(p.dir / "log.txt")) {
    p.status = "out_of_memory";
    p.detail = "exceeded the memory limit (--mem-limit)";
    return;
  }
  p.status = "failed";
  p.detail = how;
}

std::string shell_quote(const std::string& s) {
  if (s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,") ==
      std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::vector<std::string> run_argv(const std::string& exe, const SweepSpec& s, const SweepRun& r,
                                  const std::string& out) {
  std::vector<std::string> v = {exe, "run", s.base};
  for (const std::string& o : r.overrides) {
    v.push_back("-s");
    v.push_back(o);
  }
  v.push_back("--out");
  v.push_back(out);
  return v;
}

// The command as runs.txt, --dry-run and the Slurm manifest list it: with the base config and
// the run directory absolute, so it runs the same from any directory (a cluster job's, say).
// (Only the base is made absolute: a copy of the whole spec per point, every run of it, made
// listing a sweep quadratic in its points: 80,000 points spent minutes here, deaf to SIGTERM.)
std::string sweep_command(const std::string& exe, const SweepSpec& s, const SweepRun& r, const std::string& out) {
  std::vector<std::string> argv = run_argv(exe, s, r, fs::absolute(out).lexically_normal().string());
  argv[2] = fs::absolute(s.base).lexically_normal().string();
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
  return cmd;
}

std::string fmt_duration(double s) {
  char b[32];
  if (s >= 60) std::snprintf(b, sizeof b, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else std::snprintf(b, sizeof b, "%gs", std::round(s * 10) / 10);  // to 0.1 s: 1.5 s read as 2s
  return b;
}

void SweepProgress::finished(bool ok) {
  ++done_;
  if (!ok) ++failed_;
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const std::size_t ran = done_ - skipped_, left = total_ - std::min(done_, total_);
  const double eta = ran ? el / ran * left : 0;
  const int width = 30, fill = static_cast<int>(width * std::min(done_, total_) / std::max<std::size_t>(total_, 1));
  char line[160];
  std::snprintf(line, sizeof line, "[%s%s] %zu/%zu runs, %zu failed, elapsed %s, ETA %s",
                std::string(fill, '#').c_str(), std::string(width - fill, '.').c_str(), done_, total_, failed_,
                fmt_duration(el).c_str(), fmt_duration(eta).c_str());
  std::cerr << (isatty(2) ? "\r" : "") << line << (isatty(2) && left ? "" : "\n") << std::flush;
}

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
}

int stop_signal() { return g_stop_signal; }

}  // namespace arbsim
