// Plays a whole clocked 3-point match through GET /play/ by clicking, as two
// people at one browser would: Debian's chromium driven by playwright-core
// (npm). A deterministic policy picks what to click from what the page
// offers (roll; double at the third chance of a game, passed in odd games
// and taken in even ones; a listed play, by turn; next game; accept a
// resignation); the page must reach the match's
// end, download the .mat file (checked to be a 3-point match file with the
// names) and verify the transcript. Then a 1-point Plakoto match the same
// way (its own board, no cube, no .mat: verified only). Screenshots of
// the start, a double waiting and the end go to --shots (CI artefacts,
// not committed).
//
// Usage: node play.mjs --base-url URL --chromium PATH --shots DIR
import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
const base = args["base-url"];
const shots = args.shots;
fs.mkdirSync(shots, { recursive: true });

let failed = false;

// Plays one match on a fresh page: `variant` (the page's select), to
// `length` points, named Alice and Bob; screenshots named `tag-...`.
// Backgammon's .mat download is checked; every match is verified. With
// `clock` (a preset) the match is clocked: both clocks must show, and
// the transcript the page verifies and exports carries the times.
async function playMatch(browser, { variant, length, tag, mat, clock }) {
  const page = await browser.newPage({ viewport: { width: 760, height: 1100 }, acceptDownloads: true });
  page.on("pageerror", (e) => {
    console.error(`play: ${tag}: page error:`, e.message);
    failed = true;
  });
  await page.goto(base + "/play/");
  await page.selectOption("#variant", variant);
  await page.fill("#length", String(length));
  await page.fill("#name-x", "Alice");
  await page.fill("#name-o", "Bob");
  if (clock) await page.selectOption("#clock", clock);
  await page.click("#start");
  await page.waitForSelector("#game:not([hidden])");
  if (clock) {
    // 2 minutes a point (U.S. 2013): 6:00 each, nobody's time running yet.
    const shown = await page.textContent("#clocks");
    if (!(await page.isVisible("#clocks")) || shown !== "Alice 6:00 · Bob 6:00") {
      throw new Error(`${tag}: the clocks show ${JSON.stringify(shown)}`);
    }
  }
  const settled = () => page.waitForFunction(() => document.getElementById("board").complete);
  await settled();
  await page.screenshot({ path: path.join(shots, `${tag}-1-start.png`), fullPage: true });

  let doubles = 0;
  let shotDouble = false;
  let clicks = 0;
  const chances = new Map(); // game -> times a double was offered as a button
  for (let n = 0; n < 6000; n++) {
    const phase = await page.getAttribute("#status", "data-phase");
    if (phase === "match_over") break;
    const has = async (sel) => (await page.locator(sel).count()) > 0;
    const gameNo = Number(await page.getAttribute("#status", "data-game"));
    let target;
    if (await has("#action-double")) chances.set(gameNo, (chances.get(gameNo) || 0) + 1);
    if (await has("#action-double") && chances.get(gameNo) === 3) {
      target = "#action-double";
      doubles++;
    } else if (await has("#action-roll")) {
      target = "#action-roll";
    } else if (await has("#action-take")) {
      if (!shotDouble) {
        await settled();
        await page.screenshot({ path: path.join(shots, `${tag}-2-double-waiting.png`), fullPage: true });
        shotDouble = true;
      }
      target = gameNo % 2 === 1 ? "#action-pass" : "#action-take";
    } else if (await has("#action-accept")) {
      target = "#action-accept";
    } else if (await has("#action-next_game")) {
      target = "#action-next_game";
    } else if (await has("#plays button")) {
      const count = await page.locator("#plays button").count();
      target = `#play-${(n * 7) % count}`;
    } else {
      throw new Error(`${tag}: nothing to click in phase ${phase}: ${await page.textContent("#error")}`);
    }
    const before = await page.getAttribute("body", "data-step");
    await page.click(target);
    await page.waitForFunction(
      (b) => document.body.dataset.step !== b || document.getElementById("error").textContent !== "",
      before,
    );
    const error = await page.textContent("#error");
    if (error) throw new Error(`${tag}: after clicking ${target}: ${error}`);
    clicks++;
  }
  const status = await page.textContent("#status");
  if (!status.startsWith("Match over:")) throw new Error(`${tag}: no match end after ${clicks} clicks: ${status}`);
  await settled();
  await page.screenshot({ path: path.join(shots, `${tag}-3-match-over.png`), fullPage: true });

  if (mat) {
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
    const file = path.join(shots, `${tag}.mat`);
    await download.saveAs(file);
    const text = fs.readFileSync(file, "utf8");
    for (const want of [` ${length} point match`, "Alice", "Bob"]) {
      if (!text.includes(want)) throw new Error(`${tag}: the .mat file lacks ${JSON.stringify(want)}:\n${text}`);
    }
  } else if (await page.isVisible("#export")) {
    throw new Error(`${tag}: the page offers a .mat file for ${variant}, which has none`);
  }
  await page.click("#verify");
  await page.waitForSelector("#verdict[data-valid]");
  const verdict = await page.textContent("#verdict");
  if ((await page.getAttribute("#verdict", "data-valid")) !== "true") throw new Error(`${tag}: ${verdict}`);
  const games = Number(await page.getAttribute("#status", "data-game"));
  console.log(`play: ${tag}: ${status} ${games} games, ${clicks} clicks, ${doubles} doubles; ${verdict}`);
  await page.close();
}

const browser = await chromium.launch({
  executablePath: args.chromium,
  args: ["--no-sandbox", "--disable-gpu"],
});
try {
  await playMatch(browser, { variant: "standard", length: 3, tag: "backgammon", mat: true, clock: "us-2013" });
  await playMatch(browser, { variant: "plakoto", length: 1, tag: "plakoto", mat: false });
} catch (e) {
  console.error("play: FAILED:", e.message);
  failed = true;
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
