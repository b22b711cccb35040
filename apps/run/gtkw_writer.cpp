// The GTKWave save file (apps/run/gtkw_writer.h). Its format is GTKWave's own: `[dumpfile]`,
// a `*` line with the zoom (below) and the marker, then one line per
// signal (its full dotted name) after a flags line `@<hex>` (4: decimal, 8: binary, 0x20:
// right-justified, 0x400: signed, 0x2000: translated by the filter file named on the `^1`
// line before it) and groups opened by `@800200` (`@c00200` closed) with a `-label` line and
// ended by `@1000200` (`@1401200` closed).
#include "apps/run/gtkw_writer.h"
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace arbsim {

namespace {

struct Signal {
  std::vector<std::string> scope;  // below the top scope: node, port, vc
  std::string name;
  int width = 1;
};

// The VCD's signals, its start (0, or a --vcd-window's start: the timestamp before its
// initial values) and its last timestamp (ps: the model's VCD time unit).
std::vector<Signal> vcd_signals(const std::string& path, std::string* top, double* start_ps, double* end_ps) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the VCD " + path);
  std::vector<Signal> out;
  std::vector<std::string> scope;
  for (std::string word; in >> word && word != "$enddefinitions";) {
    if (word == "$scope") {
      std::string kind, name;
      in >> kind >> name;
      scope.push_back(name);
    } else if (word == "$upscope") {
      if (!scope.empty()) scope.pop_back();
    } else if (word == "$var") {
      std::string type, id, name;
      int width = 1;
      in >> type >> width >> id >> name;
      if (scope.empty()) continue;
      *top = scope.front();
      out.push_back({std::vector<std::string>(scope.begin() + 1, scope.end()), name, width});
    }
  }
  bool dumped = false;  // a timestamp before the initial values is the VCD's start
  for (std::string line; std::getline(in, line);) {
    dumped = dumped || line.rfind("$dumpvars", 0) == 0;
    if (line.empty() || line[0] != '#') continue;
    *end_ps = std::atof(line.c_str() + 1);
    if (!dumped) *start_ps = *end_ps;
  }
  return out;
}

std::string full_name(const std::string& top, const Signal& s) {
  std::string n = top;
  for (const std::string& part : s.scope) n += "." + part;
  n += "." + s.name;
  if (s.width > 1) n += "[" + std::to_string(s.width - 1) + ":0]";
  return n;
}

// Flags and, for GPU states, the filter line.
std::string signal_lines(const std::string& top, const Signal& s, const std::string& filter) {
  if (s.name == "state") return "^1 " + filter + "\n@2024\n" + full_name(top, s) + "\n";
  if (s.width == 1) return "@28\n" + full_name(top, s) + "\n";
  return "@424\n" + full_name(top, s) + "\n";  // signed: -1 is "none granted" or "infinite credits"
}

}  // namespace

std::vector<std::pair<std::string, std::string>> gtkw_files(const std::string& vcd_path) {
  std::string top;
  double start_ps = 0, end_ps = 0;
  const std::vector<Signal> signals = vcd_signals(vcd_path, &top, &start_ps, &end_ps);
  // The whole VCD across about 1,000 pixels of the wave pane. GTKWave 3.3 shows 2^-zoom /
  // 2^7.65 time units per pixel (measured under Xvfb: zoom -22 puts 10 us on 480 pixels).
  const double zoom = -(std::log2(std::max(end_ps - start_ps, 1000.0) / 1000.0) + 7.65);
  const std::filesystem::path vcd = std::filesystem::absolute(vcd_path);
  const std::filesystem::path stem = vcd.parent_path() / vcd.stem();
  const std::string filter = stem.string() + ".gpu_state.txt";
  // node -> port ("" for the node's own signals) -> signals, in the VCD's order.
  std::vector<std::string> nodes;
  std::map<std::string, std::vector<std::string>> ports;
  std::map<std::pair<std::string, std::string>, std::vector<const Signal*>> own;
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<std::string, const Signal*>>> vcs;
  for (const Signal& s : signals) {
    if (s.scope.empty()) continue;
    const std::string& node = s.scope[0];
    if (!ports.count(node)) nodes.push_back(node);
    const std::string port = s.scope.size() > 1 ? s.scope[1] : "";
    auto& list = ports[node];
    if (std::find(list.begin(), list.end(), port) == list.end()) list.push_back(port);
    if (s.scope.size() > 2) vcs[{node, port}].push_back({s.scope[2], &s});
    else own[{node, port}].push_back(&s);
  }
  std::ostringstream g;
  g << "[*] GTKWave save file written by pcie-arbsim for " << vcd.filename().string() << "\n"
    << "[dumpfile] \"" << vcd.string() << "\"\n[savefile] \"" << stem.string() << ".gtkw\"\n"
    << "[timestart] " << static_cast<uint64_t>(start_ps) << "\n[size] 1400 900\n[pos] -1 -1\n[sst_width] 240\n[signals_width] 320\n"
    << "[sst_expanded] 1\n[sst_vpaned_height] 300\n*" << std::fixed << std::setprecision(6) << zoom << " -1\n";
  for (const std::string& node : nodes) {
    g << "@800200\n-" << node << "\n";
    for (const std::string& port : ports[node]) {
      if (!port.empty()) g << "@800200\n-" << node << "." << port << "\n";
      for (const Signal* s : own[{node, port}]) g << signal_lines(top, *s, filter);
      const auto& per_vc = vcs[{node, port}];
      for (std::size_t i = 0; i < per_vc.size(); ++i) {  // one closed group per VC
        const std::string label = node + "." + port + "." + per_vc[i].first;
        if (i == 0 || per_vc[i - 1].first != per_vc[i].first) g << "@c00200\n-" << label << "\n";
        g << signal_lines(top, *per_vc[i].second, filter);
        if (i + 1 == per_vc.size() || per_vc[i + 1].first != per_vc[i].first) g << "@1401200\n-" << label << "\n";
      }
      if (!port.empty()) g << "@1000200\n-" << node << "." << port << "\n";
    }
    g << "@1000200\n-" << node << "\n";
  }
  return {{stem.string() + ".gtkw", g.str()}, {filter, "0 Idle\n1 Copy\n2 Compute\n3 Stalled\n"}};
}

}  // namespace arbsim
