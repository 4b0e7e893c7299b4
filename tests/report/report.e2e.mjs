// The page of `kernelscope report` in headless Chromium, as a reviewer uses it: click a
// source line and its instructions light up in every stage (exactly the lines explain --json
// maps it to); click an instruction and its source line lights up. Screenshots of each step
// go to tests/e2e-artifacts/report/, and each is compared with the one before (a click must
// change what is seen). Prints one ok/not ok line per check and `N passed, N failed`.
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const KERNELSCOPE = process.env.KERNELSCOPE_BIN ?? path.join(ROOT, "build/server/kernelscope");
const CHROMIUM = process.env.KS_CHROMIUM ?? "/usr/lib/chromium/chromium";
const ARTIFACTS = path.join(ROOT, "tests/e2e-artifacts/report");
let passed = 0, failed = 0;
const check = (name, ok, detail) => {
  if (ok) { passed++; console.log(`ok - ${name}`); }
  else { failed++; console.log(`not ok - ${name}${detail !== undefined ? ": " + detail : ""}`); }
  return ok;
};

const work = fs.mkdtempSync(path.join(os.tmpdir(), "kernelscope-report-"));
fs.mkdirSync(ARTIFACTS, { recursive: true });
let browser;
try {
  const kernel = path.join(ROOT, "examples/saxpy.rs");
  const page = path.join(work, "saxpy.html");
  execFileSync(KERNELSCOPE, ["report", kernel, "-o", page], { stdio: ["ignore", "pipe", "inherit"] });
  const explain = JSON.parse(execFileSync(KERNELSCOPE, ["explain", kernel, "--json"], { maxBuffer: 1 << 28 }));
  const source = fs.readFileSync(kernel, "utf8").split("\n");
  const saxpyLine = source.findIndex((l) => l.includes("*y.add(i) = a * *x.add(i) + *y.add(i);")) + 1;
  const expected = explain.lines.find((l) => l.line === saxpyLine).stages;
  check("the page is one file that fetches nothing",
    !/(src|href)=["']?https?:/.test(fs.readFileSync(page, "utf8")));

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  const tab = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  const requests = [];
  tab.on("request", (r) => { if (!r.url().startsWith("file:")) requests.push(r.url()); });
  const errors = [];
  tab.on("pageerror", (e) => errors.push(String(e)));
  await tab.goto("file://" + page);
  const shots = [];
  const shot = async (name) => {
    const png = await tab.screenshot({ path: path.join(ARTIFACTS, name + ".png") });
    shots.push(png);
    return png;
  };
  await shot("1-opened");
  const stages = await tab.$$eval("section.pane", (panes) => panes.map((p) => p.dataset.stage));
  check("source, MIR, LLVM IR, PTX and SASS side by side",
    JSON.stringify(stages) === JSON.stringify(["source", "mir", "llvm-ir", "ptx", "sass"]), stages);
  check("the kernels table lists saxpy with its registers",
    (await tab.textContent("#kernels")).includes("saxpy"));

  // A source line: its instructions light up, exactly, in every stage.
  const selected = (stage) => tab.$$eval(`section[data-stage="${stage}"] .line.sel`,
    (rows) => rows.map((r) => Number(r.dataset.index)));
  await tab.click(`section[data-stage="source"] .line[data-index="${saxpyLine - 1}"]`);
  await shot("2-source-line");
  check("a click changes what is seen", !shots[1].equals(shots[0]));
  for (const stage of ["ptx", "sass", "llvm-ir"]) {
    const want = (expected[stage] || []).map((i) => i.line).sort((a, b) => a - b);
    const got = (await selected(stage)).sort((a, b) => a - b);
    check(`the SAXPY line lights exactly its ${stage} lines`,
      want.length > 0 && JSON.stringify(got) === JSON.stringify(want), `want ${want}, got ${got}`);
  }
  const background = await tab.$eval(`section[data-stage="ptx"] .line.sel`,
    (r) => getComputedStyle(r).backgroundColor);
  check("lit lines are drawn highlighted", background === "rgb(255, 226, 138)", background);

  // An instruction: its source line lights up, and the rest of that line's code.
  const ptxLine = expected.ptx[0].line;
  await tab.click(`section[data-stage="ptx"] .line[data-index="${ptxLine}"]`);
  await shot("3-ptx-line");
  const src = await selected("source");
  check("a PTX instruction lights its source line", JSON.stringify(src) === JSON.stringify([saxpyLine - 1]), src);
  const related = await tab.$$eval(`section[data-stage="sass"] .line.rel`, (r) => r.length);
  check("and that line's SASS", related === expected.sass.length, related);
  check("the page made no network request", requests.length === 0, requests.join(", "));
  check("the page's script raised no error", errors.length === 0, errors.join("; "));
} catch (e) {
  check("the test ran to the end", false, e.stack);
} finally {
  if (browser) await browser.close();
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
