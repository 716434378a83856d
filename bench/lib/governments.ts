// The governments the served benches ask for: the first 1,000 of the registry
// (the most populous first) that have rows in the mirror. One list, so every
// bench that loads one government's answer cycles over the same ones.

/** The canonical ids of the first 1,000 governments of the server at `base` with any year in its mirror. */
export async function servedGovernments(base: string): Promise<string[]> {
  const r = await fetch(`${base}/api/v1/governments?limit=1000`);
  if (!r.ok) throw new Error(`GET /api/v1/governments: ${r.status}`);
  const body = (await r.json()) as { data: { canonical_govid: string; years_in_mirror: number[] }[] };
  return body.data.filter((g) => g.years_in_mirror.length > 0).map((g) => g.canonical_govid);
}
