// The governments the served benches ask for: the first 1,000 of the registry
// (the most populous first) that have rows in the mirror. One list, so every
// bench that loads one government's answer cycles over the same ones, served
// (servedGovernments) or in-process (withRows over inject's answer).

/** A /api/v1/governments answer's rows as the list reads them. */
type Listing = { data: { canonical_govid: string; years_in_mirror: number[] }[] };

/** The canonical ids of a governments listing's rows with any year in the mirror, in the listing's order. */
export const withRows = (body: unknown): string[] =>
  (body as Listing).data.filter((g) => g.years_in_mirror.length > 0).map((g) => g.canonical_govid);

/** The canonical ids of the first `limit` governments of the server at `base` with any year in its mirror. */
export async function servedGovernments(base: string, limit = 1000): Promise<string[]> {
  const r = await fetch(`${base}/api/v1/governments?limit=${limit}`);
  if (!r.ok) throw new Error(`GET /api/v1/governments: ${r.status}`);
  return withRows(await r.json());
}
