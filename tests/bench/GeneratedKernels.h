// Kernel files of any size for the benchmarks: `n` kernels, each about 50 lines of the
// shapes real kernels have (index math, slices with bounds checks, iterator loops,
// helpers inlined from the file and from core), so the PTX and its inline chains grow
// with `n` as a real file's would.
//
// `perModule` > 0 puts the kernels into modules of that many each (`mod m0 { ... }`): the
// same code laid out as a crate with several modules would be.
#pragma once

#include <string>

namespace ks::bench {

inline std::string generatedKernels(int n, int perModule = 0) {
  std::string s =
      "//! Generated benchmark kernels.\n#![no_std]\n#![feature(abi_ptx, stdarch_nvptx)]\n\n"
      "use core::arch::nvptx;\n\n"
      "#[inline(always)]\nfn global_index() -> usize {\n"
      "    unsafe { nvptx::_block_idx_x() as usize * nvptx::_block_dim_x() as usize\n"
      "        + nvptx::_thread_idx_x() as usize }\n}\n\n"
      "#[inline(always)]\nfn smooth(a: f32, b: f32, t: f32) -> f32 {\n"
      "    let t = t.clamp(0.0, 1.0);\n    a + (b - a) * (t * t * (3.0 - 2.0 * t))\n}\n\n"
      "#[inline(always)]\nfn window_sum(xs: &[f32], at: usize, width: usize) -> f32 {\n"
      "    xs.iter().skip(at).take(width).fold(0.0, |acc, v| acc + v)\n}\n\n"
      "#[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! {\n    loop {}\n}\n";
  for (int k = 0; k < n; ++k) {
    if (perModule > 0 && k % perModule == 0)
      s += (k ? "}\n" : "") + std::string("\nmod m") + std::to_string(k / perModule) +
           " {\nuse super::*;\n";
    const std::string i = std::to_string(k);
    const std::string w = std::to_string(3 + k % 6);
    const std::string c = std::to_string(k % 9) + ".25";
    s += "\n/// Kernel " + i +
         ": a window sum, a smoothstep and a strided update.\n"
         "#[no_mangle]\n"
         "pub unsafe extern \"ptx-kernel\" fn kernel_" +
         i +
         "(x: *const f32, y: *mut f32, n: usize) {\n"
         "    let i = global_index();\n"
         "    if i >= n {\n"
         "        return;\n"
         "    }\n"
         "    let xs = core::slice::from_raw_parts(x, n);\n"
         "    let ys = core::slice::from_raw_parts_mut(y, n);\n"
         "\n"
         "    // A window of neighbours, summed through core's iterators.\n"
         "    let near = window_sum(xs, i, " +
         w +
         ");\n"
         "    let lo = xs[i.saturating_sub(1)];\n"
         "    let hi = xs[(i + 1).min(n - 1)];\n"
         "\n"
         "    // Blend between the neighbours by the window's mean.\n"
         "    let mean = near / " +
         w +
         ".0;\n"
         "    let blended = smooth(lo, hi, mean * " +
         c +
         ");\n"
         "\n"
         "    // A small loop the optimizer unrolls.\n"
         "    let mut acc = blended;\n"
         "    for j in 0.." +
         w +
         " {\n"
         "        let v = xs.get(i + j).copied().unwrap_or(0.0);\n"
         "        acc = acc * 0.5 + v * " +
         c +
         ";\n"
         "    }\n"
         "\n"
         "    // Clamp, scale and write back.\n"
         "    let scaled = if acc.is_nan() { 0.0 } else { acc.max(-1.0e6).min(1.0e6) };\n"
         "    let stride = nvptx::_grid_dim_x() as usize * nvptx::_block_dim_x() as usize;\n"
         "    let mut k = i;\n"
         "    while k < n {\n"
         "        ys[k] = ys[k] * 0.75 + scaled;\n"
         "        k += stride.max(1);\n"
         "    }\n"
         "\n"
         "    // The count of positive neighbours, written to the first slot.\n"
         "    let positive = xs[i..(i + " +
         w +
         ").min(n)]\n"
         "        .iter()\n"
         "        .filter(|v| **v > 0.0)\n"
         "        .count();\n"
         "    if i == 0 {\n"
         "        ys[0] += positive as f32;\n"
         "    }\n"
         "}\n";
  }
  if (perModule > 0 && n > 0) s += "}\n";
  return s;
}

}  // namespace ks::bench
