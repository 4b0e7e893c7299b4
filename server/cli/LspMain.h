// Entry point of the language server, called by main.cpp for `kernelscope` with no
// subcommand and for `kernelscope lsp [options]`.
#pragma once

namespace ks {

/// Runs the LSP server until `exit`. `args` are the arguments after `lsp` (for example
/// `--port 9257`, `--lit-test`). Returns the process exit status.
int lspMain(int argc, char** argv);

}  // namespace ks
