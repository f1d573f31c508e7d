/**
 * Publishing a push after its git process exited, outside the call that ran it: a client that goes away once the
 * refs moved ends the call (and kills git), not the event. Stop waits for what is in hand, so a graceful stop writes
 * every push's event before the outbox relay flushes; what a crash interrupts is published at the next start
 * (events/pushed.ts reconcilePushed).
 */
import type { Repository } from '@cairn/proto/cairn/git/v1/git_service';
import type { GitStorageContext } from '../rpc/context';
import { publishRecordedPush } from './pushed';

export interface PushPublisher {
  /** Publishes the recorded push `pushId` once `gitExited` resolves; never rejects (a failure is logged). */
  publishAfter(repository: Repository | undefined, gitExited: Promise<void>, pushId: string): Promise<void>;
  /** Waits for the pushes in hand. */
  stop(): Promise<void>;
}

export function createPushPublisher(context: Pick<GitStorageContext, 'root' | 'db' | 'logger'>): PushPublisher {
  const running = new Set<Promise<void>>();
  return {
    publishAfter(repository, gitExited, pushId) {
      const publishing = gitExited
        .then(() => publishRecordedPush(context, repository, pushId))
        .catch((error: unknown) => {
          context.logger.error({ err: error, repo_id: repository?.repoId }, 'could not publish a push; it is published at the next start');
        })
        .finally(() => running.delete(publishing));
      running.add(publishing);
      return publishing;
    },
    async stop() {
      await Promise.all(running);
    },
  };
}
