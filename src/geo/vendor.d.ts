// The few functions of the boundary libraries the server side uses (neither ships its own types).
declare module 'd3' {
  /** True when the point [lon, lat] (degrees) lies inside the GeoJSON object (spherical). */
  export function geoContains(object: unknown, point: [number, number]): boolean;
  /** [[west, south], [east, north]] in degrees; west > east when the object crosses the antimeridian. */
  export function geoBounds(object: unknown): [[number, number], [number, number]];
}
declare module 'topojson-client' {
  export function feature(topology: unknown, object: unknown): { type: string; features?: { id?: string; properties?: Record<string, unknown> }[] };
}
