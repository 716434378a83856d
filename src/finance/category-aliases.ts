// The spec names two revenue categories by a shorter name than the corpus's
// category table does ("Individual Income" for Individual Income Tax,
// "Corporate Income" for Corporate Income Tax). A client that writes the spec's
// name is answered, not refused: each alias resolves to its category, which
// every answer then names as /categories does. An alias is taken only when its
// target exists and the alias is not itself a category name.

export const CATEGORY_ALIASES: readonly { alias: string; category: string }[] = [
  { alias: 'Individual Income', category: 'Individual Income Tax' },
  { alias: 'Corporate Income', category: 'Corporate Income Tax' },
];
