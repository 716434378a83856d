// DuckDB SQL text for provenance: literals and mirror paths, quoted once here.

import type { FinanceCtx } from './context.js';

export const lit = (s: string): string => `'${s.replaceAll("'", "''")}'`;

export const mirrorFile = (ctx: Pick<FinanceCtx, 'mirrorUrl'>, rel: string): string =>
  lit(`${ctx.mirrorUrl.replace(/\/+$/, '')}/${rel}`);

export const metadataTable = (ctx: Pick<FinanceCtx, 'mirrorUrl'>, name: string): string =>
  `read_parquet(${mirrorFile(ctx, `data/${name}.parquet`)})`;
