// What every school-service handler can reach: the mirror's manifest, its
// tables and the draw summaries, with lookups built once at load.

import type { ArrestsManifest } from './manifest.js';
import type { Summaries } from './summaries.js';
import type { District, EnrollmentTable } from './tables.js';

export interface ArrestsCtx {
  dir: string;
  manifest: ArrestsManifest;
  /** Where /draws and provenance point: ARRESTS_MIRROR_URL, or the data directory's absolute path. */
  mirrorUrl: string;
  districts: District[];
  /** leaid (as a number) -> index in districts. */
  districtIndex: Map<number, number>;
  nameLower: string[];
  /** District indexes in the order /districts lists them (lower-cased name, then index): sorted once, so a search only filters. */
  byName: Uint32Array;
  enroll: EnrollmentTable;
  summaries: Summaries;
  /** State codes with draws in the mirror. */
  states: string[];
  /** Models with draws in the mirror, and the years each has. */
  modelYears: Map<string, string[]>;
  // routes: the service's route table, added by the HTTP layer (http/routes.ts), the domain knowing no routes.
  startedAt: number;
}
