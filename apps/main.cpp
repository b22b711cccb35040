// pcie-arbsim: entry point. Parses the command line with Boost.Program_options and hands
// over to the subcommand (apps/cli_run.cpp).
#include <cstdlib>
#include <iostream>
#include <systemc>
#include <boost/program_options.hpp>
#include "apps/cli.h"
#include "apps/sweep.h"

namespace po = boost::program_options;
using namespace arbsim;

namespace {

const char* kUsage =
    "usage: pcie-arbsim run CONFIG [-s key=value ...] [--out DIR] [--vcd FILE] [--sim-time T]\n"
    "                          [--seed N] [--log-level L] [--arbiter-impl cpp|rtl] [--fidelity packet|flow]\n"
    "       pcie-arbsim validate CONFIG [-s key=value ...] [--arbiter-impl cpp|rtl]\n"
    "       pcie-arbsim sweep SPEC [-j N] [--out DIR]\n"
    "       pcie-arbsim predict CONFIG [-s key=value ...] [--out DIR]\n"
    "       pcie-arbsim --help\n\n"
    "run       simulate CONFIG; writes DIR/results.json, DIR/run.json, DIR/config.effective.yaml,\n"
    "          DIR/sim.log (and the VCD with --vcd); prints a summary. DIR defaults to runs/<name>.\n"
    "validate  check CONFIG and print the resolved config; exit 2 on any error.\n"
    "predict   predicted timelines of CONFIG's batch apps (seed 002), for each method, without simulating,\n"
    "          and the EDF check of those with a period; with --out, also DIR/predict.json.\n"
    "sweep     run every run of SPEC (docs/sweeps.md) as parallel processes; DIR/summary.csv.\n"
    "Exit codes: 0 ok, 1 model error, 2 bad input. Config format: docs/config.md.\n";

po::options_description options() {
  po::options_description o("options");
  o.add_options()
      ("help,h", "this help")
      ("set,s", po::value<std::vector<std::string>>()->composing(), "override a config key: dotted.key=value")
      ("out,o", po::value<std::string>(), "output directory")
      ("vcd", po::value<std::string>(), "write a VCD waveform to FILE")
      ("sim-time", po::value<std::string>(), "stop after T simulated (e.g. 300us, 0.3s; plain number = ns)")
      ("seed", po::value<long long>(), "random seed (sim.seed)")
      ("log-level", po::value<std::string>(), "trace|debug|info|warn|error|off (sim.log_level)")
      ("arbiter-impl", po::value<std::string>(),
       "cpp|rtl: arbiters in C++ or as co-simulated Verilog (platform.arbiter_impl, docs/cosim.md)")
      ("fidelity", po::value<std::string>(),
       "packet|flow: TLP-level, or fluid flows with max-min fair rates (sim.fidelity, docs/architecture.md)")
      ("jobs,j", po::value<int>(), "sweep: runs at a time (default: all cores)");
  return o;
}

int parse_and_run(int argc, char** argv) {
  po::options_description all = options();
  all.add_options()("command", po::value<std::string>())("config", po::value<std::string>());
  po::positional_options_description pos;
  pos.add("command", 1).add("config", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help") || !vm.count("command")) {
    std::cout << kUsage << "\n" << options() << "\n";
    return vm.count("help") ? kExitOk : kExitBadInput;
  }
  RunArgs a;
  const std::string cmd = vm["command"].as<std::string>();
  if (!vm.count("config")) {
    std::cerr << "error: " << cmd << " needs a CONFIG file\n" << kUsage;
    return kExitBadInput;
  }
  a.config = vm["config"].as<std::string>();
  if (vm.count("set")) a.overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("out")) a.out_dir = vm["out"].as<std::string>();
  if (vm.count("vcd")) a.vcd = vm["vcd"].as<std::string>();
  if (vm.count("sim-time")) a.sim_time = vm["sim-time"].as<std::string>();
  if (vm.count("seed")) a.seed = vm["seed"].as<long long>();
  if (vm.count("log-level")) a.log_level = vm["log-level"].as<std::string>();
  if (vm.count("arbiter-impl")) a.arbiter_impl = vm["arbiter-impl"].as<std::string>();
  if (vm.count("fidelity")) a.fidelity = vm["fidelity"].as<std::string>();
  if (cmd == "sweep") {
    SweepArgs sw{a.config, a.out_dir, vm.count("jobs") ? vm["jobs"].as<int>() : 0};
    return cmd_sweep(sw);
  }
  if (cmd == "run") return cmd_run(a);
  if (cmd == "validate") return cmd_validate(a);
  if (cmd == "predict") return cmd_predict(a);
  std::cerr << "error: unknown command '" << cmd << "'\n" << kUsage;
  return kExitBadInput;
}

}  // namespace

// SystemC calls sc_main from sc_elab_and_sim; our own main silences its banner first so
// stdout carries only what the tool prints.
int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char** argv) {
  try {
    return parse_and_run(argc, argv);
  } catch (const po::error& e) {
    std::cerr << "error: " << e.what() << "\n" << kUsage;
    return kExitBadInput;
  }
}
