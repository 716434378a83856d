// The summary job of one draws shard (model, year, state): per district and
// race-by-sex group the median, mean and HPD bounds of pred over its draws;
// per race-by-sex group, the state's draws (pred summed over districts within
// each draw) summarised the same way. A pure function of the shard's bytes
// and that shard's enrollment.

import { chunks, internUtf8, parquetTable } from '../../src/corpus/parquet.js';
import { summarizeSorted } from '../../src/arrests/hpd.js';
import { DRAWS, RACES, SEXES } from '../../src/arrests/models.js';

export interface SummarizeArgs {
  file: string;
  bytes: Uint8Array;
  /** The shard's enrollment rows: leaid as a number, race and sex indexes, stu_enroll. */
  enroll: { leaid: Int32Array; race: Uint8Array; sex: Uint8Array; n: Int32Array };
}

export interface SummaryColumns {
  n: number;
  leaid: Int32Array;
  race: Uint8Array;
  sex: Uint8Array;
  draws: Uint16Array;
  median: Float64Array;
  mean: Float64Array;
  /** 3 per row: the 50, 80 and 95 intervals. */
  lo: Float64Array;
  hi: Float64Array;
  /** State rows only: summed enrollment of the districts with draws (NaN when none known). */
  enroll: Float64Array;
}

export interface SummarizeResult {
  district: SummaryColumns;
  state: SummaryColumns;
  rows: number;
  problems: string[];
}

function columns(n: number): SummaryColumns {
  return {
    n, leaid: new Int32Array(n), race: new Uint8Array(n), sex: new Uint8Array(n), draws: new Uint16Array(n),
    median: new Float64Array(n), mean: new Float64Array(n), lo: new Float64Array(3 * n), hi: new Float64Array(3 * n), enroll: new Float64Array(n).fill(Number.NaN),
  };
}

export async function summarizeShard(a: SummarizeArgs): Promise<SummarizeResult> {
  const t = await parquetTable(a.file, a.bytes, ['LEAID', 'RACE', 'SEX', 'pred', 'draw_id']);
  const n = t.numRows;
  const lea = internUtf8(chunks(t, 'LEAID'), n), race = internUtf8(chunks(t, 'RACE'), n), sex = internUtf8(chunks(t, 'SEX'), n);
  const leaNum = lea.dict.map((s) => (/^\d{7}$/.test(s) ? Number(s) : -1));
  const raceIdx = race.dict.map((s) => (RACES as readonly string[]).indexOf(s));
  const sexIdx = sex.dict.map((s) => (SEXES as readonly string[]).indexOf(s));
  const pred = flat(chunks(t, 'pred'), n), drawId = flat(chunks(t, 'draw_id'), n);
  const problems: string[] = [];

  // Groups are contiguous (the shard is sorted by LEAID, RACE, SEX).
  const starts: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i === 0 || lea.ids[i] !== lea.ids[i - 1] || race.ids[i] !== race.ids[i - 1] || sex.ids[i] !== sex.ids[i - 1]) starts.push(i);
  }
  starts.push(n);
  const g = starts.length - 1;
  const d = columns(g);
  const totals = new Float64Array(8 * DRAWS);
  const seen = new Uint8Array(8);
  const buf = new Float64Array(Math.max(1, ...starts.slice(1).map((s, k) => s - starts[k]!)));
  for (let k = 0; k < g; k++) {
    const s = starts[k]!, e = starts[k + 1]!;
    const l = leaNum[lea.ids[s]!]!, r = raceIdx[race.ids[s]!]!, x = sexIdx[sex.ids[s]!]!;
    if (l < 0 || r < 0 || x < 0) { problems.push(`row ${s}: LEAID, RACE or SEX outside the layout`); continue; }
    const v = buf.subarray(0, e - s);
    for (let i = s; i < e; i++) {
      v[i - s] = pred[i]!;
      const draw = drawId[i]!;
      if (draw >= 1 && draw <= DRAWS) totals[(r * 2 + x) * DRAWS + draw - 1]! += pred[i]!;
      else problems.push(`row ${i}: draw_id ${draw} outside 1-${DRAWS}`);
    }
    if (e - s !== DRAWS) problems.push(`LEAID ${l} ${RACES[r]} ${SEXES[x]}: ${e - s} draws, expected ${DRAWS}`);
    v.sort();
    put(d, k, summarizeSorted(v));
    d.leaid[k] = l; d.race[k] = r; d.sex[k] = x; d.draws[k] = e - s;
    seen[r * 2 + x] = 1;
  }

  // State draws: within each draw, pred summed over the districts; enrollment summed over those with draws.
  const groups = [...seen.keys()].filter((i) => seen[i]);
  const st = columns(groups.length);
  const withDraws = new Set<string>();
  for (let k = 0; k < g; k++) withDraws.add(`${d.leaid[k]}|${d.race[k]}|${d.sex[k]}`);
  groups.forEach((gi, k) => {
    const v = totals.slice(gi * DRAWS, (gi + 1) * DRAWS).sort();
    put(st, k, summarizeSorted(v));
    st.race[k] = Math.floor(gi / 2); st.sex[k] = gi % 2; st.draws[k] = DRAWS;
    let sum = 0, any = false;
    for (let i = 0; i < a.enroll.n.length; i++) {
      if (a.enroll.race[i] === st.race[k] && a.enroll.sex[i] === st.sex[k] && withDraws.has(`${a.enroll.leaid[i]}|${st.race[k]}|${st.sex[k]}`)) { sum += a.enroll.n[i]!; any = true; }
    }
    st.enroll[k] = any ? sum : Number.NaN;
  });
  return { district: d, state: st, rows: n, problems: problems.slice(0, 20) };
}

function put(c: SummaryColumns, k: number, s: ReturnType<typeof summarizeSorted>): void {
  c.median[k] = s.median; c.mean[k] = s.mean;
  for (let j = 0; j < 3; j++) { c.lo[k * 3 + j] = s.lo[j]!; c.hi[k * 3 + j] = s.hi[j]!; }
}

function flat(parts: ReturnType<typeof chunks>, n: number): Int32Array {
  if (parts.length === 1) return parts[0]!.values as Int32Array;
  const out = new Int32Array(n);
  let at = 0;
  for (const p of parts) { out.set((p.values as Int32Array).subarray(0, p.length), at); at += p.length; }
  return out;
}
