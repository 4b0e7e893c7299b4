// The page of `kernelscope report` in headless Chromium, as a reviewer uses it: click a
// source line and its instructions light up in every stage (exactly the lines explain --json
// maps it to); click an instruction and its source line lights up. The stages show the
// editors' filtered view until "every line" is ticked, and the links hold in both. Screenshots of each step
// go to tests/e2e-artifacts/report/, and each is compared with the one before (a click must
// change what is seen). With --baseline and --profile-result: deltas and heat. Prints one ok/not ok line per check and `N passed, N failed`.
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
  // explain --json counts a stage's lines from 1; the page's rows (data-index) from 0.
  const rowsOf = (stage) => (expected[stage] || []).map((i) => i.line - 1).sort((a, b) => a - b);
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
    const want = rowsOf(stage);
    const got = (await selected(stage)).sort((a, b) => a - b);
    check(`the SAXPY line lights exactly its ${stage} lines`,
      want.length > 0 && JSON.stringify(got) === JSON.stringify(want), `want ${want}, got ${got}`);
  }
  // The rows lit are the instructions explain names, text and all (explain squeezes blanks).
  for (const stage of ["ptx", "sass"]) {
    const texts = await tab.$$eval(`section[data-stage="${stage}"] .line.sel`,
      (rows) => rows.map((r) => r.lastChild.textContent.trim().replace(/\s+/g, " ")));
    const want = expected[stage].map((i) => i.text);
    check(`the ${stage} rows lit are explain's instructions`,
      JSON.stringify(texts) === JSON.stringify(want), `want ${JSON.stringify(want)}, got ${JSON.stringify(texts)}`);
  }
  const background = await tab.$eval(`section[data-stage="ptx"] .line.sel`,
    (r) => getComputedStyle(r).backgroundColor);
  check("lit lines are drawn highlighted", background === "rgb(255, 226, 138)", background);

  // An instruction: its source line lights up, and the rest of that line's code.
  const ptxLine = expected.ptx[0].line - 1;
  const sassLine = expected.sass[0].line - 1;
  await tab.click(`section[data-stage="ptx"] .line[data-index="${ptxLine}"]`);
  await shot("3-ptx-line");
  const src = await selected("source");
  check("a PTX instruction lights its source line", JSON.stringify(src) === JSON.stringify([saxpyLine - 1]), src);
  const related = await tab.$$eval(`section[data-stage="sass"] .line.rel`, (r) => r.length);
  check("and that line's SASS", related === expected.sass.length, related);
  check("the page made no network request", requests.length === 0, requests.join(", "));
  check("the page's script raised no error", errors.length === 0, errors.join("; "));

  // The filtered view, as the editors show it, and every line.
  const rowText = (stage, index) => tab.$eval(`section[data-stage="${stage}"] .line[data-index="${index}"]`,
    (r) => r.innerText);
  const visible = (stage, index) => tab.isVisible(`section[data-stage="${stage}"] .line[data-index="${index}"]`);
  const rawLines = (stage) => tab.$$eval(`section[data-stage="${stage}"] .line`,
    (rows) => rows.map((r) => r.lastChild.textContent));
  const ptxRaw = await rawLines("ptx");
  const sassRaw = await rawLines("sass");
  const loc = ptxRaw.findIndex((t) => t.trim().startsWith(".loc"));
  const sassComment = sassRaw.findIndex((t) => t.trim().startsWith("//"));
  check("the PTX has a .loc line and the SASS a comment line", loc >= 0 && sassComment >= 0, `${loc} ${sassComment}`);
  check("a PTX .loc line is hidden by default", !(await visible("ptx", loc)));
  check("a SASS comment line is hidden by default", !(await visible("sass", sassComment)));
  const compact = await rowText("sass", sassLine);
  check("SASS instructions are compacted as the editors show them",
    /^\d+\/\*[0-9a-f]{4}\*\/ \S/.test(compact) && !/\*\/\s{2,}/.test(compact), JSON.stringify(compact));
  const firstPtx = await tab.$eval(`section[data-stage="ptx"] .line:not(.filtered) .no`, (n) => n.textContent);
  check("line numbers count the view's lines", firstPtx === "1", firstPtx);
  const lit = async (stage) => {
    const want = rowsOf(stage);
    const got = (await selected(stage)).sort((a, b) => a - b);
    const seen = [];
    for (const i of got) if (await visible(stage, i)) seen.push(i);
    return { ok: want.length > 0 && JSON.stringify(got) === JSON.stringify(want) &&
      JSON.stringify(seen) === JSON.stringify(want), detail: `want ${want}, got ${got}, shown ${seen}` };
  };
  await tab.click(`section[data-stage="source"] .line[data-index="${saxpyLine - 1}"]`);
  for (const stage of ["ptx", "sass"]) {
    const r = await lit(stage);
    check(`filtered: the SAXPY line lights and shows exactly its ${stage} lines`, r.ok, r.detail);
  }
  await shot("5-filtered");
  for (const stage of ["mir", "llvm-ir", "ptx", "sass"]) {
    const box = `section[data-stage="${stage}"] input.every-line`;
    if (await tab.$(box)) await tab.click(box);
  }
  await shot("6-every-line");
  check("ticking every line changes what is seen", !shots[shots.length - 1].equals(shots[shots.length - 2]));
  check("the .loc line shows with every line", await visible("ptx", loc));
  check("and the SASS comment", await visible("sass", sassComment));
  const raw = await rowText("sass", sassLine);
  check("and the SASS instruction as nvdisasm wrote it", raw.endsWith(sassRaw[sassLine]), JSON.stringify(raw));
  const locNumber = await tab.$eval(`section[data-stage="ptx"] .line[data-index="${loc}"] .no`, (n) => n.textContent);
  check("line numbers count every line", locNumber === String(loc + 1), locNumber);
  for (const stage of ["ptx", "sass"]) {
    const r = await lit(stage);
    check(`every line: the selection stays on exactly the ${stage} lines`, r.ok, r.detail);
  }
  await tab.click(`section[data-stage="source"] .line[data-index="0"]`);
  await tab.click(`section[data-stage="source"] .line[data-index="${saxpyLine - 1}"]`);
  for (const stage of ["ptx", "sass"]) {
    const r = await lit(stage);
    check(`every line: the SAXPY line lights and shows exactly its ${stage} lines`, r.ok, r.detail);
  }
  await tab.click(`section[data-stage="sass"] .line[data-index="${sassLine}"]`);
  const back = await selected("source");
  check("every line: a SASS instruction lights its source line",
    JSON.stringify(back) === JSON.stringify([saxpyLine - 1]), back);
  check("the toggles raised no error", errors.length === 0, errors.join("; "));

  // With a baseline and a recorded profile (the H200's, replayed): the kernels against the
  // baseline, and the heat on the hot line and on what it became.
  const baseline = path.join(work, "baseline.json");
  const saxpy = explain.kernels.find((k) => k.name === "saxpy");
  const registers = saxpy.registers;
  // As `check --bless` writes it, with two registers fewer than today.
  fs.writeFileSync(baseline, JSON.stringify({ "kernelscope-baseline": 1, arch: explain.arch, "opt-level": 3,
    kernels: { saxpy: { registers: registers - 2, "spill-bytes": 0, "local-memory": 0, stack: 0, "shared-memory": 0,
      instructions: saxpy.instructions.sass, occupancy: saxpy.occupancy.percent, "block-size": 256 } } }));
  const hotPage = path.join(work, "saxpy-profile.html");
  execFileSync(KERNELSCOPE, ["report", kernel, "-o", hotPage, "--baseline", baseline, "--profile-result",
    path.join(ROOT, "tests/golden/gpu/saxpy.profile.result")], { stdio: ["ignore", "pipe", "inherit"] });
  await tab.goto("file://" + hotPage);
  await shot("4-profile-and-baseline");
  const kernels = await tab.textContent("#kernels");
  check("the kernels table shows the registers against the baseline",
    kernels.includes(`${registers} (was ${registers - 2})`), kernels);
  const worse = await tab.$$eval("#kernels td.worse", (cells) => cells.map((c) => c.textContent));
  check("more registers than the baseline is marked worse, and nothing else changed",
    worse.length === 1 && worse[0].startsWith(String(registers)) && !kernels.includes("(was 0)"), worse);
  const hot = await tab.$eval(`section[data-stage="source"] .line[data-index="${saxpyLine - 1}"]`,
    (r) => ({ text: r.textContent, hot: r.classList.contains("hot"), bg: getComputedStyle(r).backgroundColor }));
  check("the hot line has the profile's heat and headline",
    hot.hot && hot.bg.startsWith("rgba(255, 69, 58") && hot.text.includes("stalls · long scoreboard"), JSON.stringify(hot));
  const hotSass = await tab.$$eval(`section[data-stage="sass"] .line.hot`, (r) => r.map((x) => Number(x.dataset.index)));
  check("and its SASS lines are coloured too",
    rowsOf("sass").every((i) => hotSass.includes(i)), `${hotSass} vs ${rowsOf("sass")}`);
  const cold = await tab.$eval(`section[data-stage="source"] .line[data-index="0"]`, (r) => r.classList.contains("hot"));
  check("a line without samples has no heat", !cold);
  check("the profiled page's script raised no error", errors.length === 0, errors.join("; "));
} catch (e) {
  check("the test ran to the end", false, e.stack);
} finally {
  if (browser) await browser.close();
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
