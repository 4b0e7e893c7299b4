#!/usr/bin/env python3
"""Adversarial probes against the kernelscope binary: bad files, bad arguments, hostile
workspaces, abusive LSP traffic, signals, full and read-only disks.

    tests/reliability/probes.py BUILD/server/kernelscope [SOURCE_DIR]

Each probe runs the real binary with its own empty TMPDIR and checks what the user would
see (exit status, message). Afterwards it counts what went wrong in the four ways that
matter, and prints them:

    probes tried, crashes, hangs, files left behind, user files lost

A crash is death by a signal kernelscope did not receive from us (134 is abort); a hang
is a probe that outlived its time limit; files left behind are entries in the probe's
TMPDIR or stray staging entries in its cache afterwards; user files lost compares a
checksum of every file of the example workspace before and after all probes. Probes that
need root (mounting a read-only or full file system) are skipped, and say so, elsewhere.
The exit status is non-zero when any of the four is non-zero or a probe's expectation
fails; KS_RELIABILITY_QUICK=1 skips the two probes that build the nvptx64 core (minutes), and
KS_RELIABILITY_ONLY=TEXT runs only the probes whose name contains TEXT.
"""
import hashlib
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

KS = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "../.."))
QUICK = os.environ.get("KS_RELIABILITY_QUICK") == "1"
ONLY = os.environ.get("KS_RELIABILITY_ONLY", "")
WORK = tempfile.mkdtemp(prefix="ks-reliability-")
HOME_CACHE = os.path.expanduser("~/.cache/kernelscope")
# The probes' own cache, so that what they compile never lands in the user's (results,
# toolchain record, rlibs); the nvptx64 core and the CUDA tools, minutes to make, are the
# user's, reached through links.
CACHE = os.path.join(WORK, "cache")
os.makedirs(CACHE)
for shared in ("sysroot", "cuda-tools"):
    if os.path.isdir(os.path.join(HOME_CACHE, shared)):
        os.symlink(os.path.join(HOME_CACHE, shared), os.path.join(CACHE, shared))
os.environ["KERNELSCOPE_CACHE_DIR"] = CACHE
USER_RESULTS = os.path.join(HOME_CACHE, "results")
results_before = set(os.listdir(USER_RESULTS)) if os.path.isdir(USER_RESULTS) else set()

tried = crashes = hangs = left_behind = 0
failures, skipped = [], []


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def message(obj) -> bytes:
    return frame(json.dumps(obj).encode())


INITIALIZE = message({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})


class Run:
    def __init__(self, code, out, err, hung, seconds):
        self.code, self.out, self.err, self.hung, self.seconds = code, out, err, hung, seconds


def run(args, env=None, stdin=b"", timeout=60, cwd=SRC, on_start=None, fsize=None):
    """Runs kernelscope ARGS in its own session; kills the whole group when it hangs.
    `fsize`: a file-size limit in bytes (ulimit -f) for it."""
    started = time.monotonic()
    limit = (lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))) if fsize else None
    p = subprocess.Popen([KS] + args, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True, preexec_fn=limit)
    if on_start:  # the input goes first, and stdin stays open until on_start is done
        if stdin:
            p.stdin.write(stdin)
            p.stdin.flush()
        on_start(p)
        stdin = None
    try:
        out, err = p.communicate(stdin, timeout=timeout)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        hung = True
    return Run(p.returncode, out, err, hung, time.monotonic() - started)


def probe_env(name, **extra):
    """An environment with a private, empty TMPDIR for the probe."""
    tmp = os.path.join(WORK, "tmp-" + name)
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ, TMPDIR=tmp)
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env, tmp


# What a cache keeps by design even when a compile fails (the toolchain discovery record):
# not left behind, though a staging file inside it would be.
CACHE_RECORDS = {"toolchain"}


def leftovers(*dirs, kept=()):
    found = []
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for root, subdirs, files in os.walk(d):
            for n in subdirs + files:
                if root == d and n not in kept or ".tmp-" in n:
                    found.append(os.path.join(root, n))
            if root != d:
                subdirs[:] = []
    return found


def probe(name, check, expected_signal=None, clean=(), **kwargs):
    """Runs one probe: `kwargs` go to run(); `check(r)` returns what is wrong, or ''."""
    global tried, crashes, hangs, left_behind
    if ONLY not in name:
        return
    tried += 1
    env, tmp = probe_env(name, **kwargs.pop("env_extra", {}))
    r = run(env=env, **kwargs)
    problems = []
    if r.hung:
        hangs += 1
        problems.append("hung (killed after %.0f s)" % r.seconds)
    elif r.code < 0 and -r.code != expected_signal or r.code == 134:
        crashes += 1
        problems.append("crashed (status %d)" % r.code)
    else:
        why = check(r)
        if why:
            problems.append(why)
    left = leftovers(tmp) + leftovers(*clean, kept=CACHE_RECORDS)
    if left:
        left_behind += len(left)
        problems.append("left behind: " + ", ".join(left[:5]))
    status = "ok" if not problems else "FAIL: " + "; ".join(problems)
    print("%-44s %s" % (name, status), flush=True)
    if problems:
        failures.append(name)
        sys.stderr.write("  stderr: %s\n" % r.err.decode(errors="replace")[-800:])


def expect(code, *texts, stream="err"):
    def check(r):
        if r.code != code:
            return "exit %d, expected %d" % (r.code, code)
        text = (r.err if stream == "err" else r.out).decode(errors="replace")
        for t in texts:
            if t not in text:
                return "missing %r in %s" % (t, stream)
        return ""
    return check


def replies(out: bytes):
    msgs = []
    while b"\r\n\r\n" in out:
        head, rest = out.split(b"\r\n\r\n", 1)
        n = int(head.split(b":")[1])
        msgs.append(json.loads(rest[:n]))
        out = rest[n:]
    return msgs


def lsp_expect(predicate, what):
    def check(r):
        msgs = replies(r.out)
        return "" if any(predicate(m) for m in msgs) else "no reply with " + what
    return check


def checksum_tree(root):
    h = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                h[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return h


def can_mount():
    d = tempfile.mkdtemp(dir=WORK)
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", d], capture_output=True).returncode == 0
    if ok:
        subprocess.run(["umount", d])
    return ok


# --- A workspace of the user's, checked for losses at the end -------------------------
ws = os.path.join(WORK, "workspace")
shutil.copytree(os.path.join(SRC, "examples"), ws, symlinks=True)
before = checksum_tree(ws)
saxpy = os.path.join(ws, "saxpy.rs")

# --- Inputs that are not regular files, and bad arguments ------------------------------
fifo = os.path.join(WORK, "kernel-fifo.rs")
os.mkfifo(fifo)
for name, path, text in [("explain /dev/zero", "/dev/zero", "not a regular file"),
                         ("explain /dev/null", "/dev/null", "not a regular file"),
                         ("explain a directory", ws, "is a directory"),
                         ("explain a FIFO", fifo, "is a FIFO"),
                         ("explain a missing file", os.path.join(ws, "nope.rs"), "no such file")]:
    probe(name, expect(2, text), args=["explain", path], timeout=20)
for cmd in (["diff", fifo, saxpy], ["passes", fifo, "--kernel", "k"], ["compare", fifo, saxpy]):
    probe(cmd[0] + " with a FIFO", expect(2, "is a FIFO"), args=cmd, timeout=20)
probe("--save-temps \"\"", expect(2, "--save-temps needs a directory"), args=["explain", saxpy, "--save-temps", ""])
probe("--save-temps under a file", expect(2, "--save-temps: cannot create"),
      args=["explain", saxpy, "--save-temps", saxpy + "/temps"])
probe("--remarks bogus", expect(2, "--remarks needs"), args=["explain", saxpy, "--remarks", "bogus"])
probe("unknown command", expect(2, "unknown command"), args=["frobnicate"])
probe("lsp --port without a token", expect(2, "--port needs a token"), args=["lsp", "--port", "39123"],
      env_extra={"KERNELSCOPE_LSP_TOKEN": None})

# A non-UTF-8 file name with --json.
odd = os.path.join(ws.encode(), b"k\xff\xfe.rs")
shutil.copy(saxpy, odd)
probe("--json with a non-UTF-8 file name", expect(2, "not valid UTF-8"),
      args=["explain", odd.decode(errors="surrogateescape"), "--json", "--stages", "ptx"], timeout=180)
os.unlink(odd)

probe("TMPDIR that does not exist", expect(1, "cannot make a temporary directory", "TMPDIR"),
      args=["explain", saxpy, "--stages", "ptx"], env_extra={"TMPDIR": os.path.join(WORK, "no/such/dir")},
      timeout=180)

# HOME unset: never the shared /tmp/kernelscope-cache another user could plant tools in.
probe("HOME unset", lambda r: "" if r.code in (0, 1) and b"/tmp/kernelscope-cache " not in r.out
      and b"/tmp/kernelscope-cache," not in r.out else "shared cache: " + r.out.decode()[:200],
      args=["doctor"], env_extra={"HOME": None, "XDG_CACHE_HOME": None, "KERNELSCOPE_CACHE_DIR": None})

# Remarks: none means rustc is not asked for them (no remark files among the temps).
temps_none = os.path.join(WORK, "temps-none")
probe("--remarks none asks rustc for none",
      lambda r: "remarks kept" if any(n.startswith("remarks.") for n in os.listdir(temps_none)) else
      ("" if r.code == 0 else "exit %d" % r.code),
      args=["explain", saxpy, "--remarks", "none", "--save-temps", temps_none, "--stages", "ptx"], timeout=180)

# A crate whose metadata loads a library and writes a file: the CLI applies it, visibly (and,
# rustc's IR sent elsewhere by the flag, says it has none instead of showing no kernels).
crate = os.path.join(ws, "crate")
manifest = os.path.join(crate, "Cargo.toml")
original_manifest = open(manifest).read()
pwned = os.path.join(WORK, "written-by-crate.ll")
open(manifest, "w").write(original_manifest.replace(
    "rustc-flags = []", 'rustc-flags = ["--emit=llvm-ir=%s"]' % pwned))
probe("CLI notes workspace values that need trust",
      expect(1, "applied because the workspace is trusted", "--emit=llvm-ir=",
             "rustc made no LLVM IR of the crate where kernelscope reads it"),
      args=["explain", os.path.join(crate, "src/lib.rs"), "--stages", "ptx"], timeout=240)
# The same through an @file argument: rustc would read more arguments from the file, so such
# an argument from a workspace is never passed, trusted or not.
if os.path.exists(pwned):  # written by the trusted probe above: this one must not write it again
    os.remove(pwned)
flags_file = os.path.join(WORK, "flags.txt")
open(flags_file, "w").write("--emit=llvm-ir=%s\n" % pwned)
open(manifest, "w").write(original_manifest.replace(
    "rustc-flags = []", 'rustc-flags = ["--cfg", "@%s"]' % flags_file))
probe("crate rustc-flags with an @file argument",
      lambda r: "the @file was read: %s written" % pwned if os.path.exists(pwned) else
      expect(0, "read more arguments from a file")(r),
      args=["explain", os.path.join(crate, "src/lib.rs"), "--stages", "ptx"], timeout=240)
open(manifest, "w").write(original_manifest)

# A replayed result (or a runner's output) whose buffer is named as a path outside --dump's folder.
hostile = os.path.join(WORK, "hostile.result")
recorded = open(os.path.join(SRC, "tests/golden/gpu/saxpy.run.result"), "rb").read()
open(hostile, "wb").write(recorded.replace(b'"name": "y"', b'"name": "../escaped"', 1))
dump_dir = os.path.join(WORK, "dump")
probe("run --dump with a result naming ../escaped",
      lambda r: "a file was written outside the dump folder" if os.path.exists(os.path.join(WORK, "escaped.npy"))
      else expect(1, "does not answer this request")(r),
      args=["run", saxpy, "--replay", hostile, "--dump", dump_dir], timeout=240)

# A rustup proxy run from a workspace with a rust-toolchain.toml that names its own "toolchain".
proxy_dir = os.path.join(WORK, "proxy")
os.makedirs(os.path.join(proxy_dir, "workspace"), exist_ok=True)
ran_workspace_tc = os.path.join(proxy_dir, "ran")
real_rustc = shutil.which("rustc", path="/usr/bin") or "/usr/bin/rustc"
# rustup's proxies are rustup under another name: a link to it, as in ~/.cargo/bin.
rustup = os.path.join(proxy_dir, "rustup")
open(rustup, "w").write("#!/bin/sh\nif [ -f rust-toolchain.toml ]; then touch %s; fi\nexec %s \"$@\"\n"
                        % (ran_workspace_tc, real_rustc))
os.chmod(rustup, 0o755)
proxy = os.path.join(proxy_dir, "rustc")
if not os.path.lexists(proxy):
    os.symlink("rustup", proxy)
open(os.path.join(proxy_dir, "workspace/rust-toolchain.toml"), "w").write('[toolchain]\npath = "/proc/self/cwd/evil"\n')
probe("rustup proxy in a workspace with rust-toolchain.toml",
      lambda r: "the proxy ran in the workspace" if os.path.exists(ran_workspace_tc) else
      ("" if r.code in (0, 1) else "exit %d" % r.code),
      args=["doctor"], cwd=os.path.join(proxy_dir, "workspace"),
      env_extra={"KERNELSCOPE_RUSTC": proxy, "KERNELSCOPE_CACHE_DIR": os.path.join(proxy_dir, "cache")})

# --- Signals mid-compile: the tool's process group dies, temp dirs go ------------------
def children_of(pid, marker=""):
    rows = subprocess.run(["ps", "-eo", "pid=,ppid=,args="], capture_output=True, text=True).stdout.split("\n")
    return [r.split()[0] for r in rows
            if len(r.split()) > 2 and r.split()[1] == str(pid) and marker in r]


def kill_after_rustc(sig, settle=0.0):
    """Sends `sig` to kernelscope while it compiles (a child rustc with --emit, running for
    `settle` seconds), remembering its tools."""
    def start(p):
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not start.children:
            start.children = children_of(p.pid, "--emit")
            time.sleep(0.01)
        time.sleep(settle)
        os.kill(p.pid, sig)
    start.children = []
    return start


def running(pid):
    """Whether a process still runs (a zombie that init has not reaped yet has ended)."""
    try:
        with open("/proc/%s/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def tools_gone(starter, wait=0.2):
    time.sleep(wait)
    alive = [c for c in starter.children if running(c)]
    return "tool processes left running: " + " ".join(alive) if alive else ""


for sig in (signal.SIGINT, signal.SIGTERM):
    starter = kill_after_rustc(sig)

    def orphans_gone(r, starter=starter, sig=sig):
        if not starter.children:
            return "no tool was running when the signal came"
        return tools_gone(starter) or ("" if r.code == -sig else "exit %d, expected death by signal %d" % (r.code, sig))
    # Not from the result cache (an earlier probe may have kept saxpy's): a compile runs.
    probe("%s to explain mid-compile" % signal.Signals(sig).name, orphans_gone, expected_signal=sig,
          args=["explain", saxpy], on_start=starter, timeout=60,
          env_extra={"KERNELSCOPE_RESULT_CACHE_MB": "0"})

# SIGKILL reaches no handler: the tool dies with kernelscope all the same (the kernel's
# parent-death signal). Many kernels keep rustc busy for seconds, long after the check.
many = os.path.join(ws, "many.rs")
with open(many, "w") as f:
    f.write("#![no_std]\n#![feature(abi_ptx)]\n")
    for k in range(300):
        f.write('#[no_mangle]\npub unsafe extern "ptx-kernel" fn k%d(n: usize, x: *mut f32) {\n'
                "    let mut s = 0.0f32;\n    for i in 0..n { s += *x.add(i) * %d.0; *x.add(i) = s; }\n}\n"
                % (k, k))
    f.write("#[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! { loop {} }\n")
kill_starter = kill_after_rustc(signal.SIGKILL, settle=0.5)


def tools_died_with_it(r):
    if not kill_starter.children:
        return "no tool was running when the signal came"
    alive = tools_gone(kill_starter, wait=0.5)
    # Nothing removes a temp dir when killed outright: the next kernelscope does.
    env, tmp = probe_env("SIGKILL to explain mid-compile, then another kernelscope")
    left = os.listdir(tmp)
    if not left:
        return alive or "the killed explain had no temp dir, so the sweep went untested"
    again = run(["doctor"], env=env, timeout=60)
    return alive or ("the next kernelscope left the dead one's %s (exit %d)" % (os.listdir(tmp), again.code)
                     if os.listdir(tmp) else "")


probe("SIGKILL to explain mid-compile, then another kernelscope", tools_died_with_it,
      expected_signal=signal.SIGKILL, args=["explain", many, "--stages", "ptx"], on_start=kill_starter, timeout=60)

# Whoever reads kernelscope's output goes away (a closed editor window, `| head`): it ends
# as on SIGTERM, its tools killed and its temp dirs removed, not by SIGPIPE at a later write.
def close_output_after_rustc(p):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not close_output_after_rustc.children:
        close_output_after_rustc.children = children_of(p.pid, "--emit")
        time.sleep(0.01)
    time.sleep(0.5)
    p.stdout.close()
    p.stderr.close()


close_output_after_rustc.children = []
probe("explain whose reader goes away mid-compile",
      lambda r: tools_gone(close_output_after_rustc) if close_output_after_rustc.children else "no tool was running",
      expected_signal=signal.SIGTERM, args=["explain", many, "--stages", "ptx"],
      on_start=close_output_after_rustc, timeout=60)

# A reader of `explain --json --stream` takes the first stages (MIR, LLVM IR and PTX, before
# ptxas) and goes away while the rest is still coming: the command ends as on SIGTERM.
def close_output_after_first_stages(p):
    if select.select([p.stdout], [], [], 120)[0]:  # a line, or the end of the output
        close_output_after_first_stages.first = p.stdout.readline()
    close_output_after_first_stages.children = children_of(p.pid)
    p.stdout.close()
    p.stderr.close()


def stream_ended(r):
    first = close_output_after_first_stages.first
    if b'"pending"' not in first:
        return "no stages came before the end: %r" % first[:200]
    return tools_gone(close_output_after_first_stages) or (
        "" if r.code == -signal.SIGTERM else "exit %d, expected the end SIGTERM gives" % r.code)


close_output_after_first_stages.first = b""
close_output_after_first_stages.children = []
probe("explain --stream whose reader goes away mid-stream", stream_ended,
      expected_signal=signal.SIGTERM, args=["explain", many, "--json", "--stream", "--stages", "ptx,sass"],
      on_start=close_output_after_first_stages, env_extra={"KERNELSCOPE_RESULT_CACHE_MB": "0"}, timeout=120)

server_starter = kill_after_rustc(signal.SIGTERM)
open_saxpy = message({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
    "uri": "file://" + saxpy, "languageId": "rust", "version": 1, "text": open(saxpy).read()}}})
probe("SIGTERM to the server mid-compile",
      lambda r: tools_gone(server_starter) if server_starter.children else "no tool was running",
      expected_signal=signal.SIGTERM, args=["lsp"], on_start=server_starter,
      stdin=INITIALIZE + message({"jsonrpc": "2.0", "method": "initialized", "params": {}}) + open_saxpy,
      timeout=60)

# The language server while it builds the nvptx64 core itself (an empty cache): `exit`
# ends it at once, well within an editor's patience (VS Code kills it after 2 s), and a
# settings change during the build is answered; `exit` or SIGTERM leave no cargo or rustc
# running and no temp dir.
def descendants(pid):
    rows = [r.split(None, 2) for r in subprocess.run(["ps", "-eo", "pid=,ppid=,args="], capture_output=True,
                                                      text=True).stdout.split("\n") if r.strip()]
    found, frontier = {}, {str(pid)}
    while frontier:
        nxt = {r[0]: r[2] if len(r) > 2 else "" for r in rows if r[1] in frontier and r[0] not in found}
        found.update(nxt)
        frontier = set(nxt)
    return found


def during_core_build(finish):
    """on_start: opens a kernel, waits until cargo's rustc builds core, then `finish(p)`."""
    def start(p):
        p.stdin.write(INITIALIZE + message({"jsonrpc": "2.0", "method": "initialized", "params": {}}) + open_saxpy)
        p.stdin.flush()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not any("rustc" in a and "core" in a for a in start.tools.values()):
            start.tools.update(descendants(p.pid))
            time.sleep(0.05)
        time.sleep(1.0)  # well into the build
        start.tools.update(descendants(p.pid))
        start.children = list(start.tools)
        finish(p)
    start.tools, start.children = {}, []
    return start


def exit_now(p):
    exit_now.sent = time.monotonic()
    p.stdin.write(message({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
                           "params": {"settings": {"kernelscope": {"compileCacheMB": 32}}}}) +
                  message({"jsonrpc": "2.0", "id": 9, "method": "shutdown"}) +
                  message({"jsonrpc": "2.0", "method": "exit"}))
    p.stdin.flush()
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        pass  # said by the check; the probe's time limit ends it
    exit_now.took = time.monotonic() - exit_now.sent


def core_build_ended(starter, expected_code, cache):
    def check(r):
        if not any("rustc" in a for a in starter.tools.values()):
            return "the core build never ran rustc: " + " | ".join(starter.tools.values())[:300]
        if r.code != expected_code:
            return "exit %d, expected %d" % (r.code, expected_code)
        if expected_code == 0 and exit_now.took > 1.0:
            return "exit took %.1f s" % exit_now.took
        staging = leftovers(cache, kept=CACHE_RECORDS | {"sysroot"})
        return tools_gone(starter) or ("staging left in the cache: %s" % staging if staging else "")
    return check


for how, finish, code, sig in [("exit", exit_now, 0, None),
                               ("SIGTERM", lambda p: os.kill(p.pid, signal.SIGTERM), -signal.SIGTERM, signal.SIGTERM)]:
    starter = during_core_build(finish)
    empty_cache = os.path.join(WORK, "empty-cache-" + how)
    probe("%s to the server while it builds core" % how, core_build_ended(starter, code, empty_cache),
          expected_signal=sig, args=["lsp"], on_start=starter, timeout=180,
          env_extra={"KERNELSCOPE_CACHE_DIR": empty_cache})

# --- Abusive LSP traffic -------------------------------------------------------------
deep = b"[" * 2_000_000 + b"]" * 2_000_000
probe("2 MB of nested arrays before initialize",
      lsp_expect(lambda m: "nests deeper" in m.get("error", {}).get("message", ""), "a nesting error"),
      args=["lsp"], stdin=frame(deep))
cancel = b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
probe("200 KB nested $/cancelRequest after initialize",
      lsp_expect(lambda m: m.get("id") == 2 and "result" in m, "an answer to shutdown"),
      args=["lsp"], stdin=INITIALIZE + frame(cancel) + message({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
probe("a Content-Length of 100 GB, then the stream ends",
      lambda r: "" if r.code == 1 and len(r.out) < 1000 else "exit %d" % r.code,
      args=["lsp"], stdin=b"Content-Length: 100000000000\r\n\r\n{}" + INITIALIZE)
toml_ws = os.path.join(WORK, "toml-ws")
os.makedirs(toml_ws)
with open(os.path.join(toml_ws, "kernelscope.toml"), "w") as f:
    f.write("stages = " + "[" * 500_000 + "]" * 500_000 + "\n")
init_at = lambda root: message({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                "params": {"rootUri": "file://" + root, "capabilities": {}}})
probe("kernelscope.toml of deeply nested arrays",
      lsp_expect(lambda m: m.get("id") == 1 and "result" in m, "an answer to initialize"), args=["lsp"],
      stdin=init_at(toml_ws))
fifo_ws = os.path.join(WORK, "fifo-ws")
os.makedirs(fifo_ws)
os.mkfifo(os.path.join(fifo_ws, "kernelscope.toml"))
probe("kernelscope.toml that is a FIFO",
      lsp_expect(lambda m: "is a FIFO" in m.get("params", {}).get("message", ""), "a message naming the FIFO"),
      args=["lsp"], stdin=init_at(fifo_ws), timeout=20)
hostile_ws = os.path.join(WORK, "hostile-ws")
os.makedirs(hostile_ws)
with open(os.path.join(hostile_ws, "kernelscope.toml"), "w") as f:
    f.write('rustc = "%s/planted-rustc"\n' % hostile_ws)
with open(os.path.join(hostile_ws, "planted-rustc"), "w") as f:
    f.write("#!/bin/sh\ntouch %s/planted-ran\nexit 1\n" % hostile_ws)
os.chmod(os.path.join(hostile_ws, "planted-rustc"), 0o755)
shutil.copy(saxpy, os.path.join(hostile_ws, "k.rs"))
open_k = message({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
    "uri": "file://" + hostile_ws + "/k.rs", "languageId": "rust", "version": 1, "text": open(saxpy).read()}}})
probe("untrusted kernelscope.toml names the rustc",
      lambda r: "the planted rustc ran" if os.path.exists(hostile_ws + "/planted-ran") else
      ("" if b"not applied" in r.out else "no warning"),
      args=["lsp"], timeout=240,
      stdin=init_at(hostile_ws) + message({"jsonrpc": "2.0", "method": "initialized", "params": {}}) + open_k +
      message({"jsonrpc": "2.0", "id": 3, "method": "kernelscope/sync"}) +
      message({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}) + message({"jsonrpc": "2.0", "method": "exit"}))

# --- Caches: read-only, full, damaged ---------------------------------------------------
if not can_mount():
    skipped.append("read-only and full caches (mount needs root)")
else:
    ro = os.path.join(WORK, "ro-cache")
    os.makedirs(ro)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", ro], check=True)
    probe("read-only cache without the core", expect(1, "not writable"),
          args=["explain", saxpy, "--stages", "ptx"], env_extra={"KERNELSCOPE_CACHE_DIR": ro}, timeout=120)
    subprocess.run(["umount", ro])
    # A read-only cache that has the core: crates with path dependencies still compile.
    ro_full = os.path.join(WORK, "ro-cache-with-core")
    os.makedirs(ro_full)
    subprocess.run(["mount", "--bind", HOME_CACHE, ro_full], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", ro_full], check=True)
    probe("read-only cache, crate with a path dependency", expect(0, stream="out"),
          args=["explain", os.path.join(crate, "src/math.rs"), "--stages", "ptx"],
          env_extra={"KERNELSCOPE_CACHE_DIR": ro_full}, timeout=240)
    subprocess.run(["umount", ro_full])
    if QUICK:
        skipped.append("full disk during the core build, damaged core repaired (KS_RELIABILITY_QUICK)")
    else:
        full = os.path.join(WORK, "full-cache")
        os.makedirs(full)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", full], check=True)
        probe("full disk during the core build", expect(1, "is the disk full"), clean=(full,),
              args=["explain", saxpy, "--stages", "ptx"], env_extra={"KERNELSCOPE_CACHE_DIR": full}, timeout=900)
        subprocess.run(["umount", full])

if QUICK:
    pass
else:
    damaged = os.path.join(WORK, "damaged-cache")
    shutil.copytree(os.path.join(HOME_CACHE, "sysroot"), os.path.join(damaged, "sysroot"))
    for root, _, files in os.walk(damaged):
        for f in files:
            if f.startswith("libcore-") and f.endswith(".rlib"):
                os.truncate(os.path.join(root, f), os.path.getsize(os.path.join(root, f)) // 2)
    probe("doctor on a truncated libcore", expect(1, "damaged", stream="out"), args=["doctor"],
          env_extra={"KERNELSCOPE_CACHE_DIR": damaged})
    probe("setup repairs a truncated libcore", expect(0, "nvptx64 core ready"), args=["setup"],
          env_extra={"KERNELSCOPE_CACHE_DIR": damaged}, timeout=900)

# --- The result cache: limits, damaged entries, the environment, eviction --------------
def own_cache(name):
    """A cache of the probe's own (the core and CUDA tools linked in), with results kept."""
    d = os.path.join(WORK, name)
    os.makedirs(d)
    for shared in ("sysroot", "cuda-tools"):
        if os.path.isdir(os.path.join(HOME_CACHE, shared)):
            os.symlink(os.path.join(HOME_CACHE, shared), os.path.join(d, shared))
    return d


def results_cache_env(cache, **extra):
    return dict({"KERNELSCOPE_CACHE_DIR": cache, "KERNELSCOPE_RESULT_CACHE_MB": "64"}, **extra)


def entry_files(cache):
    results = os.path.join(cache, "results")
    return [os.path.join(results, e, "result") for e in os.listdir(results)] if os.path.isdir(results) else []


def says_compiled(n):
    return lambda r: "" if r.code == 0 and (b"%d compiled" % n) in r.err else \
        "exit %d, expected %d compiled: %s" % (r.code, n, r.err.decode(errors="replace")[-200:])


fsize_cache = own_cache("fsize-cache")
probe("ulimit -f while the result is saved",
      lambda r: "no result shown" if b"kernels (sm_" not in r.out else expect(0, "File too large")(r),
      clean=(os.path.join(fsize_cache, "results"),), fsize=11264,
      args=["explain", saxpy, "--stages", "ptx,sass", "--verbose"], env_extra=results_cache_env(fsize_cache),
      timeout=180)

entry_cache = own_cache("entry-cache")
entry_env = results_cache_env(entry_cache)
probe("result cache: first compile kept", says_compiled(1),
      args=["explain", saxpy, "--stages", "ptx", "--verbose"], env_extra=entry_env, timeout=180)
probe("result cache: the second from it", says_compiled(0),
      args=["explain", saxpy, "--stages", "ptx", "--verbose"], env_extra=entry_env, timeout=180)
for what in ("FIFO", "link to /dev/zero", "emptied list of files"):
    for f in entry_files(entry_cache):
        data = open(f, "rb").read()
        os.unlink(f)
        if what == "FIFO":
            os.mkfifo(f)
        elif what == "link to /dev/zero":
            os.symlink("/dev/zero", f)
        else:  # the list of the other files emptied, as if no module were read
            header_end = data.index(b"\n")
            listed = int(data[len(b"ks-entry "):header_end])
            open(f, "wb").write(b"ks-entry 0\n" + data[header_end + 1 + listed:])
    probe("result cache entry: " + what, says_compiled(1),
          args=["explain", saxpy, "--stages", "ptx", "--verbose"], env_extra=entry_env, timeout=60)
probe("result cache: CUDA_PATH set since", says_compiled(1),
      args=["explain", saxpy, "--stages", "ptx", "--verbose"],
      env_extra=dict(entry_env, CUDA_PATH=os.path.join(WORK, "another-cuda")), timeout=180)

evict_cache = own_cache("evict-cache")
foreign = [os.path.join(evict_cache, "results", "0123456789abcdef0123456789abcdef"),
           os.path.join(evict_cache, "results", "photos")]
for d in foreign:
    os.makedirs(d)
    open(os.path.join(d, "keep.bin"), "wb").write(b"x" * (2 << 20))
    os.utime(d, (time.time() - 86400, time.time() - 86400))
probe("result cache eviction leaves folders it did not make",
      lambda r: "removed: " + ", ".join(d for d in foreign if not os.path.exists(os.path.join(d, "keep.bin")))
      if not all(os.path.exists(os.path.join(d, "keep.bin")) for d in foreign) else expect(0, stream="out")(r),
      args=["explain", saxpy, "--stages", "ptx"],
      env_extra=results_cache_env(evict_cache, KERNELSCOPE_RESULT_CACHE_MB="1"), timeout=180)

relative_cwd = os.path.join(WORK, "relative-cwd")
os.makedirs(relative_cwd)
for variable in ("KERNELSCOPE_CACHE_DIR", "XDG_CACHE_HOME"):
    probe("relative %s is ignored" % variable,
          lambda r: "a cache was made in the working directory" if os.listdir(relative_cwd) else
          expect(0, stream="out")(r),
          args=["explain", saxpy, "--stages", "ptx"], cwd=relative_cwd,
          env_extra={variable: "relative-cache", "KERNELSCOPE_RESULT_CACHE_MB": "0",
                     "KERNELSCOPE_CACHE_DIR": None if variable != "KERNELSCOPE_CACHE_DIR" else "relative-cache"},
          timeout=180)
    probe("doctor says a relative %s is ignored" % variable,
          expect(0, "%s=relative-cache is not an absolute path and is ignored" % variable, stream="out"),
          args=["doctor"], cwd=relative_cwd, env_extra={variable: "relative-cache"})

# A crate whose [lib] path is a FIFO: said at once, not after rustc's time limit.
fifo_crate = os.path.join(WORK, "fifo-lib")
os.makedirs(os.path.join(fifo_crate, "src"))
open(os.path.join(fifo_crate, "Cargo.toml"), "w").write(
    '[package]\nname = "k"\nversion = "0.1.0"\nedition = "2021"\n[lib]\npath = "src/root.rs"\n')
shutil.copy(saxpy, os.path.join(fifo_crate, "src/kernel.rs"))
os.mkfifo(os.path.join(fifo_crate, "src/root.rs"))
probe("a crate's [lib] path is a FIFO", expect(0, "src/root.rs", "is a FIFO"),
      args=["explain", os.path.join(fifo_crate, "src/kernel.rs"), "--stages", "ptx"], timeout=60)

# --- Load: a kernelscope.toml of unreadable lines, a thousand files opened at once -------
bad_toml_ws = os.path.join(WORK, "bad-toml-ws")
os.makedirs(bad_toml_ws)
open(os.path.join(bad_toml_ws, "kernelscope.toml"), "w").write("".join("not toml %d\n" % i for i in range(12000)))
probe("kernelscope.toml of 120 KB unreadable lines",
      lsp_expect(lambda m: m.get("id") == 1 and "result" in m, "an answer to initialize"), args=["lsp"],
      stdin=init_at(bad_toml_ws), timeout=10)

many_ws = os.path.join(WORK, "many-ws")
os.makedirs(many_ws)
opens = b""
for i in range(1000):
    path = os.path.join(many_ws, "k%d.rs" % i)
    text = open(saxpy).read()
    open(path, "w").write(text)
    opens += message({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "file://" + path, "languageId": "rust", "version": 1, "text": text}}})


def hover_after_opens(p):
    """Sends the opens and a hover (from a thread: the server's replies are read meanwhile) and
    times the hover's answer."""
    sent = time.monotonic()
    writer = threading.Thread(target=lambda: (p.stdin.write(
        init_at(many_ws) + message({"jsonrpc": "2.0", "method": "initialized", "params": {}}) + opens +
        message({"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": "file://" + os.path.join(many_ws, "k999.rs")},
            "position": {"line": 10, "character": 4}}})), p.stdin.flush()))
    writer.start()
    seen, deadline = b"", time.monotonic() + 30
    while time.monotonic() < deadline and b'"id":5,"jsonrpc":"2.0","result"' not in seen:
        if select.select([p.stdout], [], [], 0.5)[0]:
            seen += os.read(p.stdout.fileno(), 1 << 20)
    hover_after_opens.took = time.monotonic() - sent
    writer.join()
    p.stdin.write(message({"jsonrpc": "2.0", "id": 9, "method": "shutdown"}) +
                  message({"jsonrpc": "2.0", "method": "exit"}))
    p.stdin.flush()


probe("a hover after a thousand files opened at once",
      lambda r: "" if hover_after_opens.took < 5 else "answered after %.1f s" % hover_after_opens.took,
      args=["lsp"], on_start=hover_after_opens, timeout=120)

# --- The user's cache: the probes' results went to their own ---------------------------
tried += 1
ours = set(os.listdir(os.path.join(CACHE, "results"))) if os.path.isdir(os.path.join(CACHE, "results")) else set()
theirs = (set(os.listdir(USER_RESULTS)) if os.path.isdir(USER_RESULTS) else set()) - results_before
problem = ""
if not ours and os.environ.get("KERNELSCOPE_RESULT_CACHE_MB") != "0" and not ONLY:
    problem = "the probes' compiles kept no results in their own cache"
elif ours & theirs:
    problem = "results of the probes in the user's cache: " + ", ".join(sorted(ours & theirs)[:3])
print("%-44s %s" % ("the user's result cache is left alone", "FAIL: " + problem if problem else "ok"), flush=True)
if problem:
    failures.append("the user's result cache is left alone")

# --- The user's files -------------------------------------------------------------------
after = checksum_tree(ws)
lost = sorted(set(before) - set(after)) + sorted(k for k in before if k in after and before[k] != after[k])
subprocess.run(["bash", "-c", "umount %s/* 2>/dev/null; true" % WORK])
shutil.rmtree(WORK, ignore_errors=True)

print()
print("probes tried:      %d" % tried)
print("crashes:           %d" % crashes)
print("hangs:             %d" % hangs)
print("files left behind: %d" % left_behind)
print("user files lost:   %d" % len(lost))
for s in skipped:
    print("skipped:           " + s)
if failures:
    print("failed probes:     " + ", ".join(failures))
sys.exit(1 if crashes or hangs or left_behind or lost or failures else 0)
