// The school explorer (/explore/ on the arrests service) in a real headless Chromium, driven as a
// person would: find a district by name, by state and by leaid with the keyboard, switch every
// control, click the state map, share the address, go Back, narrow the window to a phone's. Each
// step reads what is drawn (Plot's marks, the axis' tick labels, the legend) and compares it with
// the API's own answer. Screenshots go to test-artifacts/ (explore-arrests.png is the README's).

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepScreenshot, launchBrowser, unnamedControls, watchedPage, weighLoads } from './helpers/browser.js';
import { arrestsUrl } from './helpers/http.js';

interface View { leaid: string; model: string; year: string; race: string; sex: string; interval: string; state: string }
interface Rate { race: string; sex: string; year: string; rate_median: number | null; rate_lower: number | null; rate_upper: number | null }
interface District { leaid: string; lea_name: string; state: string; state_name: string }

let browser: Browser;
let info: { synthetic: boolean };
let models: { model: string; description: string; is_default: boolean; years_in_mirror: string[] }[];
let dictionary: { section: string; name: string; type: string; description: string }[];

const api = async <T = any>(path: string): Promise<T[]> => {
  const body = await (await fetch(`${arrestsUrl()}${path}`)).json();
  expect(body.status, path).toBe('success');
  return body.data;
};

beforeAll(async () => {
  browser = await launchBrowser();
  [[info], models, dictionary] = await Promise.all([api('/api/v1'), api('/api/v1/models'), api('/api/v1/data-dictionary')]);
  const race = dictionary.find((d) => d.section === 'parameter' && d.name === 'race')!;
  RACE = Object.fromEntries([...race.description.matchAll(/\b([A-Z]{2}) \(([^)]+)\)/g)].map((m) => [m[1], m[2]]));
}, 60_000);
afterAll(async () => { await browser?.close(); });

/** The view the page's controls show. */
const controls = (page: Page): Promise<View> => page.evaluate(() => {
  const v = (id: string) => (document.getElementById(id) as HTMLSelectElement).value;
  return { leaid: new URL(location.href).searchParams.get('leaid') ?? '', model: v('model'), year: v('year'), race: v('race'), sex: v('sex'), interval: v('interval'), state: v('state') };
});

/** Waits until the page has painted `view` (the API links are written after the charts are drawn). */
async function painted(page: Page, want: Partial<View>): Promise<void> {
  await page.waitForFunction((w) => {
    const links = [...document.querySelectorAll('#links a')].map((a) => a.textContent ?? '').join(' ');
    const u = new URL(location.href).searchParams;
    return links.length > 0 && Object.entries(w).every(([k, v]) => u.get(k) === v && (k === 'leaid' ? links.includes(`/estimates/${v}?`) : k === 'state' || links.includes(`${k}=${v}`)))
      && document.querySelector('#map svg') !== null;
  }, want, { timeout: 15_000 });
}

/** What the district chart draws, read from Plot's SVG: marks, y tick labels and their positions. */
const readChart = (page: Page) => page.evaluate(() => {
  const svg = document.querySelector('#chart svg')!;
  const centre = (e: Element) => { const r = e.getBoundingClientRect(); return r.top + r.height / 2; };
  const ticks = [...svg.querySelectorAll('g[aria-label="y-axis tick label"] text')].map((t) => ({ text: t.textContent ?? '', y: centre(t) }));
  return {
    dots: [...svg.querySelectorAll('g.district-median circle')].map((c) => ({ y: centre(c), title: c.querySelector('title')?.textContent ?? '' })),
    intervals: svg.querySelectorAll('g.district-interval line').length,
    // Each interval's ends on screen (a line's bounding box spans its y1 to y2).
    spans: [...svg.querySelectorAll('g.district-interval line')].map((l) => { const r = l.getBoundingClientRect(); return [r.top, r.bottom]; }),
    stateDots: svg.querySelectorAll('g.state-median > *').length,
    ring: [...svg.querySelectorAll('g.chosen-year circle')].map((c) => Math.round(c.getBoundingClientRect().left)),
    ticks,
    text: svg.textContent ?? '',
    legend: document.getElementById('chart-legend')?.textContent ?? '',
    markup: svg.outerHTML,
    links: [...document.querySelectorAll('#links a')].map((a) => a.getAttribute('href')),
  };
});

/** Asserts the chart against the API's answer for the view: one dot per row with a median, one interval per bounded row, dots where the axis says. */
async function checkChart(page: Page, v: View): Promise<Awaited<ReturnType<typeof readChart>>> {
  const chart = await readChart(page);
  const rows = (await api<Rate>(`/api/v1/estimates/${v.leaid}?model=${v.model}&interval=${v.interval}`)).filter((r) => r.race === v.race && r.sex === v.sex);
  const stateRows = (await api<Rate>(`/api/v1/states/${v.state}?model=${v.model}&interval=${v.interval}`)).filter((r) => r.race === v.race && r.sex === v.sex);
  const withMedian = rows.filter((r) => r.rate_median !== null);
  expect(withMedian.length).toBeGreaterThan(0);
  expect(chart.dots.length).toBe(withMedian.length);
  expect(chart.intervals).toBe(rows.filter((r) => r.rate_lower !== null && r.rate_upper !== null).length);
  expect(chart.stateDots).toBe(stateRows.filter((r) => r.rate_median !== null).length);
  expect(chart.text).toContain('per 1,000');
  // Tick labels: numbers, evenly stepped (a label that rounds its value breaks the step), starting at 0.
  const values = chart.ticks.map((t) => Number(t.text.replace(/,/g, '')));
  expect(values.every((x) => Number.isFinite(x)), chart.ticks.map((t) => t.text).join(' ')).toBe(true);
  expect(values[0]).toBe(0);
  const step = values[1] - values[0];
  for (let i = 1; i < values.length; i++) expect(Math.abs(values[i] - values[i - 1] - step)).toBeLessThan(step * 1e-6);
  // Read each dot off the axis (pixels to value, from the tick labels' positions): it is the API's median x 1000.
  const [a, b] = [chart.ticks[0], chart.ticks[chart.ticks.length - 1]];
  const read = (y: number) => values[0] + ((y - a.y) / (b.y - a.y)) * (values[values.length - 1] - values[0]);
  const unit = (values[values.length - 1] - values[0]) / 200;
  const drawn = chart.dots.map((d) => read(d.y)).sort((x, y) => x - y);
  const want = withMedian.map((r) => r.rate_median! * 1000).sort((x, y) => x - y);
  drawn.forEach((x, i) => expect(Math.abs(x - want[i]), `dot ${i}: drawn ${x}, API ${want[i]} per 1,000`).toBeLessThan(unit * 2));
  // Each interval runs from the API's lower to its upper bound x 1000, read off the same axis (a median of 0 included).
  const spans = chart.spans.map(([top, bottom]) => [read(bottom), read(top)]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const bounds = rows.filter((r) => r.rate_lower !== null && r.rate_upper !== null).map((r) => [r.rate_lower! * 1000, r.rate_upper! * 1000]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  expect(spans.length).toBe(bounds.length);
  spans.forEach(([lo, hi], i) => {
    expect(Math.abs(lo - bounds[i]![0]), `interval ${i} lower: drawn ${lo}, API ${bounds[i]![0]}`).toBeLessThan(unit * 2);
    expect(Math.abs(hi - bounds[i]![1]), `interval ${i} upper: drawn ${hi}, API ${bounds[i]![1]}`).toBeLessThan(unit * 2);
  });
  // Race and sex in words, never as bare codes.
  const words = `${RACE[v.race]} ${SEX[v.sex].toLowerCase()} students`;
  expect(chart.legend).toContain(words);
  expect(chart.dots[0].title).toContain(words);
  expect(chart.dots[0].title).toContain('per 1,000 students');
  expect(`${chart.legend} ${chart.dots.map((d) => d.title).join(' ')}`).not.toMatch(/\b(AM|BL|HI|WH)\b/);
  return chart;
}

// The words the dictionary gives the race codes ("AM (American Indian/Alaska Native), BL (Black), …"); sexes by their common words.
let RACE: Record<string, string> = {};
const SEX: Record<string, string> = { F: 'Female', M: 'Male' };

async function open(path = '', viewport?: { width: number; height: number }) {
  const w = await watchedPage(browser, arrestsUrl(), viewport);
  await w.page.goto(`${arrestsUrl()}/explore/${path}`);
  await w.page.waitForSelector('#map svg', { timeout: 20_000 });
  return w;
}

async function choose(page: Page, id: string, value: string, want: Partial<View>) {
  await page.selectOption(`#${id}`, value);
  await painted(page, want);
}

describe('school explorer in headless Chromium', () => {
  it('the race and sex words are the data dictionary\'s codes, in one labels module', async () => {
    const race = dictionary.find((d) => d.section === 'parameter' && d.name === 'race')!;
    expect(Object.keys(RACE).sort()).toEqual(race.type.split(', ').sort());
    const sex = dictionary.find((d) => d.section === 'parameter' && d.name === 'sex')!;
    expect(Object.keys(SEX).sort()).toEqual(sex.type.split(', ').sort());
    const { page, problems } = await open();
    // a string, not a function: vitest would rewrite a function's import() for Node
    const labels = await page.evaluate("import('/explore/arrests-labels.js').then((m) => ({ race: m.RACE_WORDS, sex: m.SEX_WORDS }))");
    expect(labels).toEqual({ race: RACE, sex: SEX });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('loads light, says the data is synthetic, and selects the API\'s default model with its description', async () => {
    const w = await watchedPage(browser, arrestsUrl());
    const weigh = await weighLoads(w.page);
    await w.page.goto(`${arrestsUrl()}/explore/`);
    await w.page.waitForSelector('#map svg', { timeout: 20_000 });
    await w.page.waitForLoadState('networkidle');
    const { bytes, byUrl } = weigh();
    console.log(`school explorer first load: ${bytes} bytes on the wire over ${byUrl.size} requests`);
    expect(bytes).toBeLessThan(500_000);
    const page = w.page;
    expect(info.synthetic).toBe(true);
    await expect.poll(() => page.locator('#synthetic').isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.locator('#synthetic').textContent()).toBe('Synthetic data: generated in the real layout; it describes no real district.');
    const def = models.find((m) => m.is_default)!;
    expect((await controls(page)).model).toBe(def.model);
    expect(await page.locator('#model-desc').textContent()).toContain(def.description);
    for (const m of models) expect(await page.locator(`#model option[value="${m.model}"]`).getAttribute('title')).toBe(m.description);
    // Words in the controls, no bare codes
    expect(await page.locator('#race option').allTextContents()).toEqual(Object.values(RACE));
    expect(await page.locator('#sex option').allTextContents()).toEqual(['Female', 'Male']);
    // Every control and map dot has a name a screen reader announces (Chromium's accessibility tree).
    expect(await unnamedControls(page)).toEqual([]);
    expect(w.problems).toEqual([]);
    await page.close();
  });

  it('finds a district by name, by state and by leaid with the keyboard; says when nothing matches', async () => {
    const all = await api<District>('/api/v1/districts?limit=1000');
    const { page, problems } = await open();
    // By name: a name no other district's name contains
    const named = all.find((d) => all.filter((o) => o.lea_name.toLowerCase().includes(d.lea_name.toLowerCase())).length === 1)!;
    await page.locator('#q').pressSequentially(named.lea_name.slice(0, -1), { delay: 10 });
    await page.waitForSelector('#results [role=option]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await painted(page, { leaid: named.leaid, state: named.state });
    expect(await page.locator('#title').textContent()).toContain(named.lea_name);
    // By state: the state select lists its districts in the box
    const other = all.find((d) => d.state !== named.state)!;
    await choose(page, 'state', other.state, { state: other.state });
    const ofState = await api<District>(`/api/v1/districts?state=${other.state}&limit=1000`);
    await page.locator('#q').click();
    await page.waitForSelector('#results [role=option]');
    const listed = await page.locator('#results [role=option]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.leaid));
    expect(listed.sort()).toEqual(ofState.map((d) => d.leaid).sort());
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    const first = await page.locator('#results [aria-selected=true]').getAttribute('data-leaid');
    await page.keyboard.press('Enter');
    await painted(page, { leaid: first!, state: other.state });
    // Escape closes the list
    await page.locator('#q').pressSequentially('a');
    await page.waitForSelector('#results [role=option]');
    await page.keyboard.press('Escape');
    expect(await page.locator('#results').isHidden()).toBe(true);
    await page.locator('#q').fill('');
    // By leaid, typed whole, then Enter
    const third = all.find((d) => d.state !== named.state && d.state !== other.state)!;
    await page.locator('#q').pressSequentially(third.leaid);
    await page.keyboard.press('Enter');
    await painted(page, { leaid: third.leaid, state: third.state });
    expect(await page.locator('#title').textContent()).toContain(third.lea_name);
    // No match
    await page.locator('#q').pressSequentially('qqzzxx');
    await expect.poll(() => page.locator('#search-note').textContent(), { timeout: 15_000 }).toContain('No district matches “qqzzxx”');
    expect(await page.locator('#results [role=option]').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('draws the district\'s estimates per 1,000 students with intervals and the state beside; every control changes the chart and the API link; screenshots', async () => {
    const [d] = await api<District>('/api/v1/districts?limit=1');
    const { page, problems } = await open(`?leaid=${d.leaid}`);
    const def = models.find((m) => m.is_default)!;
    await painted(page, { leaid: d.leaid, model: def.model });
    let v = await controls(page);
    let before = await checkChart(page, v);
    await page.locator('#chart').scrollIntoViewIfNeeded();
    await keepScreenshot(page, 'explore-arrests.png');
    // The state estimate in words beside the chart
    const st = (await api<Rate>(`/api/v1/states/${v.state}?model=${v.model}&interval=${v.interval}`)).find((r) => r.race === v.race && r.sex === v.sex && r.year === v.year)!;
    expect(await page.locator('#state-line').textContent()).toContain(`${d.state_name} as a whole, ${RACE[v.race]} ${SEX[v.sex].toLowerCase()} students, ${v.year}: ${Number((st.rate_median! * 1000).toPrecision(3))} per 1,000 students`);
    const many = models.find((m) => m.years_in_mirror.length > 1 && m.model !== v.model)!;
    const steps: [keyof View, string][] = [['model', many.model], ['year', many.years_in_mirror[0]], ['race', v.race === 'WH' ? 'HI' : 'WH'], ['sex', v.sex === 'F' ? 'M' : 'F'], ['interval', '50']];
    for (const [k, value] of steps) {
      await choose(page, k, value, { [k]: value });
      v = await controls(page);
      expect(v[k]).toBe(value);
      const after = await checkChart(page, v);
      expect(after.markup, `${k} changes the chart`).not.toBe(before.markup);
      expect(after.links, `${k} changes the API link`).not.toEqual(before.links);
      if (k === 'year') expect(after.ring).not.toEqual(before.ring);
      before = after;
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('opens on the API\'s default model and, as it covers one school year, says so beside the chart and offers the models fit on several years', async () => {
    const [d] = await api<District>('/api/v1/districts?limit=1');
    const def = models.find((m) => m.is_default)!;
    expect(def.years_in_mirror.length).toBe(1); // the spec's default, unified_m2: 2021-22 only
    const { page, problems } = await open(`?leaid=${d.leaid}`);
    await painted(page, { leaid: d.leaid, model: def.model });
    let v = await controls(page);
    expect((await checkChart(page, v)).dots.length).toBe(1);
    const note = page.locator('#years-note');
    expect(await note.isVisible()).toBe(true);
    expect(await note.locator('p').textContent()).toBe(`One column per series: ${def.model}, the API’s default model, is fit on ${def.years_in_mirror[0]} only, so it has no other school year to draw. For a trend over ${[...new Set(models.flatMap((m) => m.years_in_mirror))].sort().join(', ')}, pick a model fit on several years:`);
    const family = def.model.split('_')[0];
    const several = models.filter((m) => m.years_in_mirror.length > 1 && m.model.startsWith(`${family}_`));
    expect(several.length).toBeGreaterThan(0);
    expect(await note.locator('button').allTextContents()).toEqual(several.map((m) => m.model));
    // One click: the chart spans the model's years (a dot per year with a median, read against the API), the note goes.
    const to = several.find((m) => m.model === 'unified_m4') ?? several[0]!;
    await note.locator('button', { hasText: to.model }).click();
    await painted(page, { leaid: d.leaid, model: to.model });
    v = await controls(page);
    const chart = await checkChart(page, v);
    expect(chart.dots.length).toBeGreaterThan(1);
    expect(new Set(await page.$$eval('#chart g[aria-label="x-axis tick label"] text', (els) => els.map((e) => e.textContent)))).toEqual(new Set(to.years_in_mirror));
    expect(await note.isVisible()).toBe(false);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('maps the state\'s districts with a legend; a click on a dot picks that district', async () => {
    const [d] = await api<District>('/api/v1/districts?limit=1');
    const { page, problems } = await open(`?leaid=${d.leaid}`);
    await painted(page, { leaid: d.leaid });
    const ofState = await api<District>(`/api/v1/districts?state=${d.state}&limit=1000`);
    expect(await page.locator('#map g.map-dot circle, #map g.map-dot-none circle').count()).toBe(ofState.length);
    expect(await page.locator('#map').textContent()).toContain('Arrests per 1,000 students');
    expect(await page.locator('#map svg[class$="-ramp"]').count()).toBe(1);
    // Every mark is keyed: the colour ramp (above), the hollow dots and the picked district's ring.
    expect(await page.locator('#map g.map-picked circle').count()).toBe(1);
    expect(await page.locator('#map-legend').textContent()).toContain('no estimate for this group');
    expect(await page.locator('#map-legend').textContent()).toContain('the district picked');
    expect(await page.locator('#map-note').textContent()).toContain('placed at a random point inside its state’s Census outline');
    // The page reads every page of a paged answer (a real state can hold more districts than a page): seven rows a page here.
    const paged = await page.evaluate(`import('/explore/arrests-api.js').then((m) => m.allRows('/api/v1/districts?state=${d.state}&limit=7')).then((r) => r.map((x) => x.leaid))`);
    expect(paged).toEqual(ofState.map((o) => o.leaid));
    await page.locator('#map-title').evaluate((e) => e.scrollIntoView());
    await keepScreenshot(page, 'explore-arrests-map.png');
    // A dot nothing covers, of another district
    const target = await page.evaluate((current) => {
      const dots = [...document.querySelectorAll('#map g.map-dot circle')] as SVGCircleElement[];
      for (const c of dots) {
        const r = c.getBoundingClientRect();
        const x = r.left + r.width / 2, y = r.top + r.height / 2;
        const leaid = /\((\d{7})\)/.exec(c.querySelector('title')?.textContent ?? '')?.[1];
        if (leaid && leaid !== current && document.elementFromPoint(x, y) === c) return { x, y, leaid };
      }
      return null;
    }, d.leaid);
    expect(target).not.toBeNull();
    await page.mouse.click(target!.x, target!.y);
    await painted(page, { leaid: target!.leaid });
    const picked = ofState.find((o) => o.leaid === target!.leaid)!;
    expect(await page.locator('#title').textContent()).toContain(picked.lea_name);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a shared address restores the view in a new page; Back restores the previous view', async () => {
    const [d] = await api<District>('/api/v1/districts?state=VT&limit=1');
    const { page, problems } = await open(`?leaid=${d.leaid}`);
    await painted(page, { leaid: d.leaid });
    const many = models.find((m) => m.years_in_mirror.length > 1)!;
    await choose(page, 'model', many.model, { model: many.model });
    await choose(page, 'year', many.years_in_mirror[1], { year: many.years_in_mirror[1] });
    await choose(page, 'race', 'WH', { race: 'WH' });
    await choose(page, 'sex', 'F', { sex: 'F' });
    await choose(page, 'interval', '80', { interval: '80' });
    const shared = await controls(page);
    const chart = await readChart(page);
    const second = await watchedPage(browser, arrestsUrl());
    await second.page.goto(page.url());
    await painted(second.page, shared);
    expect(await controls(second.page)).toEqual(shared);
    expect((await readChart(second.page)).dots).toEqual(chart.dots);
    expect(second.problems).toEqual([]);
    await second.page.close();
    // Back: the race before
    await choose(page, 'race', 'HI', { race: 'HI' });
    await page.goBack();
    await painted(page, shared);
    expect(await controls(page)).toEqual(shared);
    await checkChart(page, shared);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('an address with values it does not know (an inherited name as a race) falls back to the defaults, calling nothing that fails', async () => {
    const { page, problems } = await open('?race=constructor&sex=toString&interval=7');
    expect([await page.inputValue('#race'), await page.inputValue('#sex'), await page.inputValue('#interval')]).toEqual(['BL', 'M', '95']);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('fits a 390 px phone without horizontal scroll', async () => {
    const [d] = await api<District>('/api/v1/districts?state=RI&limit=1');
    const { page, problems } = await open(`?leaid=${d.leaid}`, { width: 390, height: 844 });
    await painted(page, { leaid: d.leaid });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // Drawn at the container's width (not a wide drawing shrunk by CSS): Plot's width attribute is the figure's.
    const drawnWidth = () => page.evaluate(() => ['#chart', '#map'].map((f) => [Number(document.querySelector(`${f} svg:not([class$="-ramp"])`)!.getAttribute('width')), document.querySelector(f)!.clientWidth]));
    for (const [svg, box] of await drawnWidth()) { expect(svg).toBeLessThanOrEqual(box); expect(svg).toBeGreaterThan(box - 4); }
    // A wider window redraws wider
    await page.setViewportSize({ width: 900, height: 844 });
    await expect.poll(async () => (await drawnWidth())[0][0], { timeout: 15_000 }).toBeGreaterThan(800);
    for (const [svg, box] of await drawnWidth()) { expect(svg).toBeLessThanOrEqual(box); expect(svg).toBeGreaterThan(box - 4); }
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(async () => (await drawnWidth())[0][0], { timeout: 15_000 }).toBeLessThanOrEqual(390);
    await checkChart(page, await controls(page));
    await keepScreenshot(page, 'explore-arrests-phone.png', true);
    expect(problems).toEqual([]);
    await page.close();
  });
});
