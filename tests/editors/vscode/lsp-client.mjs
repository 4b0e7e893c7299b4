// A minimal stdio LSP client, used by the end-to-end test to ask the kernelscope server
// directly what the editor should be showing (for example `kernelscope/lineMap`), so that
// the highlighted lines in VS Code are checked against the server's own answer.

import { spawn } from "node:child_process";
import * as fs from "node:fs";

export class LspClient {
  constructor(command, args, { cwd } = {}) {
    this.child = spawn(command, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    this.stderr = "";
    this.buffer = Buffer.alloc(0);
    this.child.stdout.on("data", (chunk) => this.onData(chunk));
    this.child.stderr.on("data", (chunk) => (this.stderr = (this.stderr + chunk).slice(-4000)));
    this.exited = new Promise((resolve) => this.child.on("exit", resolve));
  }

  onData(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf("\r\n\r\n");
      if (headerEnd < 0) return;
      const length = Number(/Content-Length:\s*(\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString())?.[1]);
      if (this.buffer.length < headerEnd + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString());
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      this.dispatch(message);
    }
  }

  dispatch(message) {
    if (message.id !== undefined && message.method === undefined) {
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (!waiter) return;
      if (message.error) waiter.reject(new Error(`${message.error.code}: ${message.error.message}`));
      else waiter.resolve(message.result);
    } else if (message.id !== undefined) {
      // A server request (registerCapability, workDoneProgress/create, configuration).
      const result = message.method === "workspace/configuration" ? (message.params?.items ?? []).map(() => null) : null;
      this.write({ jsonrpc: "2.0", id: message.id, result });
    } else {
      for (const listener of this.listeners) listener(message);
    }
  }

  write(message) {
    const text = JSON.stringify(message);
    this.child.stdin.write(`Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  }

  request(method, params, timeoutMs = 60000) {
    const id = this.nextId++;
    this.write({ jsonrpc: "2.0", id, method, params });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
    });
  }

  notify(method, params) {
    this.write({ jsonrpc: "2.0", method, params });
  }

  /** Resolves with the first notification that `predicate` accepts. */
  waitFor(predicate, timeoutMs) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching notification in ${timeoutMs} ms`)), timeoutMs);
      const listener = (message) => {
        if (!predicate(message)) return;
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
        resolve(message);
      };
      this.listeners.push(listener);
    });
  }

  async initialize(rootUri, initializationOptions = undefined) {
    const result = await this.request("initialize", {
      processId: process.pid,
      rootUri,
      initializationOptions,
      capabilities: { general: { positionEncodings: ["utf-16"] }, window: { workDoneProgress: true } },
      workspaceFolders: [{ uri: rootUri, name: "workspace" }],
    });
    this.notify("initialized", {});
    return result;
  }

  async close() {
    try {
      await this.request("shutdown", null, 5000);
      this.notify("exit", null);
    } catch {
      // The kill below ends it anyway.
    }
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 3000);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * What the server itself answers for `kernelscope/lineMap` of one source line, over a
 * connection of its own: opens `source` with the initialization `options`, waits for its
 * first compile and asks with `filters`.
 */
export async function lineMapFromServer({ bin, workspace, source, line, options, filters, timeoutMs }) {
  const uri = "file://" + source;
  const client = new LspClient(bin, ["lsp"], { cwd: workspace });
  try {
    await client.initialize("file://" + workspace, options);
    const ready = client
      .waitFor((m) => m.method === "kernelscope/status" && m.params?.state === "ready", timeoutMs)
      .catch(() => undefined);
    client.notify("textDocument/didOpen", {
      textDocument: { uri, languageId: "rust", version: 1, text: fs.readFileSync(source, "utf8") },
    });
    await ready;
    return await client.request("kernelscope/lineMap", { textDocument: { uri }, line, filters });
  } finally {
    await client.close();
  }
}
