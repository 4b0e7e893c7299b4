#include "LaunchSpec.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "ParamValues.h"
#include "TextUtil.h"

namespace ks::gpu {

namespace {

const std::set<std::string, std::less<>> kSpecKeys = {"grid", "block", "shared", "bytes", "flops"};

/// Resolves one spec against one kernel's signature. Scalars evaluate on demand, each once,
/// following references between them; every problem is added to the errors with the line
/// of the spec item it is about.
class SpecResolver {
 public:
  SpecResolver(const LaunchSpec& spec, const KernelSignature& sig, std::vector<SpecError>& errors)
      : spec_(spec),
        sig_(sig),
        errors_(errors),
        first_(spec.items.empty() ? nullptr : &spec.items.front()) {
    for (const auto& p : sig.params) {
      params_[p.name] = &p;
      paramList_ += (paramList_.empty() ? "" : ", ") + p.name + ": " + p.typeName();
    }
    lookup_ = [this](const std::string& name, std::string& err) {
      ExpressionError e;
      auto v = lookup(name, e);
      if (!v) err = e.message;
      return v;
    };
  }

  /// The plan as far as the spec allows; the errors say what it lacks.
  LaunchPlan resolve() {
    checkKeys();
    LaunchPlan plan;
    plan.kernel = sig_.name;
    readShape(plan);
    for (const auto& p : sig_.params) {
      const SpecItem* item = spec_.find(p.name);
      if (!item) {
        specError("no value for parameter '" + p.name + ": " + p.typeName() + "' of " + sig_.name,
                  SpecErrorKind::MissingParameter, p.name);
        continue;
      }
      ArgPlan arg;
      arg.name = p.name;
      arg.origin = item->origin;
      arg.line = item->line;
      bool ok = false;
      if (auto buffer = bufferValue(item->value))
        ok = readBuffer(p, *item, *buffer, arg);
      else if (p.kind == KernelParam::Kind::Aggregate)
        ok = readAggregate(p, *item, arg);
      else
        ok = readScalar(p, *item, arg);
      if (ok) plan.args.push_back(std::move(arg));
    }
    return plan;
  }

 private:
  /// A problem with `item`, at the whole item.
  void error(const SpecItem* item, std::string message, SpecErrorKind kind = SpecErrorKind::Value) {
    SpecError e(item ? item->origin : std::string(), item ? item->line : 0, std::move(message),
                kind);
    if (item) {
      e.key = item->key;
      if (item->keyColumn) {
        e.column = item->keyColumn;
        e.endColumn = item->valueColumn + static_cast<uint32_t>(item->value.size());
      }
    }
    errors_.push_back(std::move(e));
  }

  /// A problem with the whole spec (something it lacks), at its first line.
  void specError(std::string message, SpecErrorKind kind, std::string key) {
    SpecError e(first_ ? first_->origin : std::string(), first_ ? first_->line : 0,
                std::move(message), kind);
    e.key = std::move(key);
    errors_.push_back(std::move(e));
  }

  /// An expression of `item`'s (`text`, a part of its value) that has no value, at the part of
  /// it the parser names when it names one. `prefix` goes before the message.
  void expressionError(const SpecItem& item, std::string_view text, const ExpressionError& e,
                       const std::string& prefix = "") {
    error(&item, prefix + e.message,
          e.shiftPrecedence ? SpecErrorKind::ShiftPrecedence : SpecErrorKind::Expression);
    SpecError& out = errors_.back();
    const std::string& value = item.value;
    size_t at =
        text.data() >= value.data() && text.data() + text.size() <= value.data() + value.size()
            ? static_cast<size_t>(text.data() - value.data())
            : value.find(text);
    if (!item.valueColumn || at == std::string::npos || e.end <= e.begin) return;
    out.column = item.valueColumn + static_cast<uint32_t>(at + e.begin);
    out.endColumn = item.valueColumn + static_cast<uint32_t>(at + e.end);
    if (e.shiftPrecedence) out.rewrite = e.rewrite;
  }

  /// Every key names a parameter or one of the launch's own keys.
  void checkKeys() {
    for (const auto& item : spec_.items)
      if (!kSpecKeys.count(item.key) && !params_.count(item.key)) {
        error(&item,
              "no parameter named '" + item.key + "': " + sig_.name + " takes (" + paramList_ +
                  "); other keys are grid, block, shared, bytes, flops",
              SpecErrorKind::UnknownName);
        if (item.keyColumn)
          errors_.back().endColumn = item.keyColumn + static_cast<uint32_t>(item.key.size());
      }
  }

  /// The text of the value at `path` ("n", "p.scale", "p.inner.x"), or nullopt with `err`.
  std::optional<std::string> valueText(const std::string& path, std::string& err) {
    size_t dot = path.find('.');
    std::string head = path.substr(0, dot);
    // A one-number block and the dynamic shared memory are names too, so that a grid follows
    // a swept block: `grid = ceil(n / block)`.
    const bool launchName = (head == "block" || head == "shared") && dot == std::string::npos;
    if (!params_.count(head) && !launchName) {
      err = "unknown name '" + path + "' (not a parameter of " + sig_.name + ")";
      return std::nullopt;
    }
    const SpecItem* item = spec_.find(head);
    if (!item) {
      err = "'" + head + "' has no value in the spec";
      return std::nullopt;
    }
    if (bufferValue(item->value)) {
      err = "'" + head + "' is a buffer, not a number";
      return std::nullopt;
    }
    std::string text = item->value;
    if (launchName && !params_.count(head) && text.starts_with("[")) {
      err = "'" + head + "' is a list; only a one-number " + head + " is a name in expressions";
      return std::nullopt;
    }
    std::string walked = head;
    while (dot != std::string::npos) {
      size_t next = path.find('.', dot + 1);
      std::string field = path.substr(dot + 1, next == std::string::npos ? next : next - dot - 1);
      auto lit = parseLiteral(text, err);
      if (!lit) return std::nullopt;
      if (lit->kind != Literal::Kind::Struct) {
        err = "'" + walked + "' is not a struct value, so it has no field '" + field + "'";
        return std::nullopt;
      }
      auto it = std::find_if(lit->fields.begin(), lit->fields.end(),
                             [&](const auto& f) { return f.first == field; });
      if (it == lit->fields.end()) {
        err = "'" + walked + "' has no field '" + field + "' in the spec";
        return std::nullopt;
      }
      text = it->second;
      walked += "." + field;
      dot = next;
    }
    return text;
  }

  /// The value of the scalar (or struct field) `name`, evaluated once. A problem in its own
  /// text is placed in that text (`err`'s offsets).
  std::optional<double> lookup(const std::string& name, ExpressionError& err) {
    if (auto it = values_.find(name); it != values_.end()) return it->second;
    auto text = valueText(name, err.message);
    if (!text) return std::nullopt;
    if (evaluating_.count(name)) {
      err.message = "'" + name + "' is defined in terms of itself";
      return std::nullopt;
    }
    evaluating_.insert(name);
    auto v = evaluateExpression(*text, lookup_, err);
    evaluating_.erase(name);
    if (v)
      values_[name] = *v;
    else if (err.message.find(name + ":") != 0)
      err.message = name + ": " + err.message;
    return v;
  }

  /// An expression of `item`'s; a failure is reported on the item.
  std::optional<double> evaluate(const SpecItem& item, std::string_view text) {
    ExpressionError err;
    auto v = evaluateExpression(text, lookup_, err);
    if (!v) expressionError(item, text, err);
    return v;
  }

  /// grid and block, the dynamic shared memory, and the bytes and flops of a launch.
  void readShape(LaunchPlan& plan) {
    readDims("grid", plan.grid);
    readDims("block", plan.block);
    if (uint64_t threads = uint64_t(plan.block[0]) * plan.block[1] * plan.block[2]; threads > 1024)
      error(spec_.find("block"),
            "a block of " + std::to_string(threads) + " threads: at most 1024");
    if (const SpecItem* item = spec_.find("shared")) {
      if (auto v = evaluate(*item, item->value)) {
        if (!isWhole(*v) || *v < 0 || *v > 4294967295.0)
          error(item, "shared needs a whole number of bytes");
        else
          plan.sharedBytes = static_cast<uint32_t>(*v);
      }
    }
    for (const char* key : {"bytes", "flops"})
      if (const SpecItem* item = spec_.find(key))
        if (auto v = evaluate(*item, item->value))
          (std::string(key) == "bytes" ? plan.bytes : plan.flops) = *v;
  }

  /// `KEY = N`, `KEY = [X, Y]` or `KEY = [X, Y, Z]`.
  void readDims(const char* key, std::array<uint32_t, 3>& dims) {
    const SpecItem* item = spec_.find(key);
    if (!item) {
      specError(std::string("the spec needs '") + key + "' (e.g. " + key + " = " +
                    (std::string(key) == "block" ? "256" : "ceil(n / 256)") + ")",
                SpecErrorKind::MissingLaunch, key);
      return;
    }
    std::string text = item->value;
    if (text.front() == '[') {
      if (text.back() != ']') return error(item, std::string(key) + ": missing ']'");
      text = text.substr(1, text.size() - 2);
    }
    std::vector<std::string> parts = splitTopLevel(text, ',');
    if (parts.empty() || parts.size() > 3)
      return error(item, std::string(key) + " takes 1 to 3 dimensions");
    for (size_t i = 0; i < parts.size(); ++i) {
      auto v = evaluate(*item, parts[i]);
      if (!v) return;
      if (!isWhole(*v) || *v < 1 || *v > 4294967295.0)
        return error(item, std::string(key) + " " + "xyz"[i] + " = " + std::to_string(*v) +
                               ": needs a whole number from 1 up (use ceil(...))");
      dims[i] = static_cast<uint32_t>(*v);
    }
  }

  /// Lays out `text` as a value of `type` at `out` (`path` names it in errors and lookups).
  bool encode(const ValueType& type, const std::string& text, const std::string& path, uint8_t* out,
              const SpecItem& item) {
    std::string problem;
    auto lit = parseLiteral(text, problem);
    if (!lit) return error(&item, "'" + path + "': " + problem), false;
    switch (type.kind) {
      case ValueType::Kind::Scalar: {
        if (lit->kind != Literal::Kind::Expression)
          return error(&item, "'" + path + "' is " + type.name + ": give it a number"), false;
        ExpressionError err;
        auto v = values_.count(path) ? std::optional<double>(values_[path])
                                     : evaluateExpression(text, lookup_, err);
        if (!v) return expressionError(item, text, err, "'" + path + "': "), false;
        if (std::string why =
                scalarBytes(*v, static_cast<unsigned>(type.size), type.scalar, false, out);
            !why.empty())
          return error(&item, "'" + path + "': " + why), false;
        return true;
      }
      case ValueType::Kind::Array: {
        std::vector<std::string> elements = lit->elements;
        if (lit->kind == Literal::Kind::Repeat) {
          auto n = evaluate(item, lit->count);
          if (!n) return false;
          if (*n != static_cast<double>(type.count))
            return error(&item, "'" + path + "' is " + type.name + ": [V; " +
                                    std::to_string(type.count) + "] repeats a value " +
                                    std::to_string(type.count) + " times"),
                   false;
          elements.assign(type.count, lit->text);
        } else if (lit->kind != Literal::Kind::Array) {
          return error(&item, "'" + path + "' is " + type.name + ": give it [V, V, ...] or [V; " +
                                  std::to_string(type.count) + "]"),
                 false;
        }
        if (elements.size() != type.count)
          return error(&item, "'" + path + "' is " + type.name + ": " +
                                  std::to_string(elements.size()) + " values given"),
                 false;
        bool ok = true;
        for (size_t i = 0; i < elements.size(); ++i)
          ok &= encode(*type.element, elements[i], path + "[" + std::to_string(i) + "]",
                       out + i * type.element->size, item);
        return ok;
      }
      case ValueType::Kind::Struct: {
        if (lit->kind != Literal::Kind::Struct || lit->typeName != type.name)
          return error(&item, "'" + path + "' is " + type.describe() + ": give it " + type.name +
                                  " { ... }"),
                 false;
        bool ok = true;
        std::set<std::string, std::less<>> given;
        for (const auto& field : lit->fields) {
          // Not a structured binding: clang 14 cannot capture one in the lambda below.
          const std::string& name = field.first;
          const std::string& value = field.second;
          auto f = std::find_if(type.fields.begin(), type.fields.end(),
                                [&](const auto& x) { return x.name == name; });
          if (f == type.fields.end()) {
            error(&item, "'" + path + "': " + type.name + " has no field '" + name + "' (" +
                             type.describe() + ")");
            ok = false;
          } else if (!given.insert(name).second) {
            error(&item, "'" + path + "': field '" + name + "' is given twice");
            ok = false;
          } else {
            ok &= encode(*f->type, value, path + "." + name, out + f->offset, item);
          }
        }
        for (const auto& f : type.fields)
          if (!given.count(f.name)) {
            error(&item, "'" + path + "': no value for field '" + f.name + ": " + f.type->name +
                             "' of " + type.name);
            ok = false;
          }
        return ok;
      }
    }
    return false;
  }

  /// A struct or array by value: its bytes laid out as the source declares it.
  bool readAggregate(const KernelParam& p, const SpecItem& item, ArgPlan& arg) {
    if (!p.aggregate) {
      error(&item, "'" + p.name + "' is a " + std::to_string(p.bytes) +
                       "-byte struct or array by value whose type kernelscope could not read "
                       "from the source (a #[repr(C)] struct declared in the kernel's file)");
      return false;
    }
    arg.scalar.assign(p.bytes, 0);  // padding stays zero
    return encode(*p.aggregate, item.value, p.name, arg.scalar.data(), item);
  }

  /// A buffer argument: its element type against the kernel's, its length, its contents.
  bool readBuffer(const KernelParam& p, const SpecItem& item, const BufferValue& b, ArgPlan& arg) {
    if (p.bytes != 8 ||
        (p.kind != KernelParam::Kind::Pointer && p.kind != KernelParam::Kind::Unknown)) {
      error(&item, "'" + p.name + "' is " + p.typeName() + ", not a pointer: give it " +
                       (p.kind == KernelParam::Kind::Aggregate ? "a value" : "a number"));
      return false;
    }
    arg.buffer = true;
    arg.output = p.kind == KernelParam::Kind::Pointer ? p.pointeeMutable : true;
    arg.typeName = b.type;
    if (auto scalar = elemTypeFromName(b.type)) {
      arg.elem = *scalar;
      if (p.pointee &&
          (p.pointee->kind != ValueType::Kind::Scalar || p.pointee->scalar != *scalar)) {
        error(&item,
              "'" + p.name + "' points to " + p.pointee->name + ", the spec gives " + b.type);
        return false;
      }
    } else if (p.pointee && p.pointee->kind != ValueType::Kind::Scalar &&
               (p.pointee->name == b.type || b.type.ends_with("::" + p.pointee->name))) {
      arg.elem = ElemType::Record;
      arg.recordBytes = static_cast<uint32_t>(p.pointee->size);
      arg.typeName = p.pointee->name;
    } else {
      error(&item, "'" + p.name + "' points to " + (p.pointee ? p.pointee->name : "values") +
                       ", the spec gives " + b.type +
                       (p.pointee                  ? ""
                        : p.pointeeProblem.empty() ? " (an element type is f32, u8, f16, bf16, ...)"
                                                   : " (" + p.pointeeProblem + ")"));
      return false;
    }
    auto len = evaluate(item, b.length);
    if (!len) return false;
    if (!isWhole(*len) || *len < 1) {
      error(&item, "'" + p.name + "': the length " + std::to_string(*len) +
                       " is not a whole number from 1 up");
      return false;
    }
    if (*len * static_cast<double>(arg.elementBytes()) > static_cast<double>(kMaxBufferBytes)) {
      error(&item, "'" + p.name + "' would be " +
                       std::to_string(*len * static_cast<double>(arg.elementBytes()) / 1e9) +
                       " GB: larger than kernelscope allows (1 TiB)");
      return false;
    }
    arg.count = static_cast<uint64_t>(*len);
    std::string pattern;
    if (std::string why = readContents(b.contents, lookup_, arg.fill, pattern); !why.empty()) {
      error(&item, "'" + p.name + "': " + why);
      return false;
    }
    if (arg.fill.kind == Fill::Kind::Pattern) {
      if (arg.elem != ElemType::Record) {
        error(&item, "'" + p.name + "': fill(V) of " + b.type + " takes a number");
        return false;
      }
      arg.fill.pattern.assign(arg.recordBytes, 0);
      return encode(*p.pointee, pattern, p.name + "[]", arg.fill.pattern.data(), item);
    }
    if (arg.elem == ElemType::Record && arg.fill.kind != Fill::Kind::Zeros &&
        arg.fill.kind != Fill::Kind::File) {
      error(&item, "'" + p.name + "': a buffer of " + arg.typeName + " takes zeros, fill(" +
                       arg.typeName + " { ... }) or file(\"PATH\")");
      return false;
    }
    return true;
  }

  /// A number argument, as the parameter's bytes.
  bool readScalar(const KernelParam& p, const SpecItem& item, ArgPlan& arg) {
    if (p.kind == KernelParam::Kind::Pointer) {
      error(&item, "'" + p.name + "' is a pointer (" + p.typeName() + "): give it a buffer, e.g. " +
                       p.name + " = " + (p.pointee ? p.pointee->name : std::string("f32")) +
                       "[n] zeros");
      return false;
    }
    ExpressionError err;
    auto v = lookup(p.name, err);
    if (!v) {
      expressionError(item, item.value, err);  // the offsets are in the parameter's own value
      return false;
    }
    bool floatParam = p.kind == KernelParam::Kind::Float;
    if (p.kind == KernelParam::Kind::Unknown && !isWhole(*v))
      floatParam = true;  // PTX only: take the value's kind
    arg.scalar.assign(p.bytes, 0);
    if (std::string why = scalarBytes(*v, p.bytes, p.type, floatParam, arg.scalar.data());
        !why.empty()) {
      error(&item, "'" + p.name + "': " + why);
      return false;
    }
    return true;
  }

  const LaunchSpec& spec_;
  const KernelSignature& sig_;
  std::vector<SpecError>& errors_;
  const SpecItem* first_;  // where errors about the whole spec point
  std::map<std::string, const KernelParam*, std::less<>> params_;
  std::string paramList_;
  NameLookup lookup_;
  std::map<std::string, double, std::less<>> values_;
  std::set<std::string, std::less<>> evaluating_;
};

}  // namespace

std::optional<LaunchPlan> resolveSpec(const LaunchSpec& spec, const KernelSignature& sig,
                                      std::vector<SpecError>& errors) {
  size_t errorsBefore = errors.size();
  LaunchPlan plan = SpecResolver(spec, sig, errors).resolve();
  if (errors.size() != errorsBefore) return std::nullopt;
  return plan;
}

}  // namespace ks::gpu
