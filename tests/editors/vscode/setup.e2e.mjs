// End-to-end test of Build It Now's `kernelscope setup` ending when it should, in a real
// VS Code (code-server in headless Chromium) whose kernelscope cache is empty (run.sh points
// KERNELSCOPE_CACHE_DIR at a new folder, KS_SETUP_CACHE): the progress notification's Cancel
// stops setup and every tool it started, and says so without calling it a failure; a window
// that closes while setup runs leaves no setup process behind.
//
// Environment: as e2e.mjs (run.sh sets it), and KS_SETUP_CACHE.

import * as fs from "node:fs";
import * as path from "node:path";
import { noExtensionHostErrors, runSteps, step, STEP_MS, waitUntil } from "./page.mjs";

const URL = process.env.KS_URL;
const USER_DATA = process.env.KS_USER_DATA;
const ARTIFACTS = process.env.KS_ARTIFACTS;
const BIN = process.env.KERNELSCOPE_BIN;
const CACHE = process.env.KS_SETUP_CACHE;
/** How long setup may take to end once told to. */
const STOP_MS = 15000;

function toast(page, pattern) {
  return page.locator(".notifications-toasts .notification-toast", { hasText: pattern });
}

function read(file) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** `pid`'s parent and start time (which tell a process from a later one with its pid). */
function stat(pid) {
  const fields = read(`/proc/${pid}/stat`).replace(/^.*\) /, "").split(" ");
  return fields.length > 20 ? { ppid: fields[1], start: fields[19] } : undefined;
}

/**
 * The processes of a setup into CACHE, pid -> start time: `kernelscope setup` (with CACHE
 * in its environment) and every process under it (the tools it runs).
 */
function setupTree() {
  const pids = fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  const tree = new Map();
  for (const pid of pids) {
    const args = read(`/proc/${pid}/cmdline`).split("\0");
    const env = read(`/proc/${pid}/environ`).split("\0");
    const s = stat(pid);
    if (s && args[0] === BIN && args[1] === "setup" && env.includes(`KERNELSCOPE_CACHE_DIR=${CACHE}`)) tree.set(pid, s.start);
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const pid of pids) {
      const s = stat(pid);
      if (s && !tree.has(pid) && tree.has(s.ppid)) {
        tree.set(pid, s.start);
        grew = true;
      }
    }
  }
  return tree;
}

/** The processes of `seen` still running, with their command lines. */
function stillRunning(seen) {
  return [...seen].filter(([pid, start]) => stat(pid)?.start === start)
    .map(([pid]) => `${pid} ${read(`/proc/${pid}/cmdline`).split("\0").join(" ").slice(0, 120)}`);
}

/**
 * Opens saxpy.rs in a new window, clicks Build It Now, waits until setup runs a tool, and
 * returns the processes of the setup (a few looks, so that each tool started is among them).
 */
async function buildItNow(page) {
  await page.goto(URL);
  await page.locator(".monaco-workbench").waitFor({ timeout: STEP_MS });
  await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "saxpy.rs" }).first().click();
  const offer = toast(page, /nvptx64 core library is not built yet/);
  await offer.first().waitFor({ timeout: STEP_MS });
  await offer.first().locator(".monaco-button", { hasText: "Build It Now" }).click();
  await toast(page, /building the nvptx64 core/).first().waitFor({ timeout: STEP_MS });
  const seen = new Map();
  await waitUntil("kernelscope setup to run a tool", async () => {
    for (const [pid, start] of setupTree()) seen.set(pid, start);
    return seen.size > 1;
  }, STEP_MS);
  for (let i = 0; i < 4; ++i) {
    await page.waitForTimeout(250);
    for (const [pid, start] of setupTree()) seen.set(pid, start);
  }
  console.log(`     ${stillRunning(seen).join("\n     ")}`);
  return seen;
}

/** Waits until none of `seen` runs. */
async function allEnded(seen) {
  await waitUntil("every process of the setup to end", async () => stillRunning(seen).length === 0, STOP_MS).catch((error) => {
    throw new Error(`${error.message}: ${stillRunning(seen).join("; ")}`);
  });
}

runSteps(async (page) => {
  let seen = new Map();
  await step(page, "Build It Now starts kernelscope setup under a progress notification", async () => {
    if (!CACHE || !fs.existsSync(CACHE) || fs.readdirSync(CACHE).length > 0) throw new Error(`KS_SETUP_CACHE is no empty folder: ${CACHE}`);
    seen = await buildItNow(page);
  });

  await step(page, "Cancel stops setup and every tool it started, and says it was cancelled", async () => {
    const progress = toast(page, /building the nvptx64 core/).first();
    await progress.hover();
    await progress.locator(".monaco-button, .action-label", { hasText: /Cancel/ }).first().click();
    await allEnded(seen);
    await toast(page, /building the nvptx64 core was cancelled/).first().waitFor({ timeout: STEP_MS });
    if ((await toast(page, /setup failed/).count()) > 0) throw new Error("the cancel is told as a failure");
    await page.screenshot({ path: path.join(ARTIFACTS, "setup-cancelled.png") });
  });

  await step(page, "a window closed while setup runs leaves no setup process", async () => {
    seen = await buildItNow(page);
    await page.close({ runBeforeUnload: true });
    await allEnded(seen);
  });

  await step(page, "the extension host log shows no kernelscope errors", () => noExtensionHostErrors(USER_DATA));
});
