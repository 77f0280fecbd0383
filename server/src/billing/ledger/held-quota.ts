/** Quota a reserve took from a user and, for a limited token, from the token. */
export interface HeldQuota {
  userId: number;
  tokenId: number;
  tokenUnlimited: boolean;
  amount: number;
  /** The row of `reserves` that records a reserve held in the database (PostgreSQL, MySQL). */
  ref?: string | undefined;
}
