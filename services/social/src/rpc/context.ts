/** What every social handler needs. */
import type { Database } from '@cairn/db';

export interface SocialContext {
  db: Database;
}
