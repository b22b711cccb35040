// pcie-arbsim: entry point. The first argument names the subcommand; each subcommand has
// its own options (Boost.Program_options) and its own --help. Every error ends as one
// "error:" line on stderr with the exit code of apps/cli.h, never as an uncaught exception.
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <systemc>
#include <boost/program_options.hpp>
#include "apps/cli/cli.h"
#include "apps/cli/sweep.h"
#include "models/pcie/arbiters/catalogue.h"
#include "platforms/config/node_types.h"
#include "platforms/config/reader.h"
#include "apps/run/version.h"

namespace po = boost::program_options;
using namespace arbsim;

namespace {

const char* kUsage =
    "usage: pcie-arbsim COMMAND [options]   (pcie-arbsim COMMAND --help for its options)\n"
    "  run CONFIG       simulate CONFIG; writes DIR/results.json, run.json, config.effective.yaml, sim.log\n"
    "  validate CONFIG  check CONFIG and print the resolved config; exit 2 on any error\n"
    "  predict CONFIG   seed 002 batch latencies and EDF check of CONFIG's batch apps, without simulating\n"
    "  jobs CONFIG      seed 001's MIG job scheduling (docs/mig-scheduling.md); DIR/results.json, jobs.csv\n"
    "  sweep SPEC       run every point of SPEC (docs/sweeps.md) as local processes or a Slurm array; DIR/summary.csv\n"
    "  --version        the simulator's version and build type\n"
    "Exit codes: 0 ok, 1 model error, 2 bad input, 3 outputs could not be written. Config format: docs/config.md.\n";

// What a config can name, read from the catalogues themselves so --help cannot go stale:
// arbiter types (models/pcie/arbiters/catalogue.h) and endpoint node types with their keys
// (platforms/config/node_types.h, including types a linked-in library registered).
std::string catalogue_help() {
  std::string s = "Arbiter types (arbitration.type):\n";
  for (const ArbiterType* t : arbiter_catalogue())
    s += std::string("  ") + t->name + std::string(10 - std::min<std::size_t>(9, std::strlen(t->name)), ' ') +
         t->description + "\n";
  s += "Node types: root_complex, io_hub, switch, gpu (built in)";
  for (const std::string& n : endpoint_type_names()) {
    const EndpointType* t = find_endpoint_type(n);
    s += "\n  " + n + ": " + t->description + "\n    keys:";
    for (const EndpointKey& k : t->keys) s += " " + k.name;
  }
  return s + "\n";
}

struct Command {
  const char* usage;      // first line of its --help
  const char* positional; // CONFIG or SPEC
};

const std::map<std::string, Command> kCommands = {
    {"run", {"pcie-arbsim run CONFIG [options]: simulate CONFIG. DIR defaults to runs/<config name>.", "CONFIG"}},
    {"validate",
     {"pcie-arbsim validate CONFIG [options]: check CONFIG, and the run options given as `run` would (they are\n"
      "checked, not carried out: nothing is written), and print CONFIG resolved; exit 2 on error.",
      "CONFIG"}},
    {"predict",
     {"pcie-arbsim predict CONFIG [options]: predicted timelines of CONFIG's batch apps (seed 002) for each\n"
      "method, and the EDF check of those with a period; with --out, also DIR/predict.json.",
      "CONFIG"}},
    {"jobs",
     {"pcie-arbsim jobs CONFIG [options]: seed 001's job level: jobs placed on MIG instances by a scheduler, each at\n"
      "the PCIe share of its GPU's link (docs/mig-scheduling.md); with --out, DIR/results.json and jobs.csv.",
      "CONFIG"}},
    {"sweep",
     {"pcie-arbsim sweep SPEC [options]: run every point of SPEC (docs/sweeps.md), N at a time; DIR/summary.csv.\n"
      "Points already complete for this config and simulator version are skipped.",
      "SPEC"}},
};

void add_config_options(po::options_description& o) {
  o.add_options()("set,s", po::value<std::vector<std::string>>()->composing(),
                  "override a config key: dotted.key=value (repeatable)");
}

void add_run_options(po::options_description& o) {
  o.add_options()
      ("vcd", po::value<std::string>(), "write a VCD waveform to FILE")
      ("vcd-window", po::value<std::string>(), "VCD of T0:T1 of simulated time only (e.g. 100us:120us; T0: to the end)")
      ("vcd-filter", po::value<std::string>(),
       "VCD of the signals matching GLOB[,GLOB...] only, by dotted name (e.g. 'sw0.*,gpu*.state')")
      ("trace", po::value<std::string>(),
       "write a transaction trace (Chrome/Perfetto JSON) to FILE, and why heads were not granted to results.json "
       "(docs/observability.md)")
      ("trace-window", po::value<std::string>(), "trace only T0:T1 of simulated time (e.g. 100us:120us; T0: to the end)")
      ("trace-filter", po::value<std::string>(), "trace only the link directions matching GLOB (e.g. 'sw0->*')")
      ("detect", "detect head-of-line blocking, priority inversion and starvation; episodes in results.json "
                 "'detectors' and the log (docs/observability.md; --trace-window/--trace-filter bound it too)")
      ("starvation-bound", po::value<std::string>(), "with --detect: a head waiting longer is starved (default 10us)")
      ("progress", "print simulated time, share done and ETA on stderr while it runs (the default on a terminal)")
      ("sim-time", po::value<std::string>(), "stop after T simulated (e.g. 300us, 0.3s; plain number = ns)")
      ("seed", po::value<long long>(), "random seed (sim.seed)")
      ("log-level", po::value<std::string>(), "trace|debug|info|warn|error|off (sim.log_level)")
      ("log", po::value<std::string>(),
       "MODULE=LEVEL[,...]: the model logs of a module and those below it at their own level (e.g. sw0=trace; "
       "docs/observability.md)")
      ("arbiter-impl", po::value<std::string>(),
       "cpp|rtl: arbiters in C++ or as co-simulated Verilog (platform.arbiter_impl, docs/cosim.md)")
      ("fidelity", po::value<std::string>(),
       "packet|flow: TLP-level, or fluid flows at the rates each egress's arbitration gives them (sim.fidelity, docs/architecture.md)");
}

po::options_description options_of(const std::string& cmd) {
  po::options_description o(cmd + " options");
  o.add_options()("help,h", "this help");
  if (cmd == "sweep") {
    o.add_options()
        ("jobs,j", po::value<int>(), "points at a time, >= 1 (default: one per core; slurm: array tasks at a time)")
        ("out,o", po::value<std::string>(), "output directory (default: runs/<spec name>)")
        ("timeout", po::value<std::string>(), "wall-time limit per point (e.g. 600s, 10min; default 1h)")
        ("mem-limit", po::value<std::string>(), "address-space limit per point (e.g. 4GiB; default: RAM / jobs)")
        ("dry-run,n", "list every point (complete or to run) with its overrides and command; run and write nothing")
        ("backend", po::value<std::string>(), "local|slurm: local processes (default) or a Slurm job array")
        ("partition", po::value<std::string>(), "slurm: the partition to submit to")
        ("account", po::value<std::string>(), "slurm: the account to charge")
        ("points-per-task", po::value<int>(), "slurm: points run one after the other by each array task (default 1)")
        ("retries", po::value<int>(), "slurm: times a point whose task was lost is submitted again (default 1)")
        ("poll", po::value<double>(), "slurm: seconds between squeue polls (default 10)")
        ("sbatch-arg", po::value<std::vector<std::string>>()->composing(), "slurm: an sbatch option, as is (repeatable)");
    return o;
  }
  add_config_options(o);
  if (cmd == "run" || cmd == "predict" || cmd == "jobs") o.add_options()("out,o", po::value<std::string>(), "output directory");
  if (cmd == "run" || cmd == "validate") add_run_options(o);
  return o;
}

std::string joined(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

template <class T>
void take(const po::variables_map& vm, const char* key, T* into) {
  if (vm.count(key)) *into = vm[key].as<T>();
}

RunArgs run_args(const po::variables_map& vm, int argc, char** argv) {
  RunArgs a;
  a.config = vm["positional"].as<std::string>();
  a.command_line = joined(argc, argv);
  take(vm, "set", &a.overrides);
  take(vm, "out", &a.out_dir);
  take(vm, "vcd", &a.vcd);
  take(vm, "vcd-window", &a.vcd_window);
  take(vm, "vcd-filter", &a.vcd_filter);
  take(vm, "trace", &a.trace);
  take(vm, "trace-window", &a.trace_window);
  take(vm, "trace-filter", &a.trace_filter);
  a.detect = vm.count("detect") > 0;
  take(vm, "starvation-bound", &a.starvation_bound);
  a.progress = vm.count("progress") > 0;
  take(vm, "sim-time", &a.sim_time);
  if (vm.count("seed")) a.seed = vm["seed"].as<long long>();
  take(vm, "log-level", &a.log_level);
  take(vm, "log", &a.log_modules);
  take(vm, "arbiter-impl", &a.arbiter_impl);
  take(vm, "fidelity", &a.fidelity);
  return a;
}

// The backend and its settings; returns what is wrong with them ("" when nothing is).
std::string slurm_args(const po::variables_map& vm, SweepArgs& sw) {
  take(vm, "backend", &sw.backend);
  if (sw.backend != "local" && sw.backend != "slurm") return "--backend " + sw.backend + ": expected local or slurm";
  take(vm, "partition", &sw.partition);
  take(vm, "account", &sw.account);
  take(vm, "points-per-task", &sw.points_per_task);
  take(vm, "retries", &sw.retries);
  take(vm, "poll", &sw.poll_s);
  take(vm, "sbatch-arg", &sw.sbatch_args);
  if (vm.count("points-per-task") && sw.points_per_task < 1) return "--points-per-task: must be >= 1";
  if (vm.count("retries") && sw.retries < 0) return "--retries: must be >= 0";
  if (vm.count("poll") && !(sw.poll_s > 0 && sw.poll_s <= 3600)) return "--poll: must be in (0, 3600] seconds";
  const bool slurm_only = vm.count("partition") || vm.count("account") || vm.count("points-per-task") ||
                          vm.count("retries") || vm.count("poll") || vm.count("sbatch-arg");
  if (slurm_only && sw.backend != "slurm") return "--partition, --account, --points-per-task, --retries, --poll and "
                                                  "--sbatch-arg need --backend slurm";
  return "";
}

// An option given an empty value (--fidelity "", -s "") was taken as not given: refused
// instead, as any other bad value is. Returns the message ("" when there is none).
std::string empty_value(const po::variables_map& vm, const po::options_description& options) {
  for (const auto& [key, v] : vm) {
    const po::option_description* o = options.find_nothrow(key, false);
    if (!o || o->semantic()->max_tokens() == 0) continue;  // a switch such as --detect
    const std::string flag = key == "set" ? "-s" : "--" + key;
    if (const auto* s = boost::any_cast<std::string>(&v.value()); s && s->empty()) return flag + ": an empty value";
    if (const auto* l = boost::any_cast<std::vector<std::string>>(&v.value()))
      for (const std::string& e : *l)
        if (e.empty()) return flag + ": an empty value";
  }
  return "";
}

int usage_error(const std::string& msg) {
  std::cerr << "error: " << one_line(msg) << " (pcie-arbsim --help)\n";
  return kExitBadInput;
}

int run_command(const std::string& cmd, int argc, char** argv) {
  const Command& c = kCommands.at(cmd);
  const po::options_description visible = options_of(cmd);
  po::options_description all = visible;
  all.add_options()("positional", po::value<std::string>());
  po::positional_options_description pos;
  pos.add("positional", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(argc - 1, argv + 1).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (const std::string empty = empty_value(vm, all); !empty.empty()) return usage_error(empty);
  if (vm.count("help")) {
    std::cout << c.usage << "\n\n" << visible << "\n";
    return kExitOk;
  }
  if (!vm.count("positional")) return usage_error(cmd + " needs a " + c.positional + " file");
  if (cmd == "sweep") {
    SweepArgs sw;
    sw.spec = vm["positional"].as<std::string>();
    take(vm, "out", &sw.out_dir);
    take(vm, "timeout", &sw.timeout);
    take(vm, "mem-limit", &sw.mem_limit);
    sw.dry_run = vm.count("dry-run") > 0;
    if (vm.count("jobs")) {
      sw.jobs = vm["jobs"].as<int>();
      if (sw.jobs < 1) return usage_error("--jobs " + std::to_string(sw.jobs) + ": must be >= 1");
    }
    if (const std::string bad = slurm_args(vm, sw); !bad.empty()) return usage_error(bad);
    return cmd_sweep(sw);
  }
  const RunArgs a = run_args(vm, argc, argv);
  if (cmd == "run") return cmd_run(a);
  if (cmd == "validate") return cmd_validate(a);
  if (cmd == "jobs") return cmd_jobs(a);
  return cmd_predict(a);
}

int parse_and_run(int argc, char** argv) {
  const std::string first = argc > 1 ? argv[1] : "";
  if (first == "--version" || first == "-V") {
    std::cout << "pcie-arbsim " << version() << " (" << build_type() << ")\n";
    return kExitOk;
  }
  if (first == "--help" || first == "-h") {
    std::cout << kUsage << catalogue_help();
    return kExitOk;
  }
  if (first.empty()) {
    std::cerr << kUsage;
    return kExitBadInput;
  }
  if (!kCommands.count(first)) return usage_error("unknown command '" + first + "'");
  return run_command(first, argc, argv);
}

}  // namespace

// SystemC calls sc_main from sc_elab_and_sim; our own main silences its banner first so
// stdout carries only what the tool prints. A write beyond the file-size limit must fail
// as a write error the outputs' checks report, not kill the process (SIGXFSZ).
int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  std::signal(SIGXFSZ, SIG_IGN);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char** argv) {
  try {
    return parse_and_run(argc, argv);
  } catch (const po::error& e) {
    return usage_error(e.what());
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "error: " << one_line(e.what()) << "\n";
    return kExitBadInput;
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "error: " << one_line(e.what()) << "\n";
    return kExitModelError;
  }
}
