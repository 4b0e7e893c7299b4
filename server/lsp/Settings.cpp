// Settings: the editor's JSON and kernelscope.toml decoded into checked values, once; the
// Settings their layers make.
#include "Settings.h"

#include <cctype>

#include <algorithm>

#include <toml++/toml.h>

#include "KernelLaunch.h"
#include "OptionDecoding.h"
#include "Trust.h"

namespace ks::server {
namespace {

// A checked value into its Settings field, whatever the field's type.
void store(std::string& field, const OptionValue& v) { field = std::get<std::string>(v); }
void store(bool& field, const OptionValue& v) { field = std::get<bool>(v); }
void store(int& field, const OptionValue& v) { field = static_cast<int>(std::get<long long>(v)); }
void store(size_t& field, const OptionValue& v) {
  field = static_cast<size_t>(std::get<long long>(v));
}
void store(std::chrono::milliseconds& field, const OptionValue& v) {
  field = std::chrono::milliseconds(std::get<long long>(v));
}
void store(ToolchainProfile& field, const OptionValue& v) {
  field = *profileFromName(std::get<std::string>(v));  // checked by the table
}
void store(std::vector<std::string>& field, const OptionValue& v) {
  field = std::get<std::vector<std::string>>(v);
}
void store(std::vector<Stage>& field, const OptionValue& v) {
  field = std::get<std::vector<Stage>>(v);
}
template <class T>
void store(std::optional<T>& field, const OptionValue& v) {
  T value{};
  store(value, v);
  field = std::move(value);
}

/// Where a setting of the options table is kept in Settings.
struct SettingField {
  std::string_view setting;
  void (*set)(Settings&, const OptionValue&);
};
template <auto member>
constexpr SettingField field(std::string_view setting) {
  return {setting, [](Settings& s, const OptionValue& v) { store(s.*member, v); }};
}
/// A setting that is a compile option, kept in Settings::compile.
template <auto member>
constexpr SettingField compileField(std::string_view setting) {
  return {setting, [](Settings& s, const OptionValue& v) { store(s.compile.*member, v); }};
}
constexpr SettingField kFields[] = {
    compileField<&CompileOptions::arch>("arch"),
    compileField<&CompileOptions::optLevel>("optLevel"),
    compileField<&CompileOptions::profile>("toolchainProfile"),
    compileField<&CompileOptions::stages>("stages"),
    field<&Settings::hoverStages>("hoverStages"),
    field<&Settings::rustc>("rustc"),
    compileField<&CompileOptions::extraRustcFlags>("extraRustcFlags"),
    field<&Settings::debounce>("debounceMs"),
    compileField<&CompileOptions::remarks>("remarks"),
    field<&Settings::compileCacheMB>("compileCacheMB"),
    compileField<&CompileOptions::workspaceTrusted>("workspaceTrusted"),
    field<&Settings::gpuRunner>("gpuRunner"),
    field<&Settings::ncu>("ncu"),
};

/// One setting's JSON value checked by the options table (and gpuRunner's words split as the
/// GPU runner splits them: gpu/, which the table below the server cannot reach). nullopt
/// for a key that is no setting, or a bad value (appended to `problems`).
std::optional<OptionValue> decodeSetting(const std::string& key, const nlohmann::json& value,
                                         std::vector<std::string>& problems) {
  const OptionSpec* option = optionBySetting(key);
  if (!option) return std::nullopt;  // unknown keys are ignored (other clients' settings)
  DecodedOption decoded = decodeOption(*option, key, value);
  std::vector<std::string> argv;
  if (decoded.value && key == "gpuRunner")
    if (std::string why = gpu::splitRunner(std::get<std::string>(*decoded.value), argv);
        !why.empty())
      decoded = {std::nullopt, "gpuRunner: " + why};
  if (!decoded.value) problems.push_back(std::move(decoded.problem));
  return std::move(decoded.value);
}

}  // namespace

std::optional<SettingChanges> decodeEditorSettings(const nlohmann::json& input,
                                                   std::vector<std::string>& problems) {
  const nlohmann::json* values = &input;
  if (values->is_object() && values->contains("kernelscope")) values = &(*values)["kernelscope"];
  if (!values->is_object()) return std::nullopt;
  SettingChanges changes;
  for (const auto& [key, value] : values->items()) {
    if (!optionBySetting(key)) continue;
    // null (or "") takes a key back from the editor: kernelscope.toml's value, else the default.
    if (value.is_null() || value == "")
      changes[key] = std::nullopt;
    else if (auto checked = decodeSetting(key, value, problems))
      changes[key] = std::move(*checked);
  }
  return changes;
}

Settings settingsFrom(std::initializer_list<const SettingValues*> layers) {
  Settings s;
  for (const SettingValues* layer : layers)
    for (const SettingField& f : kFields)
      if (auto it = layer->find(f.setting); it != layer->end()) f.set(s, it->second);
  return s;
}

namespace {

enum class Editor { VsCode, Neovim, Emacs, Vim, Helix, Other };

/// The editor of initialize's clientInfo.name, whose users set kernelscope's settings in its
/// own way.
Editor editorNamed(std::string_view clientName) {
  std::string name;
  for (char c : clientName) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name.find("visual studio code") != name.npos || name.find("code-server") != name.npos ||
      name.find("vscode") != name.npos || name.find("vscodium") != name.npos)
    return Editor::VsCode;
  if (name.find("neovim") != name.npos || name == "nvim") return Editor::Neovim;
  if (name.find("eglot") != name.npos || name.find("emacs") != name.npos) return Editor::Emacs;
  if (name.find("ale") == 0 || name == "vim") return Editor::Vim;
  if (name.find("helix") != name.npos) return Editor::Helix;
  return Editor::Other;
}

}  // namespace

std::string trustHintFor(std::string_view clientName) {
  const std::string untrusted = "the workspace is not trusted";
  switch (editorNamed(clientName)) {
    case Editor::VsCode:
      return untrusted + " (trust it: Workspaces: Manage Workspace Trust)";
    case Editor::Neovim:
      return untrusted +
             " (trust it: require('kernelscope').setup{ settings = { "
             "workspaceTrusted = true } })";
    case Editor::Emacs:
      return untrusted +
             " (trust it: (setq kernelscope-initialization-options "
             "'(:workspaceTrusted t)))";
    case Editor::Vim:
      return untrusted +
             " (trust it: let g:ale_rust_kernelscope_config = "
             "{'workspaceTrusted': v:true})";
    case Editor::Helix:
      return untrusted +
             " (trust it: config = { workspaceTrusted = true } for kernelscope in "
             "languages.toml)";
    case Editor::Other:
      break;
  }
  return kTrustHint;
}

std::string runnerHintFor(std::string_view clientName) {
  const std::string elsewhere = "to use a GPU elsewhere, set gpuRunner: ";
  switch (editorNamed(clientName)) {
    case Editor::VsCode:
      return "set kernelscope.gpu.runner to use a GPU elsewhere";
    case Editor::Neovim:
      return "to use a GPU elsewhere, set a runner: require('kernelscope').setup{ gpu = { runner = "
             "'ssh gpu-box' } }";
    case Editor::Emacs:
      return elsewhere + "(setq kernelscope-initialization-options '(:gpuRunner \"ssh gpu-box\"))";
    case Editor::Vim:
      return elsewhere + "let g:ale_rust_kernelscope_config = {'gpuRunner': 'ssh gpu-box'}";
    case Editor::Helix:
      return elsewhere +
             "config = { gpuRunner = \"ssh gpu-box\" } for kernelscope in languages.toml";
    case Editor::Other:
      break;
  }
  return "set the gpuRunner setting to use a GPU elsewhere";
}

std::string inEditorTerms(std::string message, const std::string& hint) {
  const std::string_view generic = kTrustHint;
  for (size_t at = message.find(generic); at != std::string::npos;
       at = message.find(generic, at + hint.size()))
    message.replace(at, generic.size(), hint);
  return message;
}

std::vector<std::string> withholdUntrustedSettings(SettingValues& values, bool trusted) {
  std::vector<std::string> withheld;
  if (values.erase("workspaceTrusted"))
    withheld.push_back("workspaceTrusted (only the user can trust a workspace)");
  auto flags = values.find("extraRustcFlags");
  VettedFlags vetted;
  if (flags != values.end()) {
    vetted = vetWorkspaceRustcFlags(std::get<std::vector<std::string>>(flags->second));
    if (!vetted.refused.empty())
      withheld.push_back("extraRustcFlags " + joinFlags(vetted.refused) + " (" +
                         kResponseFileRefusal + ")");
    flags->second = trusted ? vetted.trusted : vetted.safe;
  }
  if (trusted) return withheld;
  for (const char* program : {"rustc", "gpuRunner", "ncu"})
    if (auto it = values.find(program); it != values.end()) {
      withheld.push_back(std::string(program) + " = " + optionValueText(it->second));
      values.erase(it);
    }
  if (auto it = values.find("toolchainProfile"); it != values.end())
    if (profileRunsCargo(*profileFromName(std::get<std::string>(it->second)))) {
      withheld.push_back("toolchainProfile = " + optionValueText(it->second) + " (it runs cargo)");
      values.erase(it);
    }
  if (!vetted.needTrust.empty())
    withheld.push_back("extraRustcFlags " + joinFlags(vetted.needTrust));
  return withheld;
}

namespace {

/// A TOML value as JSON: strings, integers, floats, booleans and arrays of them.
std::optional<nlohmann::json> jsonOf(const toml::node& node) {
  if (auto v = node.as_string()) return nlohmann::json(v->get());
  if (auto v = node.as_integer()) return nlohmann::json(v->get());
  if (auto v = node.as_floating_point()) return nlohmann::json(v->get());
  if (auto v = node.as_boolean()) return nlohmann::json(v->get());
  if (auto array = node.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const toml::node& element : *array) {
      auto value = jsonOf(element);
      if (!value) return std::nullopt;
      out.push_back(std::move(*value));
    }
    return out;
  }
  return std::nullopt;  // tables, dates and times
}

/// A TOML table as JSON, its tables inside it too; values of other types are left out (the
/// budget's reader names what is missing).
nlohmann::json tableJson(const toml::table& table) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, node] : table) {
    if (auto inner = node.as_table())
      out[std::string(key.str())] = tableJson(*inner);
    else if (auto value = jsonOf(node))
      out[std::string(key.str())] = std::move(*value);
  }
  return out;
}

constexpr std::string_view kBudgetTable = "budget";

std::string problemAt(size_t line, const std::string& what) {
  return "kernelscope.toml:" + std::to_string(line) + ": " + what;
}

}  // namespace

namespace {

/// kernelscope.toml's top-level keys and values as JSON, unchecked.
// Read with toml++ (Debian's libtomlplusplus-dev). A line TOML cannot read is reported and
// left out, and the file is read again without it: one typo does not drop the workspace's
// other settings. Only a few times: each reading is of the whole file, and a file of many
// unreadable lines (kilobytes of them) would otherwise take time quadratic in its size.
nlohmann::json settingsFileJson(const std::string& text, std::vector<std::string>& problems) {
  constexpr size_t kMaxUnreadableLines = 16;
  std::vector<std::string> lines;
  for (std::string_view line : splitLines(text)) lines.emplace_back(line);
  toml::table table;
  for (size_t attempt = 0;; ++attempt) {
    std::string document;
    for (const auto& line : lines) document += line + "\n";
    try {
      table = toml::parse(document, std::string_view("kernelscope.toml"));
      break;
    } catch (const toml::parse_error& e) {
      const size_t line = e.source().begin.line;
      problems.push_back(problemAt(line, std::string(e.description())));
      if (line == 0 || line > lines.size() || lines[line - 1].empty() || attempt >= lines.size())
        return nlohmann::json::object();
      if (attempt + 1 >= kMaxUnreadableLines) {
        problems.push_back("more than " + std::to_string(kMaxUnreadableLines) +
                           " lines TOML cannot read: no setting of the file is used");
        return nlohmann::json::object();
      }
      lines[line - 1].clear();
    }
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if (name == kBudgetTable && node.is_table())  // read by settingsFileBudgets
      out[name] = tableJson(*node.as_table());
    else if (auto value = jsonOf(node))
      out[name] = std::move(*value);
    else
      problems.push_back(problemAt(node.source().begin.line,
                                   name + ": expected a string, integer, boolean or array value"));
  }
  return out;
}

}  // namespace

SettingValues parseSettingsFile(const std::string& text, std::vector<std::string>& problems) {
  SettingValues values;
  const nlohmann::json file = settingsFileJson(text, problems);
  for (const auto& [key, value] : file.items()) {
    if (key == kBudgetTable) continue;           // settingsFileBudgets
    if (key == "arch" && value == "") continue;  // unset: the crate's arch, else the default
    if (auto checked = decodeSetting(key, value, problems)) values[key] = std::move(*checked);
  }
  return values;
}

std::map<std::string, KernelBudget> settingsFileBudgets(const std::string& text,
                                                        std::vector<std::string>& problems) {
  std::vector<std::string> unread;  // the file's own problems: parseSettingsFile's to report
  const nlohmann::json file = settingsFileJson(text, unread);
  if (!file.contains(kBudgetTable)) return {};
  return parseBudgets(file[kBudgetTable].dump(), "kernelscope.toml [budget]", problems);
}

void SettingsLayers::changeEditorValues(const SettingChanges& changes) {
  for (const auto& [key, value] : changes) {
    if (value)
      editor_[key] = *value;
    else
      editor_.erase(key);
  }
}

SettingsLayers::Layered SettingsLayers::layered() const {
  Layered out;
  // The workspace's own file may choose only safe values until the user trusts it.
  out.trusted = settingsFrom({&editor_}).compile.workspaceTrusted;
  SettingValues fileValues = file_;
  out.withheld = withholdUntrustedSettings(fileValues, out.trusted);
  out.settings = settingsFrom({&fileValues, &editor_});
  return out;
}

}  // namespace ks::server
