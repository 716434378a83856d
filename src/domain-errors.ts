// The domain's own refusals (issue 30). The engine and the pool say what
// stopped them in their own terms, with the figures a message needs, and know
// nothing of HTTP; the HTTP layer maps each to the error catalog's answer
// (status, code, message, headers) at the handle stage (src/server/edge-errors.ts).

/** What is full: every job place of the pool (src/pool.ts), or every page slot of the bulk streams (finance/run-money.ts). */
export type BusyResource = 'jobs' | 'page-slots';

/** A job or a bulk stream refused at once because its resource is full; `count` is the jobs outstanding, or the slots in all. */
export class BusyError extends Error {
  constructor(readonly resource: BusyResource, readonly count: number) {
    super(`${resource} full (${count})`);
    this.name = 'BusyError';
  }
}

/** Why a government has no peers to find (finance/peer-cohort.ts), with the figures its message names. */
export type PeerRefusalReason =
  | ['censusYear', { year: number; window: string }]
  | ['censusNoPopulation', { govid: string; window: string }]
  | ['noPopulation', { govid: string }]
  | ['noPopulationIn', { govid: string; year: number; years: string }];

/** A peer search refused for what the request asked of this government (a 400 at the edge). */
export class PeerRefusal extends Error {
  constructor(readonly refusal: PeerRefusalReason) {
    super(`peers refused: ${refusal[0]}`);
    this.name = 'PeerRefusal';
  }
}
