/** What every social handler needs. */
import type { Database } from '@cairn/db';

export interface SocialContext {
  db: Database;
  /** `[ui] REACTIONS`: the reaction kinds users may add, and the only ones listed. */
  allowedReactions: readonly string[];
}
