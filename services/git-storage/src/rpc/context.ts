/** What every git-storage handler needs. */
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import type { AsyncClientOf } from '@cairn/rpc';
import type { GpgKeyServiceService } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import type { PushPublisher } from '../events/push-publisher';
import type { ConcurrencyLimit } from '../git/concurrency-limit';
import type { PushGcExclusion } from '../git/push-gc-exclusion';
import type { InstanceSigning } from '../git/signing';
import type { RemoteSettings } from './remote-service';

export interface GitStorageContext {
  /** `$CAIRN_WORK_DIR/repositories`: every storage's repositories below it (storage/layout.ts). */
  root: string;
  /** git-storage's schema: the outbox of cairn.git.* events and what it last published of each repository's refs. */
  db: Database;
  logger: Logger;
  /**
   * accounts' GPG keys, for signature checks (the signed-commit push rule, CommitService's verification) and the
   * MERGES rule "pubkey" (whether the merger has a key).
   */
  gpgKeys: Pick<AsyncClientOf<typeof GpgKeyServiceService>, 'findVerificationKeys' | 'listGpgKeys'>;
  /** The instance's signing key (`[repository.signing]`); unset: none, as SIGNING_KEY = none. */
  signing?: InstanceSigning;
  /** Largest file WriteFiles accepts, in bytes (`[api] DEFAULT_MAX_BLOB_SIZE`); unset: 10 MiB, Gitea's default. */
  maxFileSize?: number;
  /** The node's bound on heavy git processes (upload-pack, receive-pack, archives): `[git] MAX_CONCURRENT_TRANSFERS`. */
  transfers: ConcurrencyLimit;
  /** Wall-clock limit of one upload-pack or receive-pack in milliseconds (`[git.timeout] TRANSFER`). */
  transferTimeoutMs: number;
  /** Largest pack one push may send, in bytes (`[repository] MAX_PUSH_SIZE`); 0 = no limit. */
  maxPushSize: number;
  /** Publishes accepted pushes once their git exited, whether or not their call is still there. */
  pushes: PushPublisher;
  /** Keeps pushes and the periodic gc off the same repository at once (git/push-gc-exclusion.ts). */
  pushGc: PushGcExclusion;
  /** RemoteService's host policy (`[migrations]`) and time limits (`[git.timeout] MIGRATE`, `MIRROR`). */
  remotes: RemoteSettings;
}

/** The key of the node-wide slots in `transfers`. */
export const NODE_TRANSFERS = 'node';
