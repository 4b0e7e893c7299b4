#include "ProfileBaseline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <system_error>

#include "EditScript.h"
#include "Files.h"
#include "StableHash.h"
#include "TextUtil.h"

namespace ks::gpu {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kSnapshotFormat = 1;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  for (std::string_view l : splitLines(text)) out.emplace_back(text::trim(l));
  return out;
}

}  // namespace

ProfileSnapshot snapshotOf(const KernelLineProfile& lp, const std::string& file,
                           const std::string& source, const std::string& spec) {
  ProfileSnapshot s{file, lp.kernel, spec, source, lp.totalSamples, {}};
  for (const auto& l : lp.lines)
    if (l.line && l.file == file)
      s.lines.push_back({l.line, l.stallSamples, lp.share(l), l.instructions, l.l2Sectors});
  return s;
}

std::string encodeSnapshot(const ProfileSnapshot& s) {
  json lines = json::array();
  for (const auto& l : s.lines)
    lines.push_back({{"line", l.line},
                     {"stallSamples", l.stallSamples},
                     {"share", l.share},
                     {"instructions", l.instructions},
                     {"l2Sectors", l.l2Sectors}});
  return json{{"kernelscopeProfile", kSnapshotFormat},
              {"file", s.file},
              {"kernel", s.kernel},
              {"spec", s.spec},
              {"source", s.source},
              {"totalSamples", s.totalSamples},
              {"lines", lines}}
      .dump();
}

std::string decodeSnapshot(std::string_view text, ProfileSnapshot& out) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_object() && doc.contains("snapshot")) doc = doc["snapshot"];
  if (!doc.is_object() || doc.value("kernelscopeProfile", 0) != kSnapshotFormat)
    return "not a kept profile (kernelscope profile --json's output, or one in the cache)";
  try {
    out.file = doc.at("file").get<std::string>();
    out.kernel = doc.at("kernel").get<std::string>();
    out.spec = doc.at("spec").get<std::string>();
    out.source = doc.at("source").get<std::string>();
    out.totalSamples = doc.at("totalSamples").get<double>();
    out.lines.clear();
    for (const auto& l : doc.at("lines"))
      out.lines.push_back({l.at("line").get<uint32_t>(), l.at("stallSamples").get<double>(),
                           l.at("share").get<double>(), l.at("instructions").get<size_t>(),
                           l.at("l2Sectors").get<double>()});
  } catch (const json::exception&) {
    return "a kept profile with a field missing or of the wrong type";
  }
  return "";
}

std::optional<double> LineDelta::stallChange() const {
  if (!beforeLine || before.stallSamples <= 0) return std::nullopt;
  return after.stallSamples / before.stallSamples - 1;
}

std::string LineDelta::hint(const std::string& since) const {
  if (!beforeLine) return "new since " + since;
  auto change = stallChange();
  if (!change) return after.stallSamples > 0 ? "stalls new since " + since : "";
  long pct = std::lround(*change * 100);
  if (pct == 0) return "stalls unchanged since " + since;
  // U+2212 MINUS SIGN, as the figures of a table write it.
  return (pct < 0 ? "\u2212" : "+") + std::to_string(std::labs(pct)) + "% stalls since " + since;
}

std::vector<LineDelta> compareProfiles(const ProfileSnapshot& before,
                                       const ProfileSnapshot& after) {
  // Lines compared trimmed, as a diff that ignores indentation matches them.
  const EditScript script = shortestEdit(lines(before.source), lines(after.source), 4000);
  std::map<uint32_t, uint32_t> newToOld;  // 1-based
  for (const Edit& e : script.edits)
    if (e.op == EditOp::Equal) newToOld[uint32_t(e.b + 1)] = uint32_t(e.a + 1);
  std::map<uint32_t, const ProfileSnapshot::Line*> was, now;
  for (const auto& l : before.lines) was[l.line] = &l;
  for (const auto& l : after.lines) now[l.line] = &l;

  std::vector<LineDelta> out;
  std::map<uint32_t, bool> matchedOld;
  std::vector<uint32_t> newLines;
  for (const auto& [n, l] : now) newLines.push_back(n);
  for (const auto& [n, o] : newToOld)
    if (was.count(o) && !now.count(n)) newLines.push_back(n);  // counters gone from the line
  std::sort(newLines.begin(), newLines.end());
  for (uint32_t n : newLines) {
    LineDelta d;
    d.line = n;
    if (auto it = now.find(n); it != now.end()) d.after = *it->second;
    d.after.line = n;
    if (auto m = newToOld.find(n); m != newToOld.end()) {
      d.beforeLine = m->second;
      if (auto it = was.find(m->second); it != was.end()) d.before = *it->second;
      d.before.line = m->second;
      matchedOld[m->second] = true;
    }
    out.push_back(d);
  }
  for (const auto& [o, l] : was)
    if (!matchedOld.count(o)) {  // a line the edit removed or rewrote
      LineDelta d;
      d.beforeLine = o;
      d.before = *l;
      out.push_back(d);
    }
  return out;
}

fs::path keptProfilePath(const fs::path& cacheDir, const ProfileSnapshot& s) {
  return cacheDir / "profiles" / (stableDigest({s.file, s.kernel, s.spec}) + ".json");
}

std::string keepProfile(const fs::path& cacheDir, const ProfileSnapshot& s) {
  std::error_code ec;
  const fs::path path = keptProfilePath(cacheDir, s);
  fs::create_directories(path.parent_path(), ec);
  if (ec) return "cannot create " + path.parent_path().string() + ": " + ec.message();
  if (std::string why = writeFileAtomically(path, encodeSnapshot(s)); !why.empty()) return why;
  // Bounded: the least recently written go first.
  std::vector<std::pair<fs::file_time_type, fs::path>> kept;
  for (const auto& e : fs::directory_iterator(path.parent_path(), ec))
    if (e.path().extension() == ".json") kept.emplace_back(e.last_write_time(ec), e.path());
  if (kept.size() > kMaxKeptProfiles) {
    std::sort(kept.begin(), kept.end());
    for (size_t i = 0; i + kMaxKeptProfiles < kept.size(); ++i) fs::remove(kept[i].second, ec);
  }
  return "";
}

}  // namespace ks::gpu
