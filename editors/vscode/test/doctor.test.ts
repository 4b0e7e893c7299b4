// Unit tests of reading `kernelscope doctor`'s report (src/doctor_report.ts), on the text
// doctor prints for a fresh cache: the core not built and no nvdisasm.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import { missingTools } from "../src/doctor_report";

const FRESH_CACHE = `kernelscope toolchain (cache: /tmp/empty, fingerprint 0401257692ddb80f)
  MIR, LLVM IR, PTX     rustc     ok       /usr/bin/rustc  (1.96.0 (LLVM 22.1.8))
                        sysroot   MISSING  nvptx64 core not built yet
                                  fix: run scripts/setup.sh (or: kernelscope setup)
  resources (ptxas -v)  ptxas     ok       /usr/local/cuda/bin/ptxas  (Cuda compilation tools, release 13.0, V13.0.88)
  SASS                  nvdisasm  MISSING  not found next to any ptxas (CUDA_HOME, PATH, /tmp/empty/cuda-tools)
                                  fix: run scripts/setup.sh (or: kernelscope setup) fetches a matched ptxas + nvdisasm (CUDA 11.8)
  CUDA C++ twins        nvcc      ok       /usr/local/cuda/bin/nvcc  (Cuda compilation tools, release 13.0, V13.0.88)

run and profile on this machine (or through --runner on another)
  CUDA driver   MISSING: no CUDA driver on this machine; set a runner to use a GPU elsewhere
  ncu           MISSING: Nsight Compute's CLI is not in CUDA_HOME/bin, /usr/local/cuda/bin or PATH (profile needs it)

kernelscope cannot compile kernels until the MISSING items above are fixed.
`;

test("the missing compile tools, each with doctor's fix; the GPU section is not read", () => {
  assert.deepEqual(missingTools(FRESH_CACHE), [
    { tool: "sysroot", problem: "nvptx64 core not built yet", fix: "run scripts/setup.sh (or: kernelscope setup)" },
    {
      tool: "nvdisasm",
      problem: "not found next to any ptxas (CUDA_HOME, PATH, /tmp/empty/cuda-tools)",
      fix: "run scripts/setup.sh (or: kernelscope setup) fetches a matched ptxas + nvdisasm (CUDA 11.8)",
    },
  ]);
});

test("nothing missing when every tool is ok", () => {
  const ok = FRESH_CACHE.replace(/ {2}.{22}\S+\s+MISSING.*\n.*fix:.*\n/g, "");
  assert.deepEqual(missingTools(ok), []);
});
