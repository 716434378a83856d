// The search box both explorers share (explore/search.js, a WAI-ARIA 1.2 combobox), driven in headless
// Chromium on both pages by the same keystrokes: typing (one search per pause, not per key), ArrowDown and
// ArrowUp (wrapping; aria-activedescendant names the one option marked selected), Home/End (the caret, no
// active option), Escape (closes, then clears), Enter (picks the active option), a click (picks), and an
// answer overtaken by a newer search (never shown). Each step's state is recorded, and the two pages'
// records must be equal: one behaviour, two adapters. The matches expected are literals, checked against
// the fixtures with DuckDB (the governments' and districts' parquet), not read from the API under test.

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, watchedPage } from './helpers/browser.js';
import path from 'node:path';
import { query, table } from './helpers/duckdb.js';
import { arrestsUrl, financeUrl } from './helpers/http.js';
import { ROOT } from './helpers/server.js';

interface Match { id: string; name: string }
interface Side {
  name: string;
  base: () => string;
  /** What is typed: it matches exactly `matches`, in the API's order. */
  text: string;
  matches: Match[];
  /** A shorter text matching more (its answer is the one held back and overtaken). */
  broad: string;
  searchPath: string;
  ready: (page: Page) => Promise<unknown>;
  /** Waits until the page shows `m` as chosen. */
  chosen: (page: Page, m: Match) => Promise<unknown>;
}

const SIDES: Side[] = [
  {
    name: 'finance',
    base: financeUrl,
    text: 'los angeles',
    // /governments?q=: by population, largest first
    matches: [{ id: '061037123085', name: 'LOS ANGELES COUNTY' }, { id: '062037161174', name: 'LOS ANGELES CITY' }],
    broad: 'los',
    searchPath: '/api/v1/governments?q=',
    ready: (page) => page.waitForFunction(() => Number(document.body.dataset.drawn ?? 0) > 0 && !document.body.dataset.busy, undefined, { timeout: 20_000 }),
    chosen: (page, m) => page.waitForFunction((w) => new URL(location.href).searchParams.get('govid') === w.id && document.getElementById('title')?.textContent === w.name && !document.body.dataset.busy, m, { timeout: 20_000 }),
  },
  {
    name: 'school',
    base: arrestsUrl,
    text: 'ashash',
    // /districts?q=: by name
    matches: [{ id: '3300386', name: 'Ashash Unified School District' }, { id: '3301963', name: 'Ashashyork Independent School District' }],
    broad: 'ash',
    searchPath: '/api/v1/districts?q=',
    ready: (page) => page.waitForSelector('#map svg', { timeout: 20_000 }),
    chosen: (page, m) => page.waitForFunction((w) => new URL(location.href).searchParams.get('leaid') === w.id && (document.getElementById('title')?.textContent ?? '').startsWith(`${w.name} (${w.id})`), m, { timeout: 20_000 }),
  },
];

/** The combobox's state as assistive technology reads it, with no page-specific words. */
const snap = (page: Page) => page.evaluate(() => {
  const input = document.getElementById('q') as HTMLInputElement;
  const list = document.getElementById(input.getAttribute('aria-controls') ?? '')!;
  const options = [...list.querySelectorAll('[role=option]')];
  const activeId = input.getAttribute('aria-activedescendant');
  return {
    role: input.getAttribute('role'),
    listRole: list.getAttribute('role'),
    expanded: input.getAttribute('aria-expanded'),
    shown: !list.hidden && list.getBoundingClientRect().height > 0,
    options: options.length,
    // the index of the option aria-activedescendant names (-1: none; -2: it names no option of the list)
    active: activeId === null ? -1 : options.findIndex((o) => o.id === activeId) === -1 ? -2 : options.findIndex((o) => o.id === activeId),
    selected: options.flatMap((o, i) => (o.getAttribute('aria-selected') === 'true' ? [i] : [])),
    value: input.value,
    caret: input.selectionStart,
    focused: document.activeElement === input,
  };
});
type Snap = Awaited<ReturnType<typeof snap>>;

const optionTexts = (page: Page): Promise<string[]> => page.$$eval('#results [role=option]', (els) => els.map((e) => e.textContent ?? ''));

let browser: Browser;
beforeAll(async () => { browser = await launchBrowser(); }, 60_000);
afterAll(async () => { await browser?.close(); });

/** Drives one page through the script; returns its record of states and the problems the page had. */
async function drive(side: Side): Promise<{ record: Record<string, Snap | boolean | number>; problems: string[] }> {
  const { page, problems } = await watchedPage(browser, side.base());
  const searches: string[] = [];
  page.on('request', (r) => { if (r.url().includes(side.searchPath)) searches.push(decodeURIComponent(new URL(r.url()).searchParams.get('q') ?? '')); });
  await page.goto(`${side.base()}/explore/`);
  await side.ready(page);
  const record: Record<string, Snap | boolean | number> = {};
  const input = page.locator('#q');
  const typed = async (text: string) => {
    await input.pressSequentially(text, { delay: 20 });
    await page.waitForFunction((n) => document.querySelectorAll('#results [role=option]').length === n, side.matches.length, { timeout: 10_000 });
  };

  // Typing: one search for the whole text (the keys came faster than the pause), the matches in order, none active.
  // The keys' input events are made by the page's own timers, 20 ms apart: typed through the browser's driver, a
  // machine busy with other test files once let the pause pass between two keys (two searches). A late page runs
  // its timers in the order they are due, so a key's (due sooner) always runs before the search's pause ends,
  // while a search with no pause, or one shorter than 20 ms, would still run once per key. Real key presses drive
  // every later step.
  await input.click();
  await page.evaluate(async (text) => {
    const box = document.getElementById('q') as HTMLInputElement;
    for (const ch of text) {
      box.value += ch;
      box.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((r) => setTimeout(r, 20));
    }
  }, side.text);
  await page.waitForFunction((n) => document.querySelectorAll('#results [role=option]').length === n, side.matches.length, { timeout: 10_000 });
  record.searchesWhileTyping = searches.length;
  record.searchedText = searches.at(-1) === side.text;
  record.typed = await snap(page);
  const texts = await optionTexts(page);
  side.matches.forEach((m, i) => expect(texts[i], `${side.name} option ${i}`).toContain(m.name));

  // The arrows move the active option, wrapping both ways; aria-activedescendant follows.
  for (const key of ['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowUp', 'ArrowUp', 'ArrowUp']) {
    await page.keyboard.press(key);
    record[`${key}#${Object.keys(record).length}`] = await snap(page);
  }
  // Home and End move the caret in the text and leave the options (none active); the list stays open.
  await page.keyboard.press('Home');
  record.home = await snap(page);
  await page.keyboard.press('End');
  record.end = await snap(page);
  // Escape closes the list and keeps the text; a second Escape clears it.
  await page.keyboard.press('Escape');
  record.escape = await snap(page);
  await page.keyboard.press('Escape');
  record.escapeAgain = await snap(page);

  // Type, ArrowDown twice, Enter: the second match is chosen, the box emptied and closed.
  await typed(side.text);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  record.beforeEnter = await snap(page);
  await page.keyboard.press('Enter');
  await side.chosen(page, side.matches[1]!);
  record.afterEnter = await snap(page);

  // A click on an option picks it.
  await typed(side.text);
  await page.locator('#results [role=option]').first().click();
  await side.chosen(page, side.matches[0]!);
  record.afterClick = await snap(page);

  // An answer overtaken by a newer search is never shown: the broad text's answer is held back until the
  // full text's answer is shown, then let go; the list keeps the full text's matches.
  let release = (): void => {};
  const held = new Promise<void>((r) => { release = r; });
  const isBroad = (href: string) => href.includes(side.searchPath) && new URL(href).searchParams.get('q') === side.broad;
  await page.route((u) => isBroad(u.href), async (route) => {
    await held;
    await route.continue();
  });
  await input.pressSequentially(side.broad, { delay: 20 });
  await expect.poll(() => searches.filter((q) => q === side.broad).length, { timeout: 5_000 }).toBe(1);
  await input.pressSequentially(side.text.slice(side.broad.length), { delay: 20 });
  await page.waitForFunction((n) => document.querySelectorAll('#results [role=option]').length === n, side.matches.length, { timeout: 10_000 });
  // Waits for the held answer to have reached the page whole (its body read), not for the route's continue: under
  // a loaded machine (three test files at once) the round trip took longer than a fixed 5 s once.
  const lateAnswer = page.waitForEvent('requestfinished', { predicate: (r) => isBroad(r.url()), timeout: 30_000 });
  release();
  const late = await lateAnswer;
  expect((await late.response())?.status(), 'the held answer arrived').toBe(200);
  await page.waitForTimeout(500); // the late answer has had time to be painted, were it to be
  record.afterStale = await snap(page);
  expect(await optionTexts(page)).toHaveLength(side.matches.length);
  await page.close();
  return { record, problems };
}

describe('the explorers\' shared search combobox (explore/search.js) in headless Chromium', () => {
  it('the expected matches are the fixtures\' own (DuckDB), in the API\'s documented order', async () => {
    const govs = await query(`SELECT canonical_govid AS id, gov_name AS name FROM ${table('canonical_fips_xwalk')} WHERE strpos(lower(gov_name), 'los angeles') > 0 ORDER BY population_acs DESC NULLS LAST, canonical_govid`);
    expect(govs).toEqual(SIDES[0]!.matches);
    const districts = await query(`SELECT leaid AS id, lea_name AS name FROM read_parquet('${path.join(ROOT, 'fixtures/arrests/districts.parquet')}') WHERE strpos(lower(lea_name), 'ashash') > 0 ORDER BY lower(lea_name), leaid`);
    expect(districts).toEqual(SIDES[1]!.matches);
  });

  it('types, moves, wraps, closes, clears, picks by Enter and by click, and ignores a stale answer, the same on both pages', async () => {
    const [finance, school] = [await drive(SIDES[0]!), await drive(SIDES[1]!)];
    const r = finance.record;
    // What the record must say (the finance page's; the school page's must then be equal to it).
    const s = (k: string) => r[k] as Snap;
    expect(r.searchesWhileTyping).toBe(1);
    expect(r.searchedText).toBe(true);
    expect(s('typed')).toMatchObject({ role: 'combobox', listRole: 'listbox', expanded: 'true', shown: true, options: 2, active: -1, selected: [], focused: true });
    const moves = Object.keys(r).filter((k) => k.startsWith('Arrow')).map((k) => [(r[k] as Snap).active, (r[k] as Snap).selected]);
    expect(moves).toEqual([[0, [0]], [1, [1]], [0, [0]], [1, [1]], [0, [0]], [1, [1]]]);
    expect(s('home')).toMatchObject({ expanded: 'true', active: -1, selected: [], caret: 0 });
    expect(s('end')).toMatchObject({ expanded: 'true', active: -1, caret: SIDES[0]!.text.length });
    expect(s('escape')).toMatchObject({ expanded: 'false', shown: false, options: 0, active: -1, value: SIDES[0]!.text });
    expect(s('escapeAgain')).toMatchObject({ expanded: 'false', shown: false, value: '' });
    expect(s('beforeEnter')).toMatchObject({ expanded: 'true', active: 1, selected: [1] });
    expect(s('afterEnter')).toMatchObject({ expanded: 'false', shown: false, options: 0, active: -1, value: '', focused: true });
    expect(s('afterClick')).toMatchObject({ expanded: 'false', shown: false, options: 0, active: -1, value: '' });
    expect(s('afterStale')).toMatchObject({ expanded: 'true', options: 2, value: SIDES[0]!.text });
    // One behaviour: every recorded state of the school page equals the finance page's (the texts typed differ
    // in length only at the caret, so the caret is compared against each page's own text).
    const same = (rec: Record<string, Snap | boolean | number>, side: Side) => JSON.parse(JSON.stringify(rec, (k, v) => (k === 'value' ? (v === side.text ? 'TEXT' : v) : k === 'caret' ? (v === side.text.length ? 'END' : v) : v)));
    expect(same(school.record, SIDES[1]!)).toEqual(same(finance.record, SIDES[0]!));
    expect(finance.problems).toEqual([]);
    expect(school.problems).toEqual([]);
  }, 120_000);
});
