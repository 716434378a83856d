// DuckDB SQL text for provenance: literals and mirror paths, quoted once here.

import type { FinanceCtx } from './context.js';

export const lit = (s: string): string => (s.includes("'") ? `'${s.replaceAll("'", "''")}'` : `'${s}'`);

export const mirrorFile = (ctx: Pick<FinanceCtx, 'mirrorUrl'>, rel: string): string =>
  lit(`${ctx.mirrorUrl.replace(/\/+$/, '')}/${rel}`);

/**
 * read_parquet's file argument for the long partitions. When every partition
 * sits where the schema puts it (data/long/year=YYYY/part-0.parquet) it is
 * spelled as the years and one path pattern, so each answer carries ~60
 * characters a year less of SQL (3.4 KB on the full corpus, an eighth of a
 * government's answer); otherwise it lists the manifest's paths.
 */
export function longFilesSql(ctx: Pick<FinanceCtx, 'mirrorUrl'>, partitions: readonly { year: number; path: string }[]): string {
  const regular = partitions.every((p) => p.path === `data/long/year=${p.year}/part-0.parquet`) && !/[{}]/.test(ctx.mirrorUrl);
  return regular
    ? `list_transform([${partitions.map((p) => p.year).join(', ')}], y -> format(${mirrorFile(ctx, 'data/long/year={}/part-0.parquet')}, y))`
    : `[${partitions.map((p) => mirrorFile(ctx, p.path)).join(', ')}]`;
}

export const metadataTable = (ctx: Pick<FinanceCtx, 'mirrorUrl'>, name: string): string =>
  `read_parquet(${mirrorFile(ctx, `data/${name}.parquet`)})`;
