// What a money query chose, as the thread serving it and the workers both
// read it: the categories, the recipe, and the reserved name that sums every
// category. Parsed from parameters in http/money-params.ts; nothing here knows of
// HTTP or parameters, so the workers may load it.

/** The reserved category name summing every category of the concept per subtype. */
export const ALL_CATEGORIES = 'All Categories';

export interface CategoryChoice {
  /** Category ids, or null for every category. */
  ids: number[] | null;
  all: boolean;
  names: string[];
}

/** The choice of every category (`category=All Categories`), what a parsed category parameter gives for it. */
export const EVERY_CATEGORY: CategoryChoice = { ids: null, all: true, names: [ALL_CATEGORIES] };

export interface RecipeChoice {
  /** The recipe's index in the catalog's recipes. */
  index: number;
  id: string;
}
