// The command-line front ends that share the pipeline with the language server.
#pragma once

namespace ks {

/// `kernelscope explain FILE [--line N] [--stages ...] [--arch sm_XX] [--opt N] [--json]`
int explainMain(int argc, char** argv);
/// `kernelscope doctor`: which tool each stage uses, and what is missing with the fix.
int doctorMain(int argc, char** argv);
/// `kernelscope setup`: builds the nvptx64 `core` sysroot into the cache if needed.
int setupMain(int argc, char** argv);

}  // namespace ks
