import { describe, expect, it } from 'vitest';
import { parseYears } from '../dist/src/finance/http/years.js';
import { ApiError } from '../dist/src/server/errors.js';

// The published set of the bundled corpus: 2011, 2019, 2020 (holes 2012-2018).
const SET = { years: [2011, 2019, 2020], minYear: 2011, maxYear: 2020, holes: [2012, 2013, 2014, 2015, 2016, 2017, 2018] };

function fails(raw: string): ApiError {
  try {
    parseYears(raw, SET);
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error(`'${raw}' parsed`);
}

describe('years parser', () => {
  it('takes every form of the spec', () => {
    expect(parseYears('2019', SET)).toEqual([2019]);
    expect(parseYears('2020,2019', SET)).toEqual([2019, 2020]);
    expect(parseYears('2011-2020', SET)).toEqual([2011, 2019, 2020]);
    expect(parseYears('2011-2011,2020', SET)).toEqual([2011, 2020]);
    expect(parseYears('2019, 2019 ,2011', SET)).toEqual([2011, 2019]);
  });

  it('drops holes from a range whose endpoints are inside the span', () => {
    expect(parseYears('2012-2019', SET)).toEqual([2019]);
    expect(parseYears('2011-2018', SET)).toEqual([2011]);
  });

  it('rejects a year outside the published range with the spec message', () => {
    for (const raw of ['2010', '2021', '1900', '2010-2019', '2019-2021']) {
      const e = fails(raw);
      expect(e.status).toBe(400);
      expect(e.message).toBe('year must be in 2011-2020.');
    }
  });

  it('rejects a bare year with no source data, naming the range and listing the holes', () => {
    const e = fails('2015');
    expect(e.code).toBe('E_YEAR_HOLE');
    expect(e.message).toContain('2011-2020');
    expect(e.message).toContain('2012, 2013, 2014, 2015, 2016, 2017, 2018');
    expect(fails('2019,2013').code).toBe('E_YEAR_HOLE');
  });

  it('rejects a range holding no published year', () => {
    const e = fails('2012-2018');
    expect(e.code).toBe('E_YEAR_EMPTY_RANGE');
    expect(e.status).toBe(400);
  });

  it('rejects what is not a four-digit year with the spec message', () => {
    for (const raw of ['', 'abc', '19', '20190', '2019-', '-2019', '2019,,2020', '2019;2020', '2019.0', ' ', '２０１９']) {
      const e = fails(raw);
      expect(e.code, raw).toBe('E_YEAR_FORMAT');
      expect(e.message).toBe('year must be a four-digit year in 2011-2020.');
    }
  });

  it('rejects a backwards range', () => {
    expect(fails('2020-2011').status).toBe(400);
  });
});
