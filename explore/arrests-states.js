// State FIPS codes (FIPS 5-2, fixed public standard) by USPS code. A district's
// leaid begins with its state's FIPS code, and the map's outline file is named
// by it (/explore/geo/counties-XX.json); no API answer carries the FIPS code.
// Copied from src/geo/states.ts (the server's table) rather than fetched.

const ROWS = 'AL01 AK02 AZ04 AR05 CA06 CO08 CT09 DE10 DC11 FL12 GA13 HI15 ID16 IL17 IN18 IA19 KS20 KY21 LA22 ME23 MD24 MA25 MI26 MN27 MS28 MO29 MT30 NE31 NV32 NH33 NJ34 NM35 NY36 NC37 ND38 OH39 OK40 OR41 PA42 RI44 SC45 SD46 TN47 TX48 UT49 VT50 VA51 WA53 WV54 WI55 WY56 AS60 GU66 MP69 PR72 VI78';

export const FIPS_BY_CODE = new Map(ROWS.split(' ').map((s) => [s.slice(0, 2), s.slice(2)]));
export const CODE_BY_FIPS = new Map([...FIPS_BY_CODE].map(([c, f]) => [f, c]));
