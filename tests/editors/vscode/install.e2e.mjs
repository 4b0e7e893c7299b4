// End-to-end test of the one-step install: a fresh code-server profile with nothing but the
// linux-x64 .vsix (the server inside it, scripts/package-vsix.sh) and no kernelscope
// setting, on a machine whose kernelscope cache is empty (run.sh points
// KERNELSCOPE_CACHE_DIR at a new folder). The extension runs its bundled server, `doctor`
// says in words what is missing (nvdisasm) and offers to build the nvptx64 core; the button
// builds it under a progress notification, and saxpy.rs then compiles to PTX.
//
// Environment: as e2e.mjs (run.sh sets it).

import * as fs from "node:fs";
import * as path from "node:path";
import { focusEditor, group, noExtensionHostErrors, outputChannel, renderedLines, runCommand, runSteps, statusText, step, STEP_MS, waitUntil } from "./page.mjs";

const URL = process.env.KS_URL;
const USER_DATA = process.env.KS_USER_DATA;
const ARTIFACTS = process.env.KS_ARTIFACTS;
const FIRST_COMPILE_MS = Number(process.env.KS_TIMEOUT_MS ?? 240000);

/** The visible notification toasts whose text matches `pattern`. */
function toast(page, pattern) {
  return page.locator(".notifications-toasts .notification-toast", { hasText: pattern });
}

runSteps(async (page) => {
  await step(page, "VS Code loads and saxpy.rs opens, no setting touched", async () => {
    const settings = fs.readFileSync(path.join(USER_DATA, "User", "settings.json"), "utf8");
    if (/kernelscope\./.test(settings)) throw new Error(`the profile has kernelscope settings: ${settings}`);
    await page.goto(URL);
    await page.locator(".monaco-workbench").waitFor({ timeout: STEP_MS });
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "saxpy.rs" }).first().click();
    await page.locator(".tab.active", { hasText: "saxpy.rs" }).waitFor({ timeout: STEP_MS });
  });

  await step(page, "the server that runs is the one inside the .vsix", async () => {
    const started = await waitUntil("the output channel to name the server", async () =>
      /kernelscope: started (\S+)/.exec(outputChannel(USER_DATA))?.[1]);
    console.log(`     ${started}`);
    if (!/\/extensions\/kernelscope\.kernelscope-[^/]*\/server\/kernelscope$/.test(started)) {
      throw new Error(`started ${started}, not the bundled server`);
    }
  });

  await step(page, "doctor says in words what is missing", async () => {
    const words = toast(page, /nvdisasm is missing/);
    await words.first().waitFor({ timeout: STEP_MS });
    const text = (await words.first().textContent()) ?? "";
    console.log(`     ${text.replace(/\s+/g, " ").slice(0, 200)}`);
    if (!/To fix it: .*kernelscope setup/.test(text)) throw new Error(`no fix given: ${text}`);
  });

  await step(page, "Build It Now builds the nvptx64 core under a progress notification", async () => {
    const offer = toast(page, /nvptx64 core library is not built yet/);
    await offer.first().waitFor({ timeout: STEP_MS });
    await offer.first().locator(".monaco-button", { hasText: "Build It Now" }).click();
    await toast(page, /building the nvptx64 core/).first().waitFor({ timeout: STEP_MS });
    await page.screenshot({ path: path.join(ARTIFACTS, "building-core.png") });
    await toast(page, /the nvptx64 core is built/).first().waitFor({ timeout: FIRST_COMPILE_MS });
  });

  await step(page, "saxpy.rs compiles to PTX with no setting touched", async () => {
    await waitUntil("the status bar to say the file compiled", async () => /kernelscope\s*\d+\s*ms/.test(await statusText(page)), FIRST_COMPILE_MS);
    await focusEditor(page, "saxpy.rs");
    await runCommand(page, "kernelscope: Show PTX");
    await group(page, "saxpy.rs · PTX").waitFor({ timeout: STEP_MS });
    await waitUntil("`.entry saxpy` in the PTX", async () =>
      (await renderedLines(page, "saxpy.rs · PTX")).some((l) => /\.entry\s+saxpy\b/.test(l.text)), FIRST_COMPILE_MS);
    await page.screenshot({ path: path.join(ARTIFACTS, "first-compile.png") });
  });

  await step(page, "the extension host log shows no kernelscope errors", () => noExtensionHostErrors(USER_DATA));
});
