// The tables of a sweep (apps/cli/sweep_tables.h). The tidy tables are built from each point's
// results.json generically: an element's scalars become columns (nested objects dotted, e.g.
// `periodic.deadlines_met`), its per-VC lists (`vc_*`, `grants`) rows of a `*_vcs` table, and
// longer series stay in results.json; a field a point lacks is an empty cell.
#include "apps/cli/sweep_tables.h"
#include <algorithm>
#include <map>
#include <sstream>
#include "platforms/config/reader.h"

namespace arbsim {

namespace {

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// null (a figure with no value: docs/results.md) is an empty field, as a missing one.
std::string json_text(const nlohmann::json& v) { return v.is_null() ? "" : v.is_string() ? v.get<std::string>() : v.dump(); }

using Json = nlohmann::ordered_json;  // keeps results.json's field order for the columns
using Cols = std::vector<std::pair<std::string, std::string>>;

// Rows whose columns are the fixed leading ones, then every other in first-seen order.
class Table {
 public:
  explicit Table(std::vector<std::string> lead) : cols_(std::move(lead)) {}
  void add(const Cols& row) {
    for (const auto& c : row)
      if (std::find(cols_.begin(), cols_.end(), c.first) == cols_.end()) cols_.push_back(c.first);
    rows_.emplace_back(row.begin(), row.end());
  }
  std::string csv() const {
    std::ostringstream out;
    for (std::size_t i = 0; i < cols_.size(); ++i) out << (i ? "," : "") << csv_field(cols_[i]);
    out << "\n";
    for (const auto& r : rows_) {
      for (std::size_t i = 0; i < cols_.size(); ++i) {
        const auto it = r.find(cols_[i]);
        out << (i ? "," : "") << (it == r.end() ? "" : csv_field(it->second));
      }
      out << "\n";
    }
    return out.str();
  }

 private:
  std::vector<std::string> cols_;
  std::vector<std::map<std::string, std::string>> rows_;
};

std::string text_of(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

bool per_vc(const std::string& key, const Json& v) {
  return v.is_array() && (key.rfind("vc_", 0) == 0 || key == "grants") &&
         std::all_of(v.begin(), v.end(), [](const Json& x) { return x.is_number(); });
}

// An element's scalars in its own order, nested objects dotted; lists are left out. A null
// (a figure with nothing to take it of) is an empty field: its column is there even when it
// is null at every point, so code written for one sweep reads another.
void flatten(const Json& obj, const std::string& prefix, Cols* out) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (it->is_object()) flatten(*it, prefix + it.key() + ".", out);
    else if (!it->is_array()) out->push_back({prefix + it.key(), it->is_null() ? std::string() : text_of(*it)});
  }
}

// The point's identifying columns: run, status, the swept parameters.
Cols point_columns(const SweepSpec& s, const SweepPoint& p) {
  std::map<std::string, std::string> vals;
  for (const std::string& o : p.run->varied) vals[o.substr(0, o.find('='))] = o.substr(o.find('=') + 1);
  Cols cols = {{"run", p.run->id}, {"status", p.status}};
  for (const std::string& k : s.varied_keys) cols.push_back({k, vals[k]});
  return cols;
}

// The elements of one results.json array into `elems` (scalars) and `vcs` (per-VC lists).
void add_elements(const Cols& lead, const Json& arr, Table* elems, Table* vcs) {
  for (const Json& e : arr) {
    if (!e.is_object()) continue;
    Cols cols = lead;
    flatten(e, "", &cols);
    elems->add(cols);
    std::size_t n = 0;
    for (auto it = e.begin(); it != e.end(); ++it)
      if (per_vc(it.key(), *it)) n = std::max(n, it->size());
    for (std::size_t vc = 0; vc < n; ++vc) {
      Cols r = lead;
      for (const char* k : {"name", "direction"})
        if (e.contains(k)) r.push_back({k, text_of(e[k])});
      r.push_back({"vc", std::to_string(vc)});
      for (auto it = e.begin(); it != e.end(); ++it)
        if (per_vc(it.key(), *it) && vc < it->size()) r.push_back({it.key(), text_of((*it)[vc])});
      vcs->add(r);
    }
  }
}

Json read_ordered(const std::filesystem::path& p) {
  try {
    Json j = Json::parse(read_text_file(p.string()), nullptr, false);
    return j.is_discarded() ? Json() : j;
  } catch (const ConfigError&) {
    return Json();  // missing, a directory, unreadable
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> tidy_tables(const SweepSpec& s, const std::vector<SweepPoint>& points) {
  const std::vector<std::string> arrays = {"apps", "gpus", "devices", "links", "arbiters"};
  std::vector<std::string> lead = {"run", "status"};
  lead.insert(lead.end(), s.varied_keys.begin(), s.varied_keys.end());
  Table pts(lead);
  std::vector<Table> elems(arrays.size(), Table(lead)), vcs(arrays.size(), Table(lead));
  for (const SweepPoint& p : points) {
    const Cols cols = point_columns(s, p);
    const Json j = p.status == "ok" ? read_ordered(p.dir / "results.json") : Json();
    Cols top = cols;
    if (j.is_object()) flatten(j, "", &top);
    top.erase(std::remove_if(top.begin(), top.end(), [](const auto& c) { return c.first == "schema"; }), top.end());
    pts.add(top);
    for (std::size_t a = 0; a < arrays.size(); ++a)
      if (j.is_object() && j.contains(arrays[a]) && j[arrays[a]].is_array())
        add_elements(cols, j[arrays[a]], &elems[a], &vcs[a]);
  }
  std::vector<std::pair<std::string, std::string>> out = {{"tables/points.csv", pts.csv()}};
  for (std::size_t a = 0; a < arrays.size(); ++a) out.push_back({"tables/" + arrays[a] + ".csv", elems[a].csv()});
  out.push_back({"tables/link_vcs.csv", vcs[3].csv()});
  out.push_back({"tables/arbiter_vcs.csv", vcs[4].csv()});
  return out;
}

std::string summary_csv(const SweepSpec& s, const std::vector<SweepPoint>& points) {
  const char* app_keys[] = {"name", "iterations", "throughput_gbps", "p50_ns", "p99_ns", "deadlines_met",
                            "deadlines_missed"};
  std::vector<nlohmann::json> results(points.size());
  std::size_t max_apps = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].status == "ok") results[i] = read_json_file(points[i].dir / "results.json");
    if (results[i].is_object() && results[i].contains("apps") && results[i]["apps"].is_array())
      max_apps = std::max(max_apps, results[i]["apps"].size());
  }
  std::ostringstream csv;
  csv << "run,status";
  for (const std::string& k : s.varied_keys) csv << "," << csv_field(k);
  csv << ",config_hash,policy,fidelity,fidelity_notes,sim_time_ns,makespan_ns,tlp_hops,bytes_delivered";
  for (std::size_t a = 0; a < max_apps; ++a)
    for (const char* k : app_keys) csv << ",app" << a << "." << k;
  csv << "\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    const nlohmann::json& j = results[i];
    const bool ok = j.is_object();
    csv << p.run->id << "," << (p.status == "ok" && !ok ? "missing" : p.status);
    std::map<std::string, std::string> vals;
    for (const std::string& o : p.run->varied) vals[o.substr(0, o.find('='))] = o.substr(o.find('=') + 1);
    for (const std::string& k : s.varied_keys) csv << "," << csv_field(vals[k]);
    csv << "," << p.config_hash;
    for (const char* k : {"policy", "fidelity"}) csv << "," << (ok && j.contains(k) ? csv_field(json_text(j[k])) : "");
    // Empty for a point with no results (timed out, failed), as every other figure: not 0.
    const bool notes = ok && j.contains("fidelity_notes") && j["fidelity_notes"].is_array();
    csv << "," << (notes ? std::to_string(j["fidelity_notes"].size()) : std::string());
    for (const char* k : {"sim_time_ns", "makespan_ns", "tlp_hops", "bytes_delivered"})
      csv << "," << (ok && j.contains(k) ? csv_field(json_text(j[k])) : "");
    const bool apps = ok && j.contains("apps") && j["apps"].is_array();
    for (std::size_t a = 0; a < max_apps; ++a)
      for (const char* k : app_keys) {
        const bool has = apps && a < j["apps"].size() && j["apps"][a].is_object() && j["apps"][a].contains(k);
        csv << "," << (has ? csv_field(json_text(j["apps"][a][k])) : "");
      }
    csv << "\n";
  }
  return csv.str();
}

}  // namespace arbsim
