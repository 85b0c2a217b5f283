#pragma once

// --cost and --cost-cache on a command: which cost model (driver/cost_model_factory.h) it
// prices operators with.
#include <CLI/CLI.hpp>

#include "driver/cost_model_factory.h"

namespace saturate::cli {

// Adds --cost and --cost-cache to a command.
void add_cost_model_options(CLI::App* command, driver::CostModelOptions& options);

}  // namespace saturate::cli
