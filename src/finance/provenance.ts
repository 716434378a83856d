// Provenance records. Metadata answers carry the same required keys as money
// answers (verb, target, years, scope, manifest, sql_query): the SQL reads the
// mirror's own metadata parquet and returns the rows of the answer.

import type { FinanceCtx } from './context.js';
import { fixedJson } from '../bytes/json-value.js';

/** The corpus's manifest block: one object per context, its JSON written once (fixedJson). */
export function manifestBlock(ctx: FinanceCtx): Record<string, unknown> {
  let block = manifests.get(ctx);
  if (block === undefined) {
    const m = ctx.catalog.manifest;
    manifests.set(ctx, (block = fixedJson({ schema_version: m.schemaVersion, pipeline_commit: m.pipelineCommit, built_at: m.builtAt, mirror_url: ctx.mirrorUrl })));
  }
  return block;
}
const manifests = new WeakMap<FinanceCtx, Record<string, unknown>>();

export function metadataProvenance(
  ctx: FinanceCtx,
  o: { verb: string; call: string; target: Record<string, unknown>; sql: string; scope?: Record<string, unknown> },
): Record<string, unknown> {
  return {
    verb: o.verb,
    call: o.call,
    target: o.target,
    years: ctx.catalog.years,
    scope: o.scope ?? {},
    manifest: manifestBlock(ctx),
    sql_query: o.sql,
  };
}
