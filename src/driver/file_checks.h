#pragma once

// Checks made before any work starts, so that a command that will fail on its files fails at
// once, and one that writes never destroys what it reads: every output must differ from every
// input (and from an ONNX input's external data), and its folder must exist and be writable.
#include <string>
#include <vector>

namespace saturate::driver {

// An input file that must be readable: throws saturate::Error, one line, when it is missing,
// a directory, unreadable or empty.
void check_input_file(const std::string& path);

// Whether a command's MODEL argument names a file (and is not a bundled model's name).
bool names_a_file(const std::string& spec);

// An output and the option that names it (for the message).
struct OutputFile {
  std::string option;  // "-o", "--json", ...
  std::string path;    // empty: not asked for, skipped
};

// Throws saturate::Error when an output is an input or one of an ONNX input's data files (those
// it names, and INPUT.onnx.data), when two outputs are one file, or when an output's folder is
// missing or not writable. Paths are compared as files (std::filesystem::equivalent for existing
// ones, weakly_canonical otherwise), so `./in.onnx` and a symlink to it are the input too.
void check_outputs(const std::vector<std::string>& inputs, const std::vector<OutputFile>& outputs);

// An ONNX output (a path ending in .onnx) needs the weights of an ONNX input: throws
// saturate::Error naming both when `spec` (the MODEL argument) is not one.
void check_onnx_output(const std::string& output, bool onnx_input, const std::string& spec);

}  // namespace saturate::driver
