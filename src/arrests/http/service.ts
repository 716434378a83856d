// Boots the school service: manifest -> tables -> draw summaries (built on a
// pool, or loaded from the cache beside the draws) -> the route table.

import { docsAssets } from '../../server/docs-ui.js';
import { exploreAssets } from '../../server/explore.js';
import type { Service } from '../../server/http.js';
import { ResponseCache } from '../../server/response-cache.js';
import { rateGate } from '../../server/rate-stage.js';
import type { Config } from '../../config.js';
import type { ArrestsCtx } from '../context.js';
import { readArrestsManifest } from '../manifest.js';
import { arrestsRoutes } from './routes.js';
import { loadOrBuildSummaries } from '../summaries.js';
import { loadDistricts, loadEnrollment } from '../tables.js';
import { YEARS } from '../models.js';
import { VERSION } from '../../version.js';

export async function loadArrests(config: Config, o: { quiet?: boolean; rebuild?: boolean } = {}): Promise<ArrestsCtx> {
  const dir = config.arrestsData;
  const manifest = await readArrestsManifest(dir);
  const districts = await loadDistricts(dir, manifest);
  const enroll = await loadEnrollment(dir, manifest);
  const summaries = await loadOrBuildSummaries(dir, manifest, enroll, { workers: config.workers, quiet: o.quiet ?? !process.stderr.isTTY, rebuild: o.rebuild });
  const modelYears = new Map<string, string[]>();
  for (const s of manifest.shards) {
    const ys = modelYears.get(s.model) ?? modelYears.set(s.model, []).get(s.model)!;
    if (!ys.includes(s.year)) ys.push(s.year);
  }
  for (const ys of modelYears.values()) ys.sort((a, b) => YEARS.indexOf(a as never) - YEARS.indexOf(b as never));
  const nameLower = districts.map((d) => d.lea_name.toLowerCase());
  return {
    dir, manifest, mirrorUrl: config.arrestsMirrorUrl ?? dir,
    districts, districtIndex: new Map(districts.map((d, i) => [Number(d.leaid), i])), nameLower, byName: namesInOrder(nameLower),
    enroll, summaries, states: [...new Set(manifest.shards.map((s) => s.state))].sort(), modelYears,
    routes: arrestsRoutes, startedAt: Date.now(),
  };
}

export function arrestsService(ctx: ArrestsCtx, config: Config): Service<ArrestsCtx> {
  return { name: 'arrests', routes: ctx.routes, ctx, assets: new Map([...docsAssets('civicstream school arrests'), ...exploreAssets('arrests')]), accessLog: config.accessLog, cache: config.responseCacheMb > 0 ? new ResponseCache(config.responseCacheMb * 1024 * 1024) : undefined,
    etagSeed: `${VERSION}|${ctx.manifest.digest}|${ctx.mirrorUrl}`,
    timeoutMs: config.requestTimeoutMs,
    rate: rateGate('arrests', config, 'fewer, larger pages (up to a route\'s limit) are the cheaper way to many rows'),
    // Its answers are computed on the thread from summaries built before it listens: no pool to be ready.
    ops: { info: () => ({ rows: ctx.summaries.build.rows, build: { service: 'arrests', version: VERSION, manifest_digest: ctx.manifest.digest, synthetic: String(ctx.manifest.synthetic) } }) },
  };
}

/** District indexes by lower-cased name, ties by index: the order /districts lists them in. */
function namesInOrder(nameLower: string[]): Uint32Array {
  return Uint32Array.from(nameLower.keys()).sort((a, b) => (nameLower[a]! < nameLower[b]! ? -1 : nameLower[a]! > nameLower[b]! ? 1 : a - b));
}
