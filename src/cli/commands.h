#pragma once

#include <CLI/CLI.hpp>

namespace saturate::cli {

// Each command registers its subcommand and options on the app; the callback runs it.
// Callbacks throw saturate::Error on bad input; main turns that into one line and exit code 1.
void register_models_command(CLI::App& app);
void register_ops_command(CLI::App& app);
void register_show_command(CLI::App& app);
void register_run_command(CLI::App& app);
void register_optimize_command(CLI::App& app);
void register_export_command(CLI::App& app);
void register_extract_command(CLI::App& app);
void register_pm_command(CLI::App& app);
void register_bench_command(CLI::App& app);
void register_rules_command(CLI::App& app);

}  // namespace saturate::cli
