#!/usr/bin/env python3
"""A stand-in for a GPU machine behind a runner prefix, for tests on machines without one.

kernelscope starts `RUNNER... kernelscope gpu-exec` and speaks the gpu-exec protocol
(pipeline/gpu-exec/GpuExecProtocol.h) with it: one request on stdin (a JSON header line naming the blobs'
sizes, then the blobs, the cubin first), one result on stdout. This fake checks that the request is
one (protocol version, mode, an ELF cubin, every blob there) and answers with a result
recorded on a real GPU (tests/golden/gpu/*.result), its buffers those of the request's plan.

usage: fake-gpu-runner.py [--mode run|profile] [--save-request FILE] [--hang PIDFILE]
                          RESULT kernelscope gpu-exec
  RESULT          a recorded result; {grid} and {block} in it are replaced by the request's
                  launch ("64", "16x16"), so that each configuration of a sweep is answered
                  by the result recorded for it, and {kernel} by the kernel's name, so that
                  each kernel of a file is
  --hang PIDFILE  never answer: write this process's id and that of a child (standing in
                  for ncu) to PIDFILE and wait; only a kill of the process group ends both
"""
import json
import os
import subprocess
import sys


def fail(message):
    sys.stderr.write("fake-gpu-runner: " + message + "\n")
    sys.exit(3)


def main(argv):
    mode = save = hang = None
    while argv and argv[0].startswith("--"):
        option, value = argv[0], argv[1]
        argv = argv[2:]
        if option == "--mode":
            mode = value
        elif option == "--save-request":
            save = value
        elif option == "--hang":
            hang = value
        else:
            fail("unknown option " + option)
    if len(argv) < 3 or argv[-1] != "gpu-exec":
        fail("expected RESULT followed by the gpu-exec command, got " + " ".join(argv))
    result = argv[0]

    request = sys.stdin.buffer.read()
    newline = request.find(b"\n")
    if newline < 0:
        fail("no request header")
    header = json.loads(request[:newline])
    if header.get("protocol") != 1:
        fail("not a protocol 1 request")
    if mode and header.get("mode") != mode:
        fail("asked to " + str(header.get("mode")) + ", expected " + mode)
    blobs = header.get("blobs", [])
    if not blobs or sum(blobs) != len(request) - newline - 1:
        fail("the blobs' sizes do not add up to what came")
    if request[newline + 1 : newline + 5] != b"\x7fELF":
        fail("the first blob is not a cubin (ELF)")
    if save:
        with open(save, "wb") as out:
            out.write(request)

    if hang:
        child = subprocess.Popen(["sleep", "1000"])
        with open(hang + ".tmp", "w") as out:
            out.write("%d %d\n" % (os.getpid(), child.pid))
        os.rename(hang + ".tmp", hang)
        child.wait()
        fail("the stand-in for ncu ended")

    def shape(dims):
        while len(dims) > 1 and dims[-1] == 1:
            dims = dims[:-1]
        return "x".join(str(d) for d in dims)

    result = result.replace("{grid}", shape(header["grid"])).replace("{block}", shape(header["block"]))
    result = result.replace("{kernel}", os.path.basename(str(header.get("kernel", ""))))
    with open(result, "rb") as recorded:
        sys.stdout.buffer.write(fitted(recorded.read(), header))


def fitted(recorded, request):
    """The recorded result as the answer to `request`: kernelscope takes a result only when
    its buffers are the plan's (names, types, counts, in order), so a result recorded for
    another kernel answers with this plan's buffers, the recorded figures in their places."""
    newline = recorded.find(b"\n")
    result = json.loads(recorded[:newline])
    planned = [a for a in request.get("args", []) if "elem" in a]
    if not result.get("ok") or result.get("blobs"):
        return recorded
    was = result.get("buffers", [])
    result["buffers"] = [
        dict(was[i] if i < len(was) else {"checksum": 0.0, "first": []},
             name=a["name"], elem=a["elem"], count=a["count"], output=a["output"], blob=-1)
        for i, a in enumerate(planned)
    ]
    return json.dumps(result).encode() + b"\n"


if __name__ == "__main__":
    main(sys.argv[1:])
