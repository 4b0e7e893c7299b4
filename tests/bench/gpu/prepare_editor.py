#!/usr/bin/env python3
"""The editor's path to a GPU, proven on a real one: the language server's kernelscope/run and
kernelscope/profile requests, as an editor sends them, answered by ks-gpu-exec and ncu on a GPU
machine. Behind the README's "The editor's run and profile" figures and the recorded results
in tests/golden/gpu/editor/ that the LSP tests replay.

Three steps, the middle one on the GPU machine:

  prepare_editor.py capture KERNELSCOPE OUTDIR
      Here: starts the language server (`KERNELSCOPE lsp`, LSP over stdio), opens each kernel's
      file as an editor does, and sends kernelscope/run and kernelscope/profile with a runner
      (the gpuRunner setting) that saves the gpu-exec request the server sends
      (tests/gpu/fake/fake-gpu-runner.py --save-request): OUTDIR/requests/NAME.editor-run.req
      and NAME.editor-profile.req. Stages ks-gpu-exec's sources (stage_gpu_exec.sh) and
      run_device.py in OUTDIR.
  On the GPU machine, in OUTDIR:
      cmake -S src/pipeline/gpu-exec -B build -DNLOHMANN_JSON_INCLUDE_DIR=$PWD/include && cmake --build build
      python3 run_device.py build/ks-gpu-exec /bin/true requests results
      (each request as the server sent it, through the real ks-gpu-exec; outputs checked against
      a CPU reference; ks-gpu-exec's profile timed against ncu run by hand)
  prepare_editor.py replay KERNELSCOPE DEVICE_DIR GOLDEN_DIR
      Here, DEVICE_DIR being OUTDIR with the GPU machine's results/ and device-log.txt in it:
      keeps in GOLDEN_DIR (tests/golden/gpu/editor) each result (NAME.run.result,
      NAME.profile.result), the header of the request it answers (NAME.run.request.json, ...),
      run_device.py's summary (device-summary.json) and the log; then sends the same requests
      again, the runner now answering with those results, and writes to
      GOLDEN_DIR/editor-summary.json what the editor receives (the run's figures and checksums,
      the profile's hottest lines, their inlay hints and hover) and the server's own time per
      request (its answer's time less the runner's).
The LSP test "the editor's Run and Profile of the examples" replays results through the server
and keeps what the editor shows as GOLDEN_DIR/NAME.{run,profile}.expected (UPDATE_GOLDEN=1
rewrites them).
"""
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
FAKE = os.path.join(ROOT, "tests/gpu/fake/fake-gpu-runner.py")
# The kernels: name, file (under ROOT). Each has a launch spec in its file.
KERNELS = [("saxpy", "examples/saxpy.rs"), ("reduce_sum", "examples/reduce_sum.rs"),
           ("matmul_tiled", "examples/matmul_tiled.rs")]
REPEATS = 5  # requests per kernel and mode in the replay, for the server's own time
TIMEOUT = 300


class Server:
    """The language server over stdio, as an editor starts it: messages in Content-Length
    frames, each received one stamped with the time it arrived."""

    def __init__(self, kernelscope, env):
        self.proc = subprocess.Popen([kernelscope, "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env, cwd=ROOT)
        self.inbox = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put((time.time(), None))
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.inbox.put((time.time(), json.loads(out.read(length))))

    def send(self, message):
        body = json.dumps(dict(message, jsonrpc="2.0")).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def wait_for(self, match, seen=None):
        """Reads messages until `match(message)`; answers the server's own requests (progress
        tokens, registrations, refreshes) as an editor does; returns (time, message)."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            at, m = self.inbox.get(timeout=TIMEOUT)
            if m is None:
                raise SystemExit("the language server ended")
            if "method" in m and "id" in m:
                self.send({"id": m["id"], "result": None})
            if seen is not None:
                seen.append((at, m))
            if match(m):
                return at, m
        raise SystemExit("no answer from the language server in %d s" % TIMEOUT)

    def request(self, method, params, seen=None):
        """Sends a request; returns (seconds to its answer, the answer, what came meanwhile)."""
        rid = self.next_id
        self.next_id += 1
        meanwhile = [] if seen is None else seen
        sent = time.time()
        self.send({"id": rid, "method": method, "params": params})
        at, answer = self.wait_for(lambda m: m.get("id") == rid and "method" not in m, meanwhile)
        return at - sent, answer, meanwhile

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.proc.wait(timeout=30)


def start(kernelscope, env, path):
    """A server with `path` open and compiled (its first diagnostics published)."""
    s = Server(kernelscope, env)
    s.request("initialize", {"processId": os.getpid(), "rootUri": None,
                             "clientInfo": {"name": "prepare_editor"},
                             "capabilities": {"window": {"workDoneProgress": True}}})
    s.notify("initialized", {})
    uri = "file://" + path
    s.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "rust", "version": 1, "text": open(path).read()}})
    # Compiled to the end: the cubin (the SASS stage) is what a launch needs.
    s.wait_for(lambda m: m.get("method") == "kernelscope/status" and m["params"]["uri"] == uri
               and m["params"]["state"] == "ready" and "sass" in m["params"]["stages"]
               and not m["params"].get("pending"))
    return s, uri


def set_runner(server, runner):
    server.notify("workspace/didChangeConfiguration",
                  {"settings": {"kernelscope": {"gpuRunner": runner}}})


def gpu_params(uri, kernel, token):
    return {"textDocument": {"uri": uri}, "kernel": kernel, "workDoneToken": token,
            "baseline": "none"}


def capture(kernelscope, outdir):
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(os.path.join(outdir, "requests"))
    subprocess.run([os.path.join(ROOT, "tests/bench/gpu/stage_gpu_exec.sh"), outdir], check=True)
    shutil.copy(os.path.join(ROOT, "tests/bench/gpu/run_device.py"), outdir)
    for kernel, file in KERNELS:
        server, uri = start(kernelscope, dict(os.environ), os.path.join(ROOT, file))
        for mode in ("run", "profile"):
            saved = os.path.join(outdir, "requests", "%s.editor-%s.req" % (kernel, mode))
            # The runner saves the request and answers with an earlier recording (any answer
            # will do: only the request is wanted here).
            recorded = os.path.join(ROOT, "tests/golden/gpu/%s.%s.result" % (kernel, mode))
            set_runner(server, "%s %s --mode %s --save-request %s %s" % (
                sys.executable, FAKE, mode, saved, recorded))
            _, answer, _ = server.request("kernelscope/" + mode, gpu_params(uri, kernel, mode))
            if not os.path.exists(saved):
                raise SystemExit("%s %s: the server sent no request: %s" % (kernel, mode, answer))
            print(kernel, mode, "request:", os.path.getsize(saved), "bytes", flush=True)
        server.close()


def progress_times(sent_at, meanwhile):
    """Seconds from the request to each progress report: {message: seconds}."""
    out = {}
    for at, m in meanwhile:
        if m.get("method") == "$/progress":
            v = m["params"]["value"]
            out.setdefault(v["kind"] + ": " + v.get("message", ""), at - sent_at)
    return out


def hottest(profile, count=3):
    return [{"line": l["line"], "text": l["text"], "share": l["share"],
             "headline": l["headline"], "l2Sectors": l.get("l2Sectors"),
             "l2SectorsIdeal": l.get("l2SectorsIdeal")}
            for l in profile["lines"][:count]]


def editor_view(server, uri, profile):
    """What the editor shows after the profile: the stall hints and the hottest line's hover."""
    hints = server.request("textDocument/inlayHint", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 10000, "character": 0}}})[1]
    labels = [{"line": h["position"]["line"] + 1, "label": h["label"]}
              for h in hints["result"] if "stalls" in h["label"]]
    top = profile["lines"][0]["line"] - 1
    hover = server.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": top, "character": 4}})[1]
    text = (hover["result"] or {}).get("contents", {}).get("value", "")
    return labels, text[text.find("GPU profile"):] if "GPU profile" in text else text


def replay_kernel(kernelscope, env, results, kernel, file):
    server, uri = start(kernelscope, env, os.path.join(ROOT, file))
    entry = {"file": file}
    for mode in ("run", "profile"):
        result = os.path.join(results, "%s.editor-%s.result" % (kernel, mode))
        # Answers at once with the GPU machine's result, reading the request first as gpu-exec
        # does, and writes the time it started and ended to `stamps` (the server's own time is
        # the answer's less that).
        stamps = os.path.join(env["KERNELSCOPE_CACHE_DIR"], "runner-times")
        set_runner(server, "sh -c 'date +%%s.%%N >>\"$1\"; cat >/dev/null; cat \"$0\"; "
                           "date +%%s.%%N >>\"$1\"' %s %s" % (result, stamps))
        own, steps = [], []
        for i in range(REPEATS):
            if os.path.exists(stamps):
                os.remove(stamps)
            sent = time.time()
            seconds, answer, meanwhile = server.request(
                "kernelscope/" + mode, gpu_params(uri, kernel, "%s-%d" % (mode, i)), [])
            if "result" not in answer:
                raise SystemExit("%s %s: %s" % (kernel, mode, answer))
            began, ended = (float(t) for t in open(stamps).read().split())
            own.append((seconds - (ended - began)) * 1000)
            steps.append(progress_times(sent, meanwhile))
        r = answer["result"]
        # The first request compiles the image a launch loads (the cubin with what it calls from
        # core linked in); the others find it compiled.
        e = {"serverOwnMsFirst": own[0], "progressSecondsFirst": steps[0],
             "serverOwnMs": statistics.median(own[1:]), "serverOwnMsAll": own,
             "progressSeconds": steps[-1], "device": r["device"], "launch": r["launch"]}
        if mode == "run":
            e.update(timeMs=r["timeMs"], bandwidth=r.get("bandwidth"), execMs=r.get("execMs"),
                     buffers=[{k: b[k] for k in ("name", "type", "length", "output", "checksum", "first")
                               if k in b} for b in r["buffers"]])
        else:
            hints, hover = editor_view(server, uri, r)
            e.update(kernel=r["kernel"], hottest=hottest(r), hints=hints, hover=hover)
        entry[mode] = e
        print(kernel, mode, "server's own %.1f ms (first %.1f ms)" % (e["serverOwnMs"], own[0]),
              flush=True)
    server.close()
    return entry


def keep(device_dir, golden):
    """The GPU machine's results, the headers of the requests they answer (the cubin left out)
    and its log, as the LSP tests replay them."""
    os.makedirs(golden, exist_ok=True)
    for kernel, _ in KERNELS:
        for mode in ("run", "profile"):
            shutil.copy(os.path.join(device_dir, "results", "%s.editor-%s.result" % (kernel, mode)),
                        os.path.join(golden, "%s.%s.result" % (kernel, mode)))
            request = open(os.path.join(device_dir, "requests", "%s.editor-%s.req" % (kernel, mode)),
                           "rb").read()
            header = json.loads(request[:request.index(b"\n")])
            header.pop("blobs")
            with open(os.path.join(golden, "%s.%s.request.json" % (kernel, mode)), "w") as out:
                json.dump(header, out, indent=2, sort_keys=True)
                out.write("\n")
    shutil.copy(os.path.join(device_dir, "results", "summary.json"),
                os.path.join(golden, "device-summary.json"))
    shutil.copy(os.path.join(device_dir, "device-log.txt"), os.path.join(golden, "device-log.txt"))


def replay(kernelscope, device_dir, golden):
    keep(device_dir, golden)
    results = os.path.join(device_dir, "results")
    # A cache of its own: the profiles it keeps are no baseline of the user's.
    cache = tempfile.mkdtemp(prefix="ks-editor-replay-")
    home = os.path.expanduser("~/.cache/kernelscope")
    for shared in ("sysroot", "cuda-tools"):
        if os.path.isdir(os.path.join(home, shared)):
            os.symlink(os.path.join(home, shared), os.path.join(cache, shared))
    env = dict(os.environ, KERNELSCOPE_CACHE_DIR=cache)
    summary = {}
    try:
        for kernel, file in KERNELS:
            summary[kernel] = replay_kernel(kernelscope, env, results, kernel, file)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    with open(os.path.join(golden, "editor-summary.json"), "w") as out:
        json.dump(summary, out, indent=2)
        out.write("\n")


def main(argv):
    if len(argv) == 3 and argv[0] == "capture":
        capture(os.path.abspath(argv[1]), os.path.abspath(argv[2]))
    elif len(argv) == 4 and argv[0] == "replay":
        replay(os.path.abspath(argv[1]), os.path.abspath(argv[2]), os.path.abspath(argv[3]))
    else:
        sys.stderr.write("usage: prepare_editor.py capture KERNELSCOPE OUTDIR\n"
                         "       prepare_editor.py replay KERNELSCOPE DEVICE_DIR GOLDEN_DIR\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
