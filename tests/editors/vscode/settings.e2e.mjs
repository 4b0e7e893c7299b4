// End-to-end test of "Open Settings" when no server is found, in code-server (a remote
// window, where the machine-scoped `kernelscope.server.path` is not among the user
// settings): the button must land on the setting, not on "No Settings Found". The profile
// has the .vsix without a server, no setting, and no kernelscope on PATH (run.sh).
//
// Environment: as e2e.mjs (run.sh sets it).

import * as path from "node:path";
import { noExtensionHostErrors, runSteps, step, STEP_MS, waitUntil } from "./page.mjs";

const URL = process.env.KS_URL;
const USER_DATA = process.env.KS_USER_DATA;
const ARTIFACTS = process.env.KS_ARTIFACTS;

runSteps(async (page) => {
  await step(page, "opening a Rust file says the server was not found", async () => {
    await page.goto(URL);
    await page.locator(".monaco-workbench").waitFor({ timeout: STEP_MS });
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "saxpy.rs" }).first().click();
    await page.locator(".notifications-toasts .notification-toast", { hasText: /language server was not found/ }).first()
      .waitFor({ timeout: STEP_MS });
  });

  await step(page, "Open Settings lands on kernelscope.server.path", async () => {
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: /language server was not found/ }).first();
    await toast.locator(".monaco-button", { hasText: "Open Settings" }).click();
    const editor = page.locator(".settings-editor");
    await editor.waitFor({ timeout: STEP_MS });
    const title = await waitUntil("the setting's row", async () => {
      const rows = await editor.locator(".setting-item-contents .setting-item-title").allTextContents();
      return rows.find((t) => /Server: Path/.test(t));
    });
    console.log(`     ${title.replace(/\s+/g, " ")}`);
    const empty = await editor.locator(".no-results-message", { hasText: "No Settings Found" }).isVisible().catch(() => false);
    if (empty) throw new Error("the settings editor says No Settings Found");
    await page.screenshot({ path: path.join(ARTIFACTS, "open-settings.png") });
  });

  await step(page, "the extension host log shows no kernelscope errors", () => noExtensionHostErrors(USER_DATA));
});
