#!/usr/bin/env python3
"""kernelscope on a GPU machine: the proof and the benchmark behind the README's GPU figures.

Usage: run_device.py GPU_EXEC LAUNCH_BENCH REQUEST_DIR OUT_DIR   (LAUNCH_BENCH: /bin/true without .bench.req)

REQUEST_DIR holds gpu-exec requests that `kernelscope run|profile FILE --save-request` wrote on
the machine with the toolchain (tests/bench/gpu/prepare.sh):
  NAME.run.req      run with --dump: each output is checked against a CPU reference computed
                    here (numpy) from the inputs the spec describes, regenerated with the same
                    uniform generator (pipeline/gpu-exec/Runner.cpp), which also checks the dumped inputs
  NAME.profile.req  profile: ncu's source counters and kernel metrics come back for attribution
  NAME.fault.req    a launch that must fault, and be reported as such by its gpu-exec process
  NAME.refuse.req   a request that must be refused with a message (a truncated cubin), not crash
  NAME.bench.req    run without dump, timed against LAUNCH_BENCH (tests/bench/gpu/launch_bench.cpp),
                    a minimal hand-written driver-API program making the same launch
  NAME.editor-run.req      a kernelscope/run request as the language server sent it
                    (tests/bench/gpu/prepare_editor.py): run unchanged, the checksums and first
                    elements the editor shows checked against the CPU reference, timed over 5
                    processes; then once with its buffers dumped, each checked element-wise
  NAME.editor-profile.req  a kernelscope/profile request as the language server sent it: through
                    ks-gpu-exec, alternating with ncu run by hand (the same two ncu commands on
                    a launch-once request)
OUT_DIR gets every result (blobs stripped) and summary.json.
"""
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import time

import numpy as np

DTYPES = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16, "i32": np.int32,
          "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
          "f16": np.float16, "bool": np.bool_}


# ncu's kernel metrics, as pipeline/gpu-exec/Ncu.cpp asks for them.
NCU_METRICS = ("gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,"
               "dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum")


def split(message):
    nl = message.index(b"\n")
    header = json.loads(message[:nl])
    blobs, at = [], nl + 1
    for n in header.get("blobs", []):
        blobs.append(message[at:at + n])
        at += n
    return header, blobs


def strip(message):
    header, _ = split(message)
    header["blobs"] = []
    for b in header.get("buffers", []):
        b["blob"] = -1
    return (json.dumps(header) + "\n").encode()


def uniform(seed, count, lo, hi):
    i = np.arange(count, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + i + np.uint64(1)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return lo + (hi - lo) * ((z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53)


def filled(arg):
    if arg["elem"] == "record":  # a buffer of structs: its bytes
        n, size = arg["count"], arg["recordBytes"]
        if arg["fill"] == "pattern":
            return np.frombuffer(bytes.fromhex(arg["pattern"]) * n, np.uint8)
        return np.zeros(n * size, np.uint8)
    dt, n = DTYPES[arg["elem"]], arg["count"]
    kind = arg["fill"]
    if kind == "zeros":
        return np.zeros(n, dt)
    if kind == "ones":
        return np.ones(n, dt)
    if kind == "constant":
        return np.full(n, arg["value"], dt)
    if kind == "iota":
        return np.arange(n).astype(dt)
    if kind == "uniform":
        v = uniform(arg["seed"], n, arg["lo"], arg["hi"])
        return (v if np.issubdtype(dt, np.floating) else np.floor(v)).astype(dt)
    raise ValueError(kind)


def scalar(arg, fmt):
    return struct.unpack(fmt, bytes.fromhex(arg["scalar"]))[0]


def reference(kernel, args):
    """The outputs a kernel must produce, from its inputs: {name: (array, tolerance)}."""
    a = {x["name"]: x for x in args}
    arr = {x["name"]: filled(x).astype(np.float64) for x in args if "scalar" not in x}
    if kernel == "saxpy":
        return {"y": (scalar(a["a"], "<f") * arr["x"] + arr["y"], 1e-6)}
    if kernel == "vector_add":
        return {"c": (arr["a"] + arr["b"], 1e-6)}
    if kernel == "elementwise_mul":
        return {"out": (arr["a"] * arr["b"], 1e-6)}
    if kernel == "reduce_sum":
        total = arr["input"].sum()
        return {"out": (np.array([total]), 1e-4 * abs(total))}
    if kernel == "poly_eval":  # Params { coeffs: [f32; 4], shift: f64, n: u32, flip: bool }
        c0, c1, c2, c3, shift, n, flip = struct.unpack("<4fdI?3x", bytes.fromhex(a["p"]["scalar"]))
        x = filled(a["xs"]).astype(np.float32)
        c = [np.float32(v) for v in (c0, c1, c2, c3)]
        y = (c[0] + x * (c[1] + x * (c[2] + x * c[3]))).astype(np.float64) + shift
        return {"ys": ((-y if flip else y).astype(np.float32), 1e-5)}
    if kernel == "advance":  # Particle { x: f32, v: f32 }: x += v * dt, v *= 0.5
        p = filled(a["ps"]).view(np.float32).reshape(-1, 2).copy()
        dt = scalar(a["dt"], "<f")
        p[:, 0] += p[:, 1] * np.float32(dt)
        p[:, 1] *= np.float32(0.5)
        return {"ps": (p.reshape(-1).view(np.uint8), 0)}
    if kernel == "axpy_f16":  # in f16: one rounding (fma) or two, so half an ulp of slack more
        a16 = np.frombuffer(bytes.fromhex(a["a"]["scalar"]), np.float16)[0]
        y = (np.float32(a16) * filled(a["x"]).astype(np.float32) + filled(a["y"]).astype(np.float32))
        return {"y": (y.astype(np.float16), 2 ** -10)}
    if kernel in ("matmul_naive", "matmul_tiled"):
        m, n, k = (scalar(a[x], "<I") for x in "mnk")
        c = arr["a"].reshape(m, k) @ arr["b"].reshape(k, n)
        return {"c": (c.reshape(-1), 1e-3)}
    if kernel == "scale_matrix":  # tests/fixtures/gpu/coalesce: before and after the fix
        return {"out": (2.0 * arr["a"], 0)}
    if kernel == "scale_slice":  # tests/fixtures/core_calls.rs: core's panics linked in
        return {"y": (2.0 * arr["x"], 0)}
    if kernel == "rem_by":
        return {"x": (arr["x"] % scalar(a["d"], "<I"), 0)}
    if kernel == "div_expect":
        return {"y": (arr["x"] // scalar(a["d"], "<I"), 0)}
    raise ValueError("no CPU reference for " + kernel)


def expected(req, refs, name):
    """A buffer's values as the CPU computes them, and the largest difference allowed."""
    arg = next(x for x in req["args"] if x["name"] == name)
    want, tol = refs.get(name, (filled(arg), 0))
    return want.astype(np.float64), tol


def check_outputs(req, res, blobs):
    """Every dumped buffer against the CPU reference: ({name: max |gpu - cpu|}, problems)."""
    refs = reference(req["kernel"], req["args"])
    errors, problems = {}, []
    for b in res["buffers"]:
        dtype = np.uint8 if b["elem"] == "record" else DTYPES[b["elem"]]
        got = np.frombuffer(blobs[b["blob"]], dtype).astype(np.float64)
        want, tol = expected(req, refs, b["name"])
        diff = float(np.max(np.abs(got - want))) if len(got) else 0.0
        errors[b["name"]] = diff
        if diff > tol:
            problems.append(f"{b['name']}: max |gpu - cpu| = {diff} > {tol}")
    return errors, problems


def check_checksums(req, res):
    """What the editor shows of each buffer (its checksum, the sum of its elements, and its
    first elements) against the CPU reference's: {name: figures}, problems. A checksum may
    differ from the reference's sum by the elements' tolerance summed, and by the rounding of
    two sums of the same elements taken in another order (n ulps of the sum of magnitudes)."""
    refs = reference(req["kernel"], req["args"])
    figures, problems = {}, []
    for b in res["buffers"]:
        if b["elem"] == "record":
            continue
        want, tol = expected(req, refs, b["name"])
        cpu = float(np.sum(want))
        first = max((abs(g - w) for g, w in zip(b["first"], want[:len(b["first"])])), default=0.0)
        figures[b["name"]] = {"output": b["output"], "checksum": b["checksum"], "cpuChecksum": cpu,
                              "checksumDiff": abs(b["checksum"] - cpu), "firstMaxAbsError": first}
        rounding = len(want) * np.finfo(np.float64).eps * float(np.sum(np.abs(want)))
        if abs(b["checksum"] - cpu) > tol * len(want) + rounding or first > tol:
            problems.append(f"{b['name']}: checksum {b['checksum']} against {cpu} on the CPU, "
                            f"first elements off by up to {first} (tolerance {tol} an element)")
    return figures, problems


def with_header(request, **changes):
    """The request with its header's fields changed, its blobs (the cubin first) as they were."""
    nl = request.index(b"\n")
    header = json.loads(request[:nl])
    header.update(changes)
    return json.dumps(header).encode() + request[nl:]


def find_ncu():
    for d in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"):
        if d and os.access(os.path.join(d, "bin/ncu"), os.X_OK):
            return os.path.join(d, "bin/ncu")
    return shutil.which("ncu") or "ncu"


def editor_run(gpu_exec, name, request, out_dir):
    """A kernelscope/run request as the language server sent it: run unchanged (the result the
    editor gets, its checksums against the CPU's), timed over 5 processes, then once with its
    buffers dumped for an element-wise check."""
    req, _ = split(request)
    walls, out = [], None
    for _ in range(5):
        got, wall, err = run(gpu_exec, request)
        out = out or got
        walls.append(wall)
    res, _ = split(out)
    entry = {"ok": res["ok"], "error": res.get("error", ""), "wallMs": statistics.median(walls),
             "wallMsAll": walls, "execMs": res.get("execMs"),
             "medianMs": statistics.median(res["timesMs"]) if res.get("timesMs") else None}
    if res["ok"]:
        entry["buffers"], problems = check_checksums(req, res)
        dumped, _, _ = run(gpu_exec, with_header(request, dump=True))
        dres, dblobs = split(dumped)
        entry["maxAbsError"], more = check_outputs(req, dres, dblobs) if dres["ok"] else ({}, [dres["error"]])
        entry["problems"] = problems + more
        entry["matches"] = not entry["problems"]
    open(os.path.join(out_dir, name + ".editor-run.result"), "wb").write(strip(out))
    return entry


def ncu_by_hand(ncu, gpu_exec, kernel, request_file, result_file):
    """The two ncu commands ks-gpu-exec runs for a profile (pipeline/gpu-exec/Ncu.cpp), typed
    by hand: the source counters, then the kernel's metrics. Returns (ms, source CSV rows)."""
    common = [ncu, "--clock-control", "none", "-k", "regex:^" + kernel + "$", "-c", "1", "--csv"]
    program = [gpu_exec, "--request", request_file, "--result", result_file]
    start = time.perf_counter()
    source = subprocess.run(common + ["--section", "SourceCounters", "--page", "source",
                                      "--print-source", "sass"] + program,
                            capture_output=True, timeout=600, check=True)
    subprocess.run(common + ["--page", "raw", "--metrics", NCU_METRICS] + program,
                   capture_output=True, timeout=600, check=True)
    rows = sum(1 for line in source.stdout.decode(errors="replace").splitlines() if line.startswith('"'))
    return (time.perf_counter() - start) * 1000, rows


def editor_profile(gpu_exec, name, request, out_dir, repetitions=2):
    """A kernelscope/profile request as the language server sent it, through ks-gpu-exec
    (which runs ncu twice), alternating with the same two ncu commands run by hand on a
    launch-once request."""
    req, _ = split(request)
    once = os.path.join(out_dir, name + ".once.req")
    open(once, "wb").write(with_header(request, mode="launch-once", dump=False))
    ncu, out = find_ncu(), None
    ks_wall, hand_wall = [], []
    for _ in range(repetitions):
        got, wall, err = run(gpu_exec, request)
        out = out or got
        ks_wall.append(wall)
        ms, rows = ncu_by_hand(ncu, gpu_exec, req["kernel"], once, once + ".result")
        hand_wall.append(ms)
    os.remove(once)
    os.remove(once + ".result")
    res, _ = split(out)
    open(os.path.join(out_dir, name + ".editor-profile.result"), "wb").write(out)
    m = statistics.median
    return {"ok": res["ok"], "error": res.get("error", ""), "wallMs": m(ks_wall),
            "wallMsAll": ks_wall, "ncuByHandMs": m(hand_wall), "ncuByHandMsAll": hand_wall,
            "ratio": m(ks_wall) / m(hand_wall), "ncu": ncu,
            "sourceRows": res.get("ncuSource", "").count("\n"), "sourceRowsByHand": rows}


def run(gpu_exec, request):
    start = time.perf_counter()
    p = subprocess.run([gpu_exec], input=request, capture_output=True, timeout=600)
    wall = (time.perf_counter() - start) * 1000
    return p.stdout, wall, p.stderr.decode(errors="replace")


def main():
    gpu_exec, bench, req_dir, out_dir = sys.argv[1:5]
    os.makedirs(out_dir, exist_ok=True)
    summary = {"checks": {}, "profiles": {}, "faults": {}, "bench": {}}
    names = sorted(os.listdir(req_dir))
    for f in names:
        if not f.endswith(".run.req"):
            continue
        name = f[:-len(".run.req")]
        request = open(os.path.join(req_dir, f), "rb").read()
        req, _ = split(request)
        out, wall, err = run(gpu_exec, request)
        res, blobs = split(out)
        entry = {"ok": res["ok"], "error": res.get("error", ""), "wallMs": wall,
                 "medianMs": statistics.median(res["timesMs"]) if res["timesMs"] else None}
        if res["ok"]:
            entry["maxAbsError"], problems = check_outputs(req, res, blobs)
            entry["matches"] = not problems
            entry["problems"] = problems
        summary["checks"][name] = entry
        open(os.path.join(out_dir, name + ".run.result"), "wb").write(strip(out))
        print(name, "run:", json.dumps(entry), err.strip(), flush=True)
    for f in names:
        if not f.endswith(".fault.req"):
            continue
        name = f[:-len(".fault.req")]
        out, wall, err = run(gpu_exec, open(os.path.join(req_dir, f), "rb").read())
        res, _ = split(out)
        summary["faults"][name] = {"reportedAsFault": not res["ok"] and res["errorKind"] == "fault",
                                   "error": res.get("error", "")}
        open(os.path.join(out_dir, name + ".fault.result"), "wb").write(out)
        print(name, "fault:", json.dumps(summary["faults"][name]), flush=True)
    for f in names:
        if not f.endswith(".refuse.req"):
            continue
        name = f[:-len(".refuse.req")]
        p = subprocess.run([gpu_exec], input=open(os.path.join(req_dir, f), "rb").read(),
                           capture_output=True, timeout=600)
        res, _ = split(p.stdout) if p.stdout else ({"ok": True, "errorKind": "", "error": ""}, [])
        summary.setdefault("refused", {})[name] = {
            "exitCode": p.returncode, "refused": p.returncode == 0 and not res["ok"],
            "errorKind": res.get("errorKind", ""), "error": res.get("error", "")}
        open(os.path.join(out_dir, name + ".refuse.result"), "wb").write(p.stdout)
        print(name, "refuse:", json.dumps(summary["refused"][name]), flush=True)
    for f in names:
        if not f.endswith(".profile.req"):
            continue
        name = f[:-len(".profile.req")]
        out, wall, err = run(gpu_exec, open(os.path.join(req_dir, f), "rb").read())
        res, _ = split(out)
        summary["profiles"][name] = {"ok": res["ok"], "error": res.get("error", ""), "wallMs": wall,
                                     "sourceRows": res.get("ncuSource", "").count("\n")}
        open(os.path.join(out_dir, name + ".profile.result"), "wb").write(out)
        print(name, "profile:", json.dumps(summary["profiles"][name]), err.strip()[-2000:], flush=True)
    for f in names:
        if not f.endswith(".bench.req"):
            continue
        name = f[:-len(".bench.req")]
        request = open(os.path.join(req_dir, f), "rb").read()
        req, blobs = split(request)
        cubin = os.path.join(out_dir, name + ".cubin")
        open(cubin, "wb").write(blobs[0])
        a = {x["name"]: x for x in req["args"]}
        if req["kernel"] == "saxpy":
            bench_args = ["saxpy", str(a["y"]["count"]), str(req["runs"])]
        else:
            bench_args = ["matmul", req["kernel"], str(scalar(a["n"], "<I")), str(req["runs"])]
        ks_kernel, ks_wall, ref_kernel, ref_wall = [], [], [], []
        for _ in range(7):  # alternate, so that both see the same machine state
            out, wall, err = run(gpu_exec, request)
            res, _ = split(out)
            if not res["ok"]:
                raise SystemExit(name + ": " + res["error"])
            ks_kernel.append(statistics.median(res["timesMs"]))
            ks_wall.append(wall)
            start = time.perf_counter()
            p = subprocess.run([bench, cubin] + bench_args, capture_output=True, check=True, timeout=600)
            ref_wall.append((time.perf_counter() - start) * 1000)
            ref_kernel.append(json.loads(p.stdout)["medianMs"])
        os.remove(cubin)
        m = statistics.median
        summary["bench"][name] = {
            "kernelMs": m(ks_kernel), "referenceKernelMs": m(ref_kernel), "kernelRatio": m(ks_kernel) / m(ref_kernel),
            "wallMs": m(ks_wall), "referenceWallMs": m(ref_wall), "wallRatio": m(ks_wall) / m(ref_wall),
            "repetitions": 7, "runsPerRepetition": req["runs"]}
        print(name, "bench:", json.dumps(summary["bench"][name]), flush=True)
    for kind, check in (("editor-run", editor_run), ("editor-profile", editor_profile)):
        for f in names:
            if f.endswith("." + kind + ".req"):
                name = f[:-len("." + kind + ".req")]
                request = open(os.path.join(req_dir, f), "rb").read()
                summary.setdefault(kind, {})[name] = entry = check(gpu_exec, name, request, out_dir)
                print(name, kind + ":", json.dumps(entry), flush=True)
    json.dump(summary, open(os.path.join(out_dir, "summary.json"), "w"), indent=2)


if __name__ == "__main__":
    main()
