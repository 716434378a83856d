// Approximate geography for the synthetic school mirror only: each state's
// rough centroid (degrees) and a weight proportional to its approximate
// number of school districts (LEAs), so a generated mirror spreads its
// districts roughly as the real ones are spread. Not used for real data.

export const STATE_GEO: Record<string, { lat: number; lon: number; leas: number }> = {
  AL: { lat: 32.8, lon: -86.8, leas: 150 }, AK: { lat: 61.4, lon: -150.0, leas: 54 }, AZ: { lat: 34.2, lon: -111.7, leas: 650 },
  AR: { lat: 34.9, lon: -92.4, leas: 260 }, CA: { lat: 37.2, lon: -119.5, leas: 1050 }, CO: { lat: 39.0, lon: -105.5, leas: 185 },
  CT: { lat: 41.6, lon: -72.7, leas: 200 }, DE: { lat: 39.0, lon: -75.5, leas: 45 }, DC: { lat: 38.9, lon: -77.0, leas: 65 },
  FL: { lat: 28.6, lon: -82.4, leas: 76 }, GA: { lat: 32.7, lon: -83.4, leas: 230 }, HI: { lat: 20.8, lon: -156.3, leas: 1 },
  ID: { lat: 44.4, lon: -114.6, leas: 180 }, IL: { lat: 40.0, lon: -89.2, leas: 860 }, IN: { lat: 39.9, lon: -86.3, leas: 410 },
  IA: { lat: 42.1, lon: -93.5, leas: 330 }, KS: { lat: 38.5, lon: -98.4, leas: 310 }, KY: { lat: 37.5, lon: -85.3, leas: 175 },
  LA: { lat: 31.1, lon: -92.0, leas: 200 }, ME: { lat: 45.4, lon: -69.2, leas: 260 }, MD: { lat: 39.0, lon: -76.8, leas: 25 },
  MA: { lat: 42.3, lon: -71.8, leas: 400 }, MI: { lat: 44.3, lon: -85.4, leas: 880 }, MN: { lat: 46.3, lon: -94.3, leas: 550 },
  MS: { lat: 32.7, lon: -89.7, leas: 150 }, MO: { lat: 38.4, lon: -92.5, leas: 560 }, MT: { lat: 47.0, lon: -109.6, leas: 410 },
  NE: { lat: 41.5, lon: -99.8, leas: 250 }, NV: { lat: 39.3, lon: -116.6, leas: 20 }, NH: { lat: 43.7, lon: -71.6, leas: 290 },
  NJ: { lat: 40.2, lon: -74.7, leas: 680 }, NM: { lat: 34.4, lon: -106.1, leas: 150 }, NY: { lat: 42.9, lon: -75.5, leas: 1000 },
  NC: { lat: 35.6, lon: -79.4, leas: 330 }, ND: { lat: 47.5, lon: -100.5, leas: 180 }, OH: { lat: 40.3, lon: -82.8, leas: 1050 },
  OK: { lat: 35.6, lon: -97.5, leas: 580 }, OR: { lat: 43.9, lon: -120.6, leas: 200 }, PA: { lat: 40.9, lon: -77.8, leas: 780 },
  RI: { lat: 41.7, lon: -71.5, leas: 65 }, SC: { lat: 33.9, lon: -80.9, leas: 100 }, SD: { lat: 44.4, lon: -100.2, leas: 150 },
  TN: { lat: 35.9, lon: -86.4, leas: 150 }, TX: { lat: 31.5, lon: -99.3, leas: 1200 }, UT: { lat: 39.3, lon: -111.7, leas: 160 },
  VT: { lat: 44.1, lon: -72.7, leas: 290 }, VA: { lat: 37.5, lon: -78.9, leas: 135 }, WA: { lat: 47.4, lon: -120.5, leas: 330 },
  WV: { lat: 38.6, lon: -80.6, leas: 57 }, WI: { lat: 44.6, lon: -89.9, leas: 460 }, WY: { lat: 43.0, lon: -107.6, leas: 50 },
};
