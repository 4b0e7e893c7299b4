// What the in-process server tests share: the fake saxpy document's path and text, and small
// readers of requests and responses.
#pragma once

#include <string>
#include <vector>

#include "TestClient.h"

namespace ks::test {

inline const std::string kPath = "/tmp/kernelscope-test/src/saxpy.rs";
inline const std::string& kSaxpy = kFakeSaxpy;

inline json textDocument(const std::string& uri) { return {{"textDocument", {{"uri", uri}}}}; }

inline int errorCode(const json& response) { return response.at("error").at("code").get<int>(); }

/// The states kernelscope/status reported for `revision`, in order.
inline std::vector<std::string> states(const std::vector<json>& statuses, int revision) {
  std::vector<std::string> out;
  for (const auto& s : statuses)
    if (s["revision"] == revision) out.push_back(s["state"].get<std::string>());
  return out;
}

}  // namespace ks::test
