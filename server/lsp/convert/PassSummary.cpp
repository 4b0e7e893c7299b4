// See PassSummary.h.
#include "PassSummary.h"

namespace ks {

lsp::PassInfo passInfoOf(const PassChange& c) {
  return {std::string(stageName(c.stage)), c.pass, c.unit, static_cast<int>(c.before),
          static_cast<int>(c.after),       c.diff};
}

}  // namespace ks
