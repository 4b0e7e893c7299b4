// The language server's process, started by the extension rather than by
// vscode-languageclient.
//
// vscode-languageclient logs every exit of a process it spawned as an error, the exit its
// own stop() asks for too: each restart wrote "Server process exited with code 0." as an
// error. Started here (ServerOptions as a function), an exit is reported only when nobody
// asked for it, and a server that does not exit when stopped is killed.

import { ChildProcess, spawn } from "child_process";
import type { OutputChannel } from "vscode";
import type { LanguageClient, ServerOptions } from "vscode-languageclient/node";

/** How long a stopped server may take to exit before it is killed. */
const EXIT_GRACE_MS = 2000;

export class ServerProcess {
  private child: ChildProcess | undefined;
  private stopping = false;

  constructor(
    private readonly command: string,
    private readonly args: string[],
    private readonly log: (line: string) => void,
  ) {}

  /** What LanguageClient starts: the server, its stdio the connection. */
  readonly options: ServerOptions = () =>
    new Promise<ChildProcess>((resolve, reject) => {
      const child = spawn(this.command, this.args, { stdio: ["pipe", "pipe", "pipe"] });
      this.child = child;
      child.once("error", reject);
      child.once("spawn", () => resolve(child));
      child.once("exit", (code, signal) => {
        if (!this.stopping) {
          this.log(`kernelscope: the language server exited unexpectedly (${signal ? `signal ${signal}` : `exit code ${code}`})`);
        }
      });
    });

  /** Stops `client` (shutdown, exit) and waits for the process to end, killing it if it does not. */
  async stop(client: LanguageClient): Promise<void> {
    this.stopping = true;
    const child = this.child;
    await client.stop(EXIT_GRACE_MS).catch(() => undefined);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<boolean>((resolve) => {
      child.once("exit", () => resolve(true));
      setTimeout(() => resolve(false), EXIT_GRACE_MS);
    });
    if (!(await exited)) child.kill("SIGKILL");
  }
}

/**
 * `channel` for the language client's log: writes that fail are dropped. Once the window
 * is gone (closed or reloaded) every write to an output channel throws ("Channel has been
 * closed"), which would turn a request that fails while the client stops into an error of
 * the extension.
 */
export function clientLog(channel: OutputChannel): OutputChannel {
  const quiet = (write: () => void): void => {
    try {
      write();
    } catch {
      // The window is gone: nobody reads this log any more.
    }
  };
  return {
    name: channel.name,
    append: (text) => quiet(() => channel.append(text)),
    appendLine: (text) => quiet(() => channel.appendLine(text)),
    replace: (text) => quiet(() => channel.replace(text)),
    clear: () => quiet(() => channel.clear()),
    show: (...args: unknown[]) => quiet(() => channel.show(...(args as [boolean?]))),
    hide: () => quiet(() => channel.hide()),
    dispose: () => undefined, // the extension owns the channel
  };
}
