// `kernelscope report`: one self-contained HTML file a reviewer can open anywhere (a CI
// artifact, no server, no network): the source and each stage side by side with linked
// highlighting both ways, the kernels' resources, the optimizer's remarks and diagnostics.
#pragma once

#include <string>
#include <string_view>

namespace ks {

/// The page for `dataJson`: `{"explain": <explain --json's object>, "source": TEXT,
/// "stages": {STAGE: {"title": ..., "text": ...}}, "order": [STAGE, ...]}`, embedded in the
/// page as it is.
std::string reportHtml(std::string_view dataJson);

}  // namespace ks
