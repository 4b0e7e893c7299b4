#include "LaunchPlan.h"

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
uint16_t halfFromDouble(double v) {
  // Through f32 bits: exact for every half, and the rounding below is to nearest even.
  uint32_t f = std::bit_cast<uint32_t>(static_cast<float>(v));
  uint32_t sign = (f >> 16) & 0x8000;
  uint32_t exp = (f >> 23) & 0xff;
  uint32_t man = f & 0x7fffff;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (man ? 0x200 : 0));  // inf, nan
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00);  // overflow: inf
  if (e <= 0) {                                              // subnormal or zero
    if (e < -10) return static_cast<uint16_t>(sign);
    man |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = man >> shift;
    uint32_t rest = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (man >> 13);
  uint32_t rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;  // may carry into inf: right
  return static_cast<uint16_t>(sign | half);
}

double halfToDouble(uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  int man = h & 0x3ff;
  double v = exp == 0    ? std::ldexp(man, -24)
             : exp == 31 ? (man ? NAN : INFINITY)
                         : std::ldexp(man | 0x400, exp - 25);
  return (h & 0x8000) ? -v : v;
}

uint16_t bfloat16FromDouble(double v) {
  uint32_t f = std::bit_cast<uint32_t>(static_cast<float>(v));
  if ((f & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((f >> 16) | 0x40);  // nan
  f += 0x7fff + ((f >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(f >> 16);
}

double bfloat16ToDouble(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint64_t LaunchPlan::bufferBytes() const {
  uint64_t total = 0;
  for (const auto& a : args)
    if (a.buffer) total += a.byteSize();
  return total;
}

}  // namespace ks::gpu
