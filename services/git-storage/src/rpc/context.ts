/** What every git-storage handler needs. */
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import type { AsyncClientOf } from '@cairn/rpc';
import type { GpgKeyServiceService } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';

export interface GitStorageContext {
  /** `$CAIRN_WORK_DIR/repositories`: every storage's repositories below it (storage/layout.ts). */
  root: string;
  /** git-storage's schema: the outbox of cairn.git.* events. */
  db: Database;
  logger: Logger;
  /** accounts' GPG keys, for signature checks (the signed-commit push rule, CommitService's verification). */
  gpgKeys: Pick<AsyncClientOf<typeof GpgKeyServiceService>, 'findVerificationKeys'>;
  /** Largest file WriteFiles accepts, in bytes (`[api] DEFAULT_MAX_BLOB_SIZE`); unset: 10 MiB, Gitea's default. */
  maxFileSize?: number;
}
