// The district and enrollment tables of the school mirror, checked against
// the manifest and indexed for lookups.

import path from 'node:path';
import { LoadError, parquetTable, readBytes, sha256, tableRows } from '../corpus/parquet.js';
import { STATE_BY_CODE, STATE_BY_FIPS } from '../geo/states.js';
import type { ArrestsManifest } from './manifest.js';
import { RACES, SEXES, YEARS } from './models.js';

export interface District {
  leaid: string;
  lea_name: string;
  state: string;
  state_name: string;
  lat: number | null;
  lon: number | null;
}

export interface EnrollmentTable {
  /** stu_enroll and observed_arrests of a cell (null when unknown or suppressed). */
  get(leaid: number, race: number, sex: number, year: number): { stu_enroll: number | null; observed_arrests: number | null };
  /** A shard's enrollment rows, for the state totals of its summary job. */
  forShard(year: string, state: string): { leaid: Int32Array; race: Uint8Array; sex: Uint8Array; n: Int32Array };
}

async function verified(dir: string, entry: { path: string; sha256: string | null }, columns: string[]) {
  const file = path.join(dir, entry.path);
  const bytes = await readBytes(file);
  if (entry.sha256 !== null && sha256(bytes) !== entry.sha256) throw new LoadError(file, 'sha256 does not match the manifest (corrupt or truncated file)');
  return tableRows(await parquetTable(file, bytes, columns));
}

export async function loadDistricts(dir: string, m: ArrestsManifest): Promise<District[]> {
  const rows = await verified(dir, m.districts, ['leaid', 'lea_name', 'state', 'state_name', 'lat', 'lon']);
  const file = path.join(dir, m.districts.path);
  const out = rows.map((r, i) => {
    const leaid = String(r.leaid);
    if (!/^\d{7}$/.test(leaid)) throw new LoadError(file, `row ${i}: leaid '${leaid}' is not 7 digits`);
    const state = String(r.state);
    if (!STATE_BY_CODE.has(state)) throw new LoadError(file, `row ${i}: state '${state}' is not a state code`);
    return { leaid, lea_name: String(r.lea_name), state, state_name: String(r.state_name), lat: r.lat === null ? null : Number(r.lat), lon: r.lon === null ? null : Number(r.lon) };
  });
  return out.sort((a, b) => (a.leaid < b.leaid ? -1 : 1));
}

export async function loadEnrollment(dir: string, m: ArrestsManifest): Promise<EnrollmentTable> {
  const rows = await verified(dir, m.enrollment, ['leaid', 'race', 'sex', 'year', 'stu_enroll', 'observed_arrests']);
  const key = (leaid: number, race: number, sex: number, year: number): number => ((leaid * 4 + race) * 2 + sex) * 4 + year;
  const cells = new Map<number, { stu_enroll: number | null; observed_arrests: number | null }>();
  const byShard = new Map<string, { leaid: number[]; race: number[]; sex: number[]; n: number[] }>();
  const file = path.join(dir, m.enrollment.path);
  rows.forEach((r, i) => {
    const leaid = Number(r.leaid), race = RACES.indexOf(String(r.race) as never), sex = SEXES.indexOf(String(r.sex) as never), year = YEARS.indexOf(String(r.year) as never);
    if (!/^\d{7}$/.test(String(r.leaid)) || race < 0 || sex < 0 || year < 0) throw new LoadError(file, `row ${i}: leaid, race, sex or year outside the layout`);
    const n = r.stu_enroll === null ? null : Number(r.stu_enroll);
    cells.set(key(leaid, race, sex, year), { stu_enroll: n, observed_arrests: r.observed_arrests === null ? null : Number(r.observed_arrests) });
    const fips = String(r.leaid).slice(0, 2);
    const st = STATE_BY_FIPS.get(fips)?.code ?? '';
    const k = `${YEARS[year]}|${st}`;
    const b = byShard.get(k) ?? byShard.set(k, { leaid: [], race: [], sex: [], n: [] }).get(k)!;
    if (n !== null) { b.leaid.push(leaid); b.race.push(race); b.sex.push(sex); b.n.push(n); }
  });
  const none = { stu_enroll: null, observed_arrests: null };
  return {
    get: (leaid, race, sex, year) => cells.get(key(leaid, race, sex, year)) ?? none,
    forShard: (year, state) => {
      const b = byShard.get(`${year}|${state}`) ?? { leaid: [], race: [], sex: [], n: [] };
      return { leaid: Int32Array.from(b.leaid), race: Uint8Array.from(b.race), sex: Uint8Array.from(b.sex), n: Int32Array.from(b.n) };
    },
  };
}
