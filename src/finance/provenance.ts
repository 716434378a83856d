// Provenance records. Metadata answers carry the same required keys as money
// answers (verb, target, years, scope, manifest, sql_query): the SQL reads the
// mirror's own metadata parquet and returns the rows of the answer.

import type { FinanceCtx } from './context.js';

export function manifestBlock(ctx: FinanceCtx): Record<string, unknown> {
  const m = ctx.catalog.manifest;
  return { schema_version: m.schemaVersion, pipeline_commit: m.pipelineCommit, built_at: m.builtAt, mirror_url: ctx.mirrorUrl };
}

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
