#include "apps/run/vcd_filter.h"
#include <fnmatch.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

namespace arbsim {

namespace {

// One header line: a scope, its end, a signal or anything else (kept as it is).
struct HeaderLine {
  enum Kind { kScope, kUpscope, kVar, kOther } kind = kOther;
  std::string text, id, name;
};

HeaderLine classify(const std::string& line) {
  std::istringstream in(line);
  std::string word;
  in >> word;
  HeaderLine h;
  h.text = line;
  if (word == "$scope") {
    std::string type;
    in >> type >> h.name;
    h.kind = HeaderLine::kScope;
  } else if (word == "$upscope") {
    h.kind = HeaderLine::kUpscope;
  } else if (word == "$var") {
    std::string type, width;
    in >> type >> width >> h.id >> h.name;
    h.kind = HeaderLine::kVar;
  }
  return h;
}

bool matches(const std::vector<std::string>& globs, const std::string& name) {
  if (globs.empty()) return true;
  for (const std::string& g : globs)
    if (fnmatch(g.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

// Marks the signals kept and the scopes that hold one; returns the kept ids.
std::unordered_set<std::string> choose(const std::vector<HeaderLine>& header, const std::vector<std::string>& globs,
                                       std::vector<bool>* needed) {
  std::unordered_set<std::string> kept;
  std::vector<std::size_t> open;  // indexes of the scopes we are in
  needed->assign(header.size(), false);
  for (std::size_t i = 0; i < header.size(); ++i) {
    const HeaderLine& h = header[i];
    if (h.kind == HeaderLine::kScope) open.push_back(i);
    if (h.kind == HeaderLine::kUpscope && !open.empty()) {  // its scope's signals are all seen
      (*needed)[i] = (*needed)[open.back()];
      open.pop_back();
    }
    if (h.kind != HeaderLine::kVar) continue;
    std::string full;
    for (std::size_t k = 1; k < open.size(); ++k) full += header[open[k]].name + ".";  // below the top scope
    if (!matches(globs, full + h.name)) continue;
    kept.insert(h.id);
    (*needed)[i] = true;
    for (std::size_t s : open) (*needed)[s] = true;
  }
  return kept;
}

// The id of a value change ("1abc", "b0101 abc", "r1.5 abc"), or "" for anything else.
std::string change_id(const std::string& line) {
  if (line.empty()) return "";
  const char c = line[0];
  if (c == 'b' || c == 'B' || c == 'r' || c == 'R') {
    const std::size_t sp = line.find(' ');
    return sp == std::string::npos ? "" : line.substr(sp + 1);
  }
  if (c == '0' || c == '1' || c == 'x' || c == 'X' || c == 'z' || c == 'Z') return line.substr(1);
  return "";
}

}  // namespace

std::vector<std::string> vcd_globs(const std::string& list) {
  std::vector<std::string> globs;
  std::stringstream in(list);
  for (std::string g; std::getline(in, g, ',');)
    if (!g.empty()) globs.push_back(g);
  return globs;
}

std::size_t rewrite_vcd(std::istream& in, std::ostream& out, const VcdRewrite& r) {
  std::vector<HeaderLine> header;
  std::string line;
  while (std::getline(in, line)) {
    header.push_back(classify(line));
    if (line.rfind("$enddefinitions", 0) == 0) break;
  }
  std::vector<bool> needed;
  const std::unordered_set<std::string> kept = choose(header, r.globs, &needed);
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i].kind == HeaderLine::kOther || needed[i]) out << header[i].text << '\n';
  std::string time;  // a time step not written yet: only if a kept change follows
  bool timed = false;  // a timestamp came already
  while (std::getline(in, line)) {
    if (!timed && r.start_ps > 0 && line.rfind("$dumpvars", 0) == 0) out << '#' << r.start_ps << '\n';
    if (!line.empty() && line[0] == '#') {
      timed = true;
      time = line;
      continue;
    }
    const std::string id = change_id(line);
    if (!id.empty() && !kept.count(id)) continue;
    if (!id.empty() && !time.empty()) {
      out << time << '\n';
      time.clear();
    }
    out << line << '\n';
  }
  if (!time.empty()) out << time << '\n';  // the VCD's end (SystemC closes with a bare "#T")
  return kept.size();
}

std::size_t rewrite_vcd_file(const std::string& path, const VcdRewrite& r) {
  const std::string tmp = path + ".rewriting";
  std::size_t kept = 0;
  {
    std::ifstream in(path);
    std::ofstream out(tmp);
    if (!in || !out) throw std::runtime_error("cannot rewrite the VCD " + path);
    kept = rewrite_vcd(in, out, r);
    if (!out.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot replace the VCD " + path);
  return kept;
}

}  // namespace arbsim
