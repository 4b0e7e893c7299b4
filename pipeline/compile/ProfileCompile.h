// The compile driver for the rust-cuda and cuda-oxide profiles (internal to pipeline/).
//
// Runs the profile's cargo command (Profile.h) on the file's package, then hands the
// backend's PTX to the shared back end (PtxBackend.h). When the profile's tools are
// missing, every stage says what is missing and how to get it.
#pragma once

#include "Compile.h"
#include "Profile.h"

namespace ks {

CompileResult compileWithProfile(const Toolchain&, const CompileInput&, const CompileOptions&,
                                 ToolchainProfile, const CancellationToken&);

}  // namespace ks
