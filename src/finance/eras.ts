// The corpus's format eras. Through FY2011 the source is the wide, dense
// format (aggregates published, absent cells are published zeros); from
// FY2012 it is the modern sparse leaf format.

export const WIDE_ERA_LAST_YEAR = 2011;
