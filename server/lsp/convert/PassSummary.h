// A pass that changed a kernel in the protocol's shape (protocol/Extensions.h): the one
// conversion that `kernelscope/passes` and `kernelscope passes --json` share.
#pragma once

#include "Extensions.h"
#include "Passes.h"

namespace ks {

lsp::PassInfo passInfoOf(const PassChange&);

}  // namespace ks
