// The declarations of the arrests routes' parameters that a handler written
// apart from the route table (info.ts) types itself by: the handler takes
// QueryParams of its declaration, so it sees exactly the keys declared.

import { apiError } from '../../server/errors.js';
import { intParam, required, textParam, withExample } from '../../server/params.js';
import { DEFAULT_MODEL } from '../models.js';
import { intervalParam, leaidParam, modelParam, raceParam, sexParam, stateParam, yearParam } from './params.js';

/** The state the docs fill in. */
export const DOC_STATE = 'DE';

export const limit = intParam({ description: 'Rows per page (default 100, at most 1000; above is a 400, never clamped).', min: 1, max: 1000, default: 100, capped: true });
export const page = intParam({ description: 'Zero-based page index.', min: 0, max: 10_000_000, default: 0 });

export const DISTRICTS_QUERY = { q: textParam({ description: 'Case-insensitive literal substring of lea_name.', maxLength: 200 }), state: stateParam, limit, page };
export const DRAWS_QUERY = {
  model: required(withExample(modelParam, DEFAULT_MODEL), () => apiError('E_MISSING', 'required', { name: 'model', where: '/draws' })), year: required(withExample(yearParam, '21-22'), () => apiError('E_MISSING', 'required', { name: 'year', where: '/draws' })),
  state: required(withExample(stateParam, DOC_STATE), () => apiError('E_MISSING', 'required', { name: 'state', where: '/draws' })),
  race: raceParam, sex: sexParam, leaid: leaidParam,
};

// The estimate routes' declarations; estimates.ts derives its handlers' parameter type (EstimateParams) from them.
export const ESTIMATE_QUERY = { model: modelParam, year: yearParam, interval: intervalParam, race: raceParam, sex: sexParam };
export const DISTRICT_ESTIMATES_QUERY = { leaid: leaidParam, state: stateParam, ...ESTIMATE_QUERY, limit, page };
export const STATE_ESTIMATES_QUERY = { state: stateParam, ...ESTIMATE_QUERY };
export const LEAID_PATH = { leaid: leaidParam };
export const STATE_PATH = { state: withExample(stateParam, DOC_STATE) };
