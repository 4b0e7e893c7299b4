// End-to-end test of what each line costs, in a real VS Code
// (code-server in headless Chromium): "Show What Each Line Costs" lists the kernel's register
// peak and the lines to look at first, and picking one moves the cursor there.
//
// Environment: as e2e.mjs (run.sh sets it).

import {
  noExtensionHostErrors,
  openAndCompile,
  quickInput,
  runCommand,
  runSteps,
  step,
  STEP_MS,
  waitUntil,
} from "./page.mjs";

const URL = process.env.KS_URL;
const USER_DATA = process.env.KS_USER_DATA;
const FIRST_COMPILE_MS = Number(process.env.KS_TIMEOUT_MS ?? 240000);

/** The cursor's line (1-based) as the status bar gives it ("Ln 71, Col 15"). */
async function cursorLine(page) {
  const where = (await page.locator(".statusbar-item", { hasText: /Ln \d+, Col \d+/ }).first().textContent()) ?? "";
  return Number(where.match(/Ln (\d+)/)?.[1]);
}

runSteps(async (page) => {
  await step(page, "saxpy.rs compiles", async () => {
    await openAndCompile(page, URL, "saxpy.rs", FIRST_COMPILE_MS);
  });

  await step(page, "Show What Each Line Costs lists the register peak and the lines to look at first", async () => {
    await runCommand(page, "kernelscope: Show What Each Line Costs");
    const rows = page.locator(".quick-input-widget .monaco-list-row");
    await rows.filter({ hasText: "saxpy" }).first().waitFor({ timeout: STEP_MS });
    const texts = await rows.allTextContents();
    if (!texts.some((t) => t.includes("saxpy") && /\d+ registers → \d+%/.test(t) && /the peak is \d+ live/.test(t)))
      throw new Error(`no kernel row with its registers, occupancy and peak: ${JSON.stringify(texts)}`);
    const look = texts.find((t) => /^line \d+/.test(t.trim()));
    if (!look) throw new Error(`no line to look at first: ${JSON.stringify(texts)}`);
    const line = Number(look.trim().match(/^line (\d+)/)[1]);
    await quickInput(page).fill(`line ${line}`);
    await rows.filter({ hasText: `line ${line}` }).first().waitFor();
    await page.keyboard.press("Enter");
    await waitUntil(`the cursor on line ${line}`, async () => (await cursorLine(page)) === line);
  });

  await step(page, "no extension host errors", async () => {
    noExtensionHostErrors(USER_DATA);
  });
});
