#include <google/protobuf/stubs/common.h>

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "cli/commands.h"
#include "cli/verification.h"
#include "support/error.h"
#include "support/strings.h"

int main(int argc, char** argv) {
  CLI::App app{
      "saturate: a tensor-graph superoptimizer (equality saturation over a tensor IR).\n"
      "MODEL is a bundled model name (see `saturate models`), a graph file in text form (.sxp) "
      "or an ONNX model (.onnx)."};
  app.set_version_flag("--version", "saturate 0.1.0");
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 success; 1 an error (bad input, bad options, a file that cannot be read or "
      "written); 2 an internal error (a bug); 3 verification failed (--verify found outputs "
      "that differ: only the --json report is written, unless --keep-unverified).");
  // One line per error, like every other error the tool reports.
  app.failure_message([](const CLI::App*, const CLI::Error& error) {
    return "saturate: error: " + std::string(error.what()) + " (see --help)\n";
  });
  saturate::cli::register_models_command(app);
  saturate::cli::register_ops_command(app);
  saturate::cli::register_show_command(app);
  saturate::cli::register_run_command(app);
  saturate::cli::register_optimize_command(app);
  saturate::cli::register_export_command(app);
  saturate::cli::register_extract_command(app);
  saturate::cli::register_pm_command(app);
  saturate::cli::register_rules_command(app);
  saturate::cli::register_bench_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  } catch (const saturate::cli::VerificationFailed& error) {
    std::fprintf(stderr, "saturate: error: %s\n", saturate::printable(error.what()).c_str());
    return saturate::cli::kExitVerificationFailed;
  } catch (const saturate::Error& error) {
    // Messages quote names from the user's files: one line, whatever those hold.
    std::fprintf(stderr, "saturate: error: %s\n", saturate::printable(error.what()).c_str());
    return 1;
  } catch (const google::protobuf::FatalException& error) {
    // A CHECK failure inside libprotobuf that no ONNX step turned into an Error: the model (or
    // what it was being turned into) is past what protobuf handles, not a bug here. One line.
    std::fprintf(stderr, "saturate: error: protobuf: %s\n",
                 saturate::printable(error.what()).c_str());
    return 1;
  } catch (const std::bad_alloc&) {
    // Sizes the input states (a pinned shape, a weight) past what this machine can hold: the
    // user's input, not a bug.
    std::fprintf(stderr,
                 "saturate: error: out of memory: the model's tensors (at the sizes given) do not "
                 "fit in this machine's memory\n");
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "saturate: internal error: %s\n",
                 saturate::printable(error.what()).c_str());
    return 2;
  }
  return 0;
}
