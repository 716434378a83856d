// The ten models of the school arrest-rate estimates, as one table: id,
// family, the school years each was fit on, its formula, and (for the
// synthetic mirror) how strongly it pools districts toward their group mean.

export const YEARS = ['15-16', '17-18', '21-22'] as const;
export type SchoolYear = (typeof YEARS)[number];
export const RACES = ['AM', 'BL', 'HI', 'WH'] as const;
export const SEXES = ['F', 'M'] as const;
export const INTERVALS = [50, 80, 95] as const;
export const DRAWS = 500;

export interface ModelInfo {
  model: string;
  family: 'unified' | 'stratified';
  years: readonly SchoolYear[];
  formula: string;
  description: string;
  is_default: boolean;
  /** Generator only: prior strength (pseudo-students) of the partial pooling; larger pools harder. */
  pooling: number;
}

const RECENT: readonly SchoolYear[] = ['21-22'];
const THREE: readonly SchoolYear[] = YEARS;
const F = 'ARRESTS|trials(stu_enroll) ~';

export const MODELS: readonly ModelInfo[] = [
  { model: 'unified_m1', family: 'unified', years: RECENT, formula: `${F} RACE*SEX + (1|LEAID) + (1|LEA_STATE)`, description: 'One model for all student groups: race-by-sex effects with district and state random intercepts; 2021-22 only.', is_default: false, pooling: 400 },
  { model: 'unified_m2', family: 'unified', years: RECENT, formula: `${F} RACE*SEX + referral_rate + (1|LEAID) + (1|LEA_STATE)`, description: 'As unified_m1, adding the district referral rate as a predictor; 2021-22 only. The default model.', is_default: true, pooling: 300 },
  { model: 'unified_m3', family: 'unified', years: THREE, formula: `${F} YEAR + RACE*SEX + (1|LEAID) + (1|LEA_STATE)`, description: 'Unified model over three school years with year effects.', is_default: false, pooling: 450 },
  { model: 'unified_m4', family: 'unified', years: THREE, formula: `${F} YEAR + RACE*SEX + referral_rate + (1|LEAID) + (1|LEA_STATE)`, description: 'Three-year unified model with year effects and the referral rate.', is_default: false, pooling: 350 },
  { model: 'unified_m5', family: 'unified', years: THREE, formula: `${F} YEAR + RACE*SEX + referral_rate + total_referrals + (1|LEAID) + (1|LEA_STATE)`, description: 'Three-year unified model adding total referrals.', is_default: false, pooling: 250 },
  { model: 'stratified_m1', family: 'stratified', years: RECENT, formula: `${F} 1 + (1|LEAID) + (1|LEA_STATE)  [fit per RACE x SEX]`, description: 'A separate fit per race-by-sex group with district and state random intercepts; 2021-22 only.', is_default: false, pooling: 150 },
  { model: 'stratified_m2', family: 'stratified', years: RECENT, formula: `${F} referral_rate + (1|LEAID) + (1|LEA_STATE)  [per RACE x SEX]`, description: 'Per-group fit adding the referral rate; 2021-22 only. The default of the stratified family (ask for it explicitly).', is_default: false, pooling: 120 },
  { model: 'stratified_m3', family: 'stratified', years: THREE, formula: `${F} YEAR + (1|LEAID) + (1|LEA_STATE)  [per RACE x SEX]`, description: 'Per-group fit over three school years with year effects.', is_default: false, pooling: 180 },
  { model: 'stratified_m4', family: 'stratified', years: THREE, formula: `${F} YEAR + referral_rate + (1|LEAID) + (1|LEA_STATE)  [per RACE x SEX]`, description: 'Per-group three-year fit with the referral rate.', is_default: false, pooling: 140 },
  { model: 'stratified_m5', family: 'stratified', years: THREE, formula: `${F} YEAR + referral_rate + total_referrals + (1|LEAID) + (1|LEA_STATE)  [per RACE x SEX]`, description: 'Per-group three-year fit adding total referrals.', is_default: false, pooling: 100 },
];

export const DEFAULT_MODEL = 'unified_m2';
export const MODEL_BY_ID = new Map(MODELS.map((m) => [m.model, m]));
/** The draws' partition value of a model: its id with the _mod suffix. */
export const partitionId = (model: string): string => `${model}_mod`;
