// The fields a stored document or row hands on to its record as they are, checked to be the record's own.

/**
 * `F` when each of its fields is one the record `R` has; otherwise each stranger must be `never`. A mapper spreads
 * `...(fields satisfies OwnFields<R, typeof fields>)`, so a stored-only field (a slot, a sealed secret) left in the
 * rest of a destructured document fails to compile instead of leaking into the record.
 */
export type OwnFields<R, F> = F & { [K in Exclude<keyof F, keyof R>]: never };
