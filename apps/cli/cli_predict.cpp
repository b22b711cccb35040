// `pcie-arbsim predict CONFIG [--out DIR]`: predictBatchLatency (seed 002 §3.1) for every
// batch app of a config, under each of the three methods, without simulating: Algorithm 1's
// timeline (and the two baselines') on the platform's graph with max-min sharing. A
// program's time is the sum of its batches' (they run atomically, one after another).
// Batch apps with a period are then checked as periodic tasks by the non-preemptive EDF
// test (edf_test.h). Printed as text; with --out, also DIR/predict.json (docs/results.md).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include "apps/cli/cli.h"
#include "apps/cli/output_dir.h"
#include "models/batch/edf_test.h"
#include "platforms/model_notes.h"
#include "platforms/topology/batch_model.h"

namespace arbsim {

namespace {

using nlohmann::ordered_json;

constexpr BatchMethod kMethods[] = {BatchMethod::Batch, BatchMethod::BandwidthAllocation, BatchMethod::TimeDivision};

void print_timeline(const std::vector<BatchStreamCfg>& streams, BatchMethod m, const BatchTimeline& t) {
  std::printf("  %-22s makespan %12.3f us\n", to_string(m), t.makespan_ns / 1e3);
  for (std::size_t i = 0; i < t.streams.size(); ++i) {
    const StreamTimes& s = t.streams[i];
    std::printf("    S%zu %-8s copy %12.3f -> %12.3f us   kernel %12.3f -> %12.3f us\n", i + 1,
                streams[i].gpu.c_str(), s.copy_start / 1e3, s.copy_end / 1e3, s.kernel_start / 1e3,
                s.kernel_end / 1e3);
  }
}

ordered_json timeline_json(const BatchTimeline& t) {
  ordered_json j = {{"makespan_ns", t.makespan_ns}, {"streams", ordered_json::array()}};
  for (const StreamTimes& s : t.streams)
    j["streams"].push_back({{"copy_start_ns", s.copy_start}, {"copy_end_ns", s.copy_end},
                            {"kernel_start_ns", s.kernel_start}, {"kernel_end_ns", s.kernel_end}});
  return j;
}

// Prints the app's timelines and returns them as JSON, with its program's predicted time
// per method in `totals` (ns).
ordered_json predict_app(const BatchModel& model, const BatchProgram& p, const std::string& name,
                         const BatchParams& a, std::vector<double>* totals) {
  std::printf("%s (%zu distinct batches, %zu in its program; the app runs %s)\n", name.c_str(), a.batches.size(),
              a.program.size(), to_string(a.method));
  ordered_json j = {{"name", name}, {"method", to_string(a.method)}, {"program_batches", a.program.size()},
                    {"methods", ordered_json::object()}};
  for (BatchMethod m : kMethods) {
    std::vector<double> each;
    ordered_json batches = ordered_json::array();
    for (std::size_t b = 0; b < p.batches.size(); ++b) {
      const BatchTimeline t = model.predict(p.batches[b], m, *p.reserved);
      if (a.batches.size() > 1) std::printf(" batch %zu:\n", b + 1);
      print_timeline(a.batches[b], m, t);
      each.push_back(t.makespan_ns);
      batches.push_back(timeline_json(t));
    }
    double total = 0;
    for (int b : p.program) total += each[b];
    std::printf("  %-22s program  %12.3f us\n", to_string(m), total / 1e3);
    totals->push_back(total);
    j["methods"][to_string(m)] = {{"program_ns", total}, {"batches", batches}};
  }
  return j;
}

// The batch apps with a period as periodic tasks (a run of the program per period, its
// predicted time as execution time): non-preemptive EDF schedulability per method.
// `left_out`: the batch apps without a period (not tasks of the test).
ordered_json check_edf(const std::vector<AppCfg>& apps, const std::vector<std::vector<double>>& totals,
                       ordered_json* left_out) {
  std::vector<std::size_t> periodic;
  for (std::size_t a = 0; a < apps.size(); ++a)
    if (const auto* b = std::get_if<BatchParams>(&apps[a].params); b && b->period_ns > 0) periodic.push_back(a);
  if (periodic.empty()) return nullptr;
  std::printf("non-preemptive EDF (Jeffay et al.) over the %zu batch apps with a period:\n", periodic.size());
  // A batch app without a period runs back to back: no task of the test, yet it takes the
  // interconnect from them (its verdicts said "schedulable" beside one, nothing else said).
  std::vector<std::string> unperiodic;
  for (const AppCfg& a : apps)
    if (const auto* b = std::get_if<BatchParams>(&a.params); b && b->period_ns <= 0) unperiodic.push_back(a.name);
  for (const std::string& n : unperiodic)
    std::printf("  (not in the test: batch app %s has no period and runs back to back beside them, which the "
                "verdicts do not hold against)\n", n.c_str());
  *left_out = unperiodic;
  ordered_json j = ordered_json::object();
  for (std::size_t k = 0; k < std::size(kMethods); ++k) {
    std::vector<PeriodicTask> tasks;
    for (std::size_t a : periodic) tasks.push_back({totals[a][k], std::get<BatchParams>(apps[a].params).period_ns});
    const EdfVerdict v = nonpreemptive_edf_test(tasks);
    std::printf("  edf %-22s %s  utilization %.4f%s%s\n", to_string(kMethods[k]),
                v.schedulable ? "schedulable" : "not-schedulable", v.utilization, v.reason.empty() ? "" : "  ",
                v.reason.c_str());
    j[to_string(kMethods[k])] = {{"schedulable", v.schedulable}, {"utilization", v.utilization},
                                 {"reason", v.reason}};
  }
  return j;
}

// Seed 002 §5: the batch run-time has the interconnect to itself. Other apps and endpoint
// devices of the config share it (a NIC beside a batch: 85 % over its prediction, unsaid).
const char* const kOtherTrafficEffect =
    "the predictor assumes the interconnect is the batch run-time's alone (seed 002 §5): their copies take "
    "link time from the batches, which run longer than predicted";

std::string other_traffic(const Config& cfg) {
  int apps = 0, devices = 0;
  for (const AppCfg& a : cfg.apps) apps += !std::holds_alternative<BatchParams>(a.params);
  for (const NodeCfg& n : cfg.platform.nodes) devices += n.is(NodeKind::Endpoint);
  if (apps + devices == 0) return "";
  return std::to_string(apps) + " other app(s) and " + std::to_string(devices) + " device(s) sharing the interconnect";
}

}  // namespace

int cmd_predict(const RunArgs& args) {
  Scenario s;
  try {
    s = load_scenario(args.config, args.overrides);
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  const Config& cfg = s.config;
  const BatchModel model = make_batch_model(s);
  const std::vector<BatchProgram> programs = batch_programs(s);
  std::vector<std::vector<double>> totals(cfg.apps.size());
  ordered_json out = {{"config", args.config}, {"apps", ordered_json::array()}};
  for (std::size_t a = 0; a < cfg.apps.size(); ++a)
    if (const auto* b = std::get_if<BatchParams>(&cfg.apps[a].params)) {
      out["apps"].push_back(predict_app(model, programs[a], cfg.apps[a].name, *b, &totals[a]));
      ordered_json left_out = ordered_json::array();
      for (const auto& [setting, effect] : {std::pair<std::string, const char*>{batch_submit_setting(s, *b), kBatchSubmitEffect},
                                            {batch_credit_setting(s, *b), kBatchCreditEffect},
                                            {other_traffic(cfg), kOtherTrafficEffect}}) {
        if (setting.empty()) continue;
        left_out.push_back(setting);
        std::printf("  not in these times: %s: %s\n", setting.c_str(), effect);
      }
      out["apps"].back()["left_out"] = left_out;
    }
  if (out["apps"].empty()) std::printf("%s has no batch app: nothing to predict\n", args.config.c_str());
  ordered_json edf_left_out = ordered_json::array();
  out["edf"] = check_edf(cfg.apps, totals, &edf_left_out);
  out["edf_left_out"] = edf_left_out;
  bool short_of_the_run = false;
  for (const auto& app : out["apps"]) short_of_the_run = short_of_the_run || !app["left_out"].empty();
  if (!out["edf"].is_null() && short_of_the_run)
    std::printf("  (these verdicts take the times above, which leave out what is listed: a set called schedulable "
                "may not be in the run)\n");
  if (args.out_dir.empty()) return kExitOk;
  return write_all_or_none(args.out_dir, {{"predict.json", out.dump(2) + "\n"}});
}

}  // namespace arbsim
