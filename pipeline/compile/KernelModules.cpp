// The PTX cut into one module per kernel. See KernelModules.h.
#include "KernelModules.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "ExactLocations.h"
#include "StableHash.h"
#include "TextUtil.h"

namespace ks {

namespace {

/// A top-level statement of the PTX, with the comment lines right above it.
struct Item {
  enum class Kind { Other, Definition, Declaration, Variable } kind = Kind::Other;
  uint32_t first = 0, last = 0;  // lines, comments above included
  std::string name;              // a function's or variable's
  bool entry = false, external = false;
  std::vector<uint32_t> reaches;  // the items it names
};

std::string_view codeOf(std::string_view line) {
  return text::trim(line.substr(0, std::min(line.size(), line.find("//"))));
}

bool identifierStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}
bool identifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

/// Calls `take` with every identifier of `code`.
template <class Take>
void forEachIdentifier(std::string_view code, Take take) {
  for (size_t i = 0; i < code.size();) {
    if (!identifierStart(code[i]) ||
        (i > 0 && (identifierChar(code[i - 1]) || code[i - 1] == '.'))) {
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < code.size() && identifierChar(code[end])) ++end;
    take(code.substr(i, end - i));
    i = end;
  }
}

/// The function a statement heads (`[.visible|.extern|.weak] (.entry|.func) [(RET)] NAME`),
/// or empty.
std::string functionName(std::string_view code, bool& entry, bool& external) {
  entry = external = false;
  std::string_view rest = code;
  for (;;) {
    text::skipBlanks(rest);
    if (text::consume(rest, ".visible") || text::consume(rest, ".weak")) continue;
    if (text::consume(rest, ".extern")) {
      external = true;
      continue;
    }
    break;
  }
  if (text::consume(rest, ".entry"))
    entry = true;
  else if (!text::consume(rest, ".func"))
    return {};
  if (!rest.empty() && rest[0] != ' ' && rest[0] != '\t') return {};
  text::skipBlanks(rest);
  if (rest.starts_with('(')) {  // the return value's parameter
    const size_t close = rest.find(')');
    if (close == std::string_view::npos) return {};
    rest.remove_prefix(close + 1);
    text::skipBlanks(rest);
  }
  return std::string(rest.substr(0, rest.find_first_of(" \t(;")));
}

/// The variable a module-scope state-space declaration names (`.global .align 4 .b8 x[16] =
/// {...};` -> x), or empty.
std::string variableName(std::string_view code) {
  static constexpr std::string_view kSpaces[] = {".global", ".const", ".shared", ".local"};
  std::string_view head = code.substr(0, std::min(code.size(), code.find('=')));
  bool variable = false;
  for (std::string_view space : kSpaces)
    for (size_t at = head.find(space); at != std::string_view::npos; at = head.find(space, at + 1))
      if (at + space.size() == head.size() || !identifierChar(head[at + space.size()]))
        variable = true;
  if (!variable) return {};
  head = head.substr(0, std::min(head.size(), head.find('[')));
  std::string name;
  forEachIdentifier(head, [&](std::string_view id) { name = id; });
  return name;
}

class Splitter {
 public:
  explicit Splitter(const Artifact& ptx) : ptx_(ptx) { readItems(); }

  KernelModules modules(bool lineIds, bool linkedForLaunch, size_t jobs) {
    KernelModules out;
    std::vector<uint32_t> kernels, functions;
    for (uint32_t i = 0; i < items_.size(); ++i) {
      if (items_[i].kind != Item::Kind::Definition) continue;
      functions.push_back(i);
      out.functions.push_back(items_[i].name);
      if (items_[i].entry) kernels.push_back(i);
    }
    // A loadable image holds only what its kernels reach (ptxas drops the rest); without a
    // kernel, the functions are assembled together as before.
    if (kernels.empty()) {
      if (!functions.empty())
        out.modules.push_back(module(reach(functions), lineIds, linkedForLaunch));
      return out;
    }
    const size_t groups = (kernels.size() + kKernelsPerModule - 1) / kKernelsPerModule;
    std::vector<std::vector<uint32_t>> members(groups);
    for (uint32_t k : kernels)
      members[std::stoull(bytesDigest(items_[k].name).substr(0, 12), nullptr, 16) % groups]
          .push_back(k);
    std::vector<std::vector<uint32_t>> grouped;
    for (auto& group : members)
      if (!group.empty()) {
        out.modules.push_back(module(reach(group), lineIds, linkedForLaunch));
        grouped.push_back(std::move(group));
      }
    if (jobs > 0 && out.modules.size() > jobs) merge(out, grouped, jobs, lineIds, linkedForLaunch);
    return out;
  }

 private:
  void readItems() {
    const auto count = static_cast<uint32_t>(ptx_.lines().size());
    std::optional<uint32_t> comments;  // the first of the comment lines right above
    for (uint32_t i = 0; i < count; ++i) {
      std::string_view line = text::trim(ptx_.lineText(i));
      if (line.empty()) {  // comments above a blank line belong to no statement
        for (uint32_t c = comments.value_or(i); c <= i; ++c) items_.push_back(otherLine(c));
        comments.reset();
        continue;
      }
      if (line.starts_with("//")) {
        if (!comments) comments = i;
        continue;
      }
      Item item;
      item.first = comments.value_or(i);
      comments.reset();
      std::string_view code = codeOf(line);
      item.name = functionName(code, item.entry, item.external);
      if (!item.name.empty()) {
        i = statementEnd(i, item.kind);
      } else if (item.name = variableName(code); !item.name.empty()) {
        item.kind = Item::Kind::Variable;
        i = statementEnd(i, item.kind);
      } else if (code.find('{') != std::string_view::npos) {
        Item::Kind section = Item::Kind::Variable;
        i = statementEnd(i, section);  // a section such as nvcc's `.section .debug_str {...}`
      }
      item.last = i;
      items_.push_back(std::move(item));
    }
    if (comments)
      for (uint32_t i = *comments; i < count; ++i) items_.push_back(otherLine(i));
    for (uint32_t i = 0; i < items_.size(); ++i)
      if (!items_[i].name.empty()) byName_[items_[i].name].push_back(i);
    for (Item& item : items_) {
      if (item.kind != Item::Kind::Definition && item.kind != Item::Kind::Variable) continue;
      for (uint32_t l = item.first; l <= item.last; ++l)
        forEachIdentifier(codeOf(ptx_.lineText(l)), [&](std::string_view id) {
          auto it = byName_.find(std::string(id));
          if (it == byName_.end() || id == item.name) return;
          for (uint32_t j : it->second)
            if (std::find(item.reaches.begin(), item.reaches.end(), j) == item.reaches.end())
              item.reaches.push_back(j);
        });
    }
  }

  static Item otherLine(uint32_t line) {
    Item item;
    item.first = item.last = line;
    return item;
  }

  /// The last line of the statement that starts at `line`: where its braces close, or the
  /// first `;` when it has none. `kind` becomes Definition when it has a body.
  uint32_t statementEnd(uint32_t line, Item::Kind& kind) {
    if (kind == Item::Kind::Other) kind = Item::Kind::Declaration;
    int depth = 0;
    bool body = false;
    const auto count = static_cast<uint32_t>(ptx_.lines().size());
    for (uint32_t l = line; l < count; ++l) {
      std::string_view code = codeOf(ptx_.lineText(l));
      for (char c : code) {
        if (c == '{') ++depth, body = true;
        if (c == '}') --depth;
      }
      if (body && depth <= 0) {
        if (kind == Item::Kind::Declaration) kind = Item::Kind::Definition;
        return l;
      }
      if (!body && code.ends_with(';')) return l;
    }
    return count - 1;
  }

  /// Deals the loadable modules (their kernels `grouped`) into `jobs` piles of about as many
  /// kernels each, the largest first, and merges each pile of several.
  void merge(KernelModules& out, const std::vector<std::vector<uint32_t>>& grouped, size_t jobs,
             bool lineIds, bool linkedForLaunch) const {
    std::vector<size_t> order;
    for (size_t m = 0; m < out.modules.size(); ++m)
      if (!out.modules[m].relocatable) order.push_back(m);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return grouped[a].size() > grouped[b].size(); });
    std::vector<MergedModule> piles(jobs);
    std::vector<size_t> kernels(jobs, 0);
    for (size_t m : order) {
      const size_t to = std::min_element(kernels.begin(), kernels.end()) - kernels.begin();
      piles[to].members.push_back(m);
      kernels[to] += grouped[m].size();
    }
    for (MergedModule& pile : piles) {
      if (pile.members.size() < 2) continue;
      std::sort(pile.members.begin(), pile.members.end());
      std::vector<uint32_t> roots;
      for (size_t m : pile.members) roots.insert(roots.end(), grouped[m].begin(), grouped[m].end());
      pile.module = module(reach(roots), lineIds, linkedForLaunch);
      out.merged.push_back(std::move(pile));
    }
  }

  /// The items reached from `roots` by name, transitively.
  std::vector<bool> reach(std::vector<uint32_t> work) const {
    std::vector<bool> in(items_.size(), false);
    for (uint32_t r : work) in[r] = true;
    while (!work.empty()) {
      const uint32_t i = work.back();
      work.pop_back();
      for (uint32_t j : items_[i].reaches)
        if (!in[j]) {
          in[j] = true;
          work.push_back(j);
        }
    }
    return in;
  }

  KernelModule module(const std::vector<bool>& in, bool lineIds, bool linkedForLaunch) const {
    KernelModule m;
    std::vector<uint32_t> lines;
    for (uint32_t i = 0; i < items_.size(); ++i) {
      const Item& item = items_[i];
      if (item.kind != Item::Kind::Other && !in[i]) continue;
      if (item.kind == Item::Kind::Definition) {
        m.functions.push_back(item.name);
        if (item.entry) m.kernels.push_back(item.name);
      }
      for (uint32_t l = item.first; l <= item.last; ++l) lines.push_back(l);
      // Only a function the PTX declares and nowhere defines is one ptxas must link.
      if (item.kind == Item::Kind::Declaration && item.external && !linkedForLaunch &&
          std::none_of(byName_.at(item.name).begin(), byName_.at(item.name).end(),
                       [&](uint32_t j) { return items_[j].kind == Item::Kind::Definition; }))
        m.relocatable = true;
    }
    if (lineIds) {
      LineIdPtx ids = ptxWithLineIds(ptx_, lines);
      m.text = std::move(ids.text);
      m.imageLineOf = std::move(ids.newToOld);
      if (ids.hasIds) m.idLines = std::move(lines);
      return m;
    }
    for (uint32_t l : lines) {
      m.text.append(ptx_.lineText(l));
      m.text += '\n';
    }
    m.imageLineOf = std::move(lines);
    return m;
  }

  const Artifact& ptx_;
  std::vector<Item> items_;
  std::unordered_map<std::string, std::vector<uint32_t>> byName_;
};

}  // namespace

KernelModules kernelModules(const Artifact& ptx, bool lineIds, bool linkedForLaunch, size_t jobs) {
  return Splitter(ptx).modules(lineIds, linkedForLaunch, jobs);
}

std::string renumberAfter(std::string_view text, std::string_view prefix,
                          const std::function<std::optional<uint32_t>(uint32_t)>& renumber) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  size_t done = 0;
  for (size_t at = text.find(prefix); at != std::string_view::npos; at = text.find(prefix, at)) {
    const size_t digits = at + prefix.size();
    uint32_t value = 0;
    auto [end, ec] = std::from_chars(text.data() + digits, text.data() + text.size(), value);
    at = digits;
    if (ec != std::errc()) continue;
    const std::optional<uint32_t> now = renumber(value);
    if (!now) continue;
    out.append(text.substr(done, digits - done));
    out += std::to_string(*now);
    done = static_cast<size_t>(end - text.data());
  }
  out.append(text.substr(done));
  return out;
}

std::string wholePtxLineIds(std::string_view sass, const std::vector<uint32_t>& idLines) {
  return renumberAfter(sass, ", line ", [&](uint32_t id) -> std::optional<uint32_t> {
    if (id < kLineIdBase || id - kLineIdBase >= idLines.size()) return std::nullopt;
    return kLineIdBase + idLines[id - kLineIdBase];
  });
}

}  // namespace ks
