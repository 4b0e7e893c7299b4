#include "LaunchPlan.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace ks::gpu {

namespace {
struct TypeInfo {
  ElemType type;
  const char* name;
  const char* numpy;
  size_t size;
};
constexpr TypeInfo kTypes[] = {
    {ElemType::I8, "i8", "|i1", 1},     {ElemType::I16, "i16", "<i2", 2},
    {ElemType::I32, "i32", "<i4", 4},   {ElemType::I64, "i64", "<i8", 8},
    {ElemType::U8, "u8", "|u1", 1},     {ElemType::U16, "u16", "<u2", 2},
    {ElemType::U32, "u32", "<u4", 4},   {ElemType::U64, "u64", "<u8", 8},
    {ElemType::F16, "f16", "<f2", 2},   {ElemType::BF16, "bf16", "<u2", 2},
    {ElemType::F32, "f32", "<f4", 4},   {ElemType::F64, "f64", "<f8", 8},
    {ElemType::Bool, "bool", "|b1", 1}, {ElemType::Record, "record", "|V", 0},
};
const TypeInfo& info(ElemType t) { return kTypes[static_cast<size_t>(t)]; }
}  // namespace

std::optional<ElemType> elemTypeFromName(std::string_view name) {
  for (const auto& t : kTypes)
    if (name == t.name && t.type != ElemType::Record) return t.type;
  return std::nullopt;
}
std::string_view elemTypeName(ElemType t) { return info(t).name; }
std::string_view elemTypeNumpy(ElemType t) { return info(t).numpy; }
size_t elemSize(ElemType t) { return info(t).size; }
bool isFloat(ElemType t) {
  return t == ElemType::F16 || t == ElemType::BF16 || t == ElemType::F32 || t == ElemType::F64;
}
bool isSigned(ElemType t) {
  return t == ElemType::I8 || t == ElemType::I16 || t == ElemType::I32 || t == ElemType::I64;
}

// The half conversions are written out: C++20 has no float16_t, and the GPU machine's
// compiler may not offer _Float16.
namespace {
/// `v` rounded to nearest even into a float of `expBits` and `manBits` (IEEE half: 5, 10;
/// bfloat16: 8, 7), straight from the double (through f32 would round twice).
uint16_t narrowFloat(double v, int expBits, int manBits) {
  const int bias = (1 << (expBits - 1)) - 1, maxExp = (1 << expBits) - 1, drop = 52 - manBits;
  const uint64_t d = std::bit_cast<uint64_t>(v);
  const uint32_t sign = static_cast<uint32_t>(d >> 63) << (expBits + manBits);
  const int exp = static_cast<int>((d >> 52) & 0x7ff);
  uint64_t man = d & ((uint64_t(1) << 52) - 1);
  const uint32_t inf = static_cast<uint32_t>(maxExp) << manBits;
  if (exp == 0x7ff) return static_cast<uint16_t>(sign | inf | (man ? 1u << (manBits - 1) : 0));
  const int e = exp - 1023 + bias;
  if (e >= maxExp) return static_cast<uint16_t>(sign | inf);
  int shift = drop;
  if (e > 0) {
    man |= static_cast<uint64_t>(e) << 52;  // the exponent above the mantissa: a carry is right
  } else {                                  // a subnormal (or zero)
    shift = drop + 1 - e;
    if (shift > 53) return static_cast<uint16_t>(sign);
    man |= uint64_t(1) << 52;
  }
  uint64_t out = man >> shift;
  const uint64_t rest = man & ((uint64_t(1) << shift) - 1), mid = uint64_t(1) << (shift - 1);
  if (rest > mid || (rest == mid && (out & 1))) ++out;
  return static_cast<uint16_t>(sign | out);
}
}  // namespace

uint16_t halfFromDouble(double v) { return narrowFloat(v, 5, 10); }

double halfToDouble(uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  int man = h & 0x3ff;
  double v = exp == 0    ? std::ldexp(man, -24)
             : exp == 31 ? (man ? NAN : INFINITY)
                         : std::ldexp(man | 0x400, exp - 25);
  return (h & 0x8000) ? -v : v;
}

uint16_t bfloat16FromDouble(double v) {
  if (std::isnan(v)) return std::signbit(v) ? 0xffc0 : 0x7fc0;
  return narrowFloat(v, 8, 7);
}

double bfloat16ToDouble(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

bool isPlainParameterName(std::string_view name) {
  auto identChar = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  return !name.empty() && !(name[0] >= '0' && name[0] <= '9') &&
         std::all_of(name.begin(), name.end(), identChar);
}

uint64_t LaunchPlan::bufferBytes() const {
  uint64_t total = 0;
  for (const auto& a : args)
    if (a.buffer) total += a.byteSize();
  return total;
}

}  // namespace ks::gpu
