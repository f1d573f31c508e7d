/** restore_archives: the restore archives the object store holds (0005_restore_archives.sql). */
import { sql, z, type CommonQueryMethods } from '@cairn/db';
import { STATUS } from './tasks';

/** Records (or, while it arrives, touches) the archive at `key`. */
export async function touchArchive(db: CommonQueryMethods, key: string): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO restore_archives (key) VALUES (${key})
    ON CONFLICT (key) DO UPDATE SET touched_at = now()`);
}

/** The archive at `key` was deleted from the object store. */
export async function forgetArchive(db: CommonQueryMethods, key: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM restore_archives WHERE key = ${key}`);
}

/** Archives untouched for `olderThanMs` that no queued or running task still reads. */
export async function strayArchives(db: CommonQueryMethods, olderThanMs: number, limit: number): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ key: z.string() }))`
    SELECT a.key FROM restore_archives a
    WHERE a.touched_at < now() - make_interval(secs => ${olderThanMs / 1000})
      AND NOT EXISTS (
        SELECT 1 FROM migration_tasks t WHERE t.archive_key = a.key AND t.status IN (${STATUS.queued}, ${STATUS.running})
      )
    ORDER BY a.touched_at
    LIMIT ${limit}`);
}
