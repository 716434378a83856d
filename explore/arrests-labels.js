// The words for the API's race and sex codes, in one place for the page's
// controls, legends and tips. The API names the races in its data dictionary
// (parameter `race`) but gives the sexes as bare codes; test/explore-arrests.test.ts
// checks this table against the dictionary's code lists so the two cannot drift.

export const RACE_WORDS = { AM: 'American Indian/Alaska Native', BL: 'Black', HI: 'Hispanic', WH: 'White' };
export const SEX_WORDS = { F: 'Female', M: 'Male' };

/** "Black male students": the group a row describes, in words. */
export function groupWords(race, sex) {
  return `${RACE_WORDS[race] ?? race} ${(SEX_WORDS[sex] ?? sex).toLowerCase()} students`;
}

/** A rate per student as arrests per 1,000 students, in words for tips (3 significant digits; 0 stays "0"). */
export function per1000(rate) {
  if (rate === null || rate === undefined) return 'no estimate';
  return (rate * 1000).toLocaleString('en-US', { maximumSignificantDigits: 3 });
}

export const PER_1000 = 'per 1,000 students';

/** A legend entry: a coloured mark (`shape`: '', diamond, hollow, ring) and its words. */
export function swatch(colour, shape, text) {
  const span = document.createElement('span');
  const i = document.createElement('i');
  i.style.background = colour;
  if (shape) i.className = shape;
  span.append(i, text);
  return span;
}
