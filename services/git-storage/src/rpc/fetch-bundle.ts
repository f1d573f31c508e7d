/**
 * RemoteService.FetchBundle: a restored dump's git data (Gitea's restore clones the dump's `git/` directory; here the
 * migrations runner streams `git bundle create - --all` of it). The bundle goes to a scratch file, is verified, and
 * is fetched into a staging namespace; branches and tags are then applied as FetchRemote applies a fetch (one
 * compare-and-swap transaction, one cairn.git.pushed with the request's origin), and pull request heads
 * (refs/pull/<n>/head) after them without an event, as git-storage's own writes of those refs have none.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { uuidv7 } from '@cairn/bus';
import type { FetchBundleRequest, FetchBundleResponse, PushContext, Repository } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError, Code, type RpcContext } from '@cairn/rpc';
import { requirePush } from '../events/pushed';
import { runGit } from '../git/command';
import { openRepository } from '../git/open-repository';
import { BRANCH_PREFIX, TAG_PREFIX } from '../git/refs';
import { STAGING_PREFIX } from '../git/remote';
import type { GitStorageContext } from './context';
import { scratchRoot } from './merge-support';
import { applyRemoteRefs, deleteRefsUnder, refsUnder } from './remote-service';

const PULL_HEADS = 'refs/pull/';

interface BundleHeader {
  repository: Repository;
  push: PushContext | undefined;
  origin: string;
}

/**
 * Writes the streamed bundle to `out`; answers the first message's fields. A write error (a full disk) ends the call
 * with it instead of waiting for a 'drain' that a failed stream never emits.
 */
export async function receiveBundle(requests: AsyncIterable<FetchBundleRequest>, out: Writable): Promise<BundleHeader> {
  let failure: Error | undefined;
  out.on('error', (error: Error) => {
    failure ??= error;
  });
  const failed = (error: Error) => CairnError.unavailable(`the bundle could not be stored: ${error.message}`, { cause: error });
  let header: BundleHeader | undefined;
  try {
    for await (const request of requests) {
      if (header === undefined) {
        if (request.repository === undefined) throw CairnError.invalid('the first message names the repository');
        header = { repository: request.repository, push: request.push === undefined ? undefined : requirePush(request.push), origin: request.origin };
      }
      if (request.data.length > 0) {
        // A write's callback runs once its chunk is written or has failed (also on a destroyed stream), so waiting
        // for it when the buffer is full is waiting for the drain or the error.
        let accepted = true;
        const written = new Promise<void>((resolve) => {
          accepted = out.write(request.data, (error?: Error | null) => {
            if (error) failure ??= error;
            resolve();
          });
        });
        if (!accepted) await written;
      }
      if (failure !== undefined) throw failed(failure);
    }
    out.end();
    await finished(out);
  } catch (error) {
    out.destroy();
    if (failure !== undefined && !(error instanceof CairnError)) throw failed(failure);
    throw error;
  }
  if (header === undefined) throw CairnError.invalid('no request was sent');
  return header;
}

export async function fetchBundle(context: GitStorageContext, requests: AsyncIterable<FetchBundleRequest>, ctx: RpcContext): Promise<FetchBundleResponse> {
  const scratch = path.join(scratchRoot(context.root, { storage: '', repoId: 0 }), `bundle-${uuidv7()}`);
  await mkdir(scratch, { recursive: true });
  try {
    const file = path.join(scratch, 'restore.bundle');
    const header = await receiveBundle(requests, createWriteStream(file, { flags: 'wx' }));
    const gitDir = await openRepository(context.root, header.repository);
    const verified = await runGit(['bundle', 'verify', '--quiet', file], { gitDir, okExitCodes: [0, 1, 128], signal: ctx.signal });
    if (verified.exitCode !== 0) {
      throw CairnError.invalid(`not a usable git bundle: ${verified.stderr.trim()}`, { reason: 'bad_bundle' });
    }
    const staging = `${STAGING_PREFIX}${uuidv7()}/`;
    const endPush = await context.pushGc.beginPush(gitDir);
    try {
      const fetched = await runGit(
        [
          'fetch',
          '--quiet',
          '--no-tags',
          '--no-write-fetch-head',
          '--end-of-options',
          file,
          `+${BRANCH_PREFIX}*:${staging}${BRANCH_PREFIX}*`,
          `+${TAG_PREFIX}*:${staging}${TAG_PREFIX}*`,
          `+${PULL_HEADS}*/head:${staging}${PULL_HEADS}*/head`,
        ],
        { gitDir, okExitCodes: [0, 1, 128], signal: ctx.signal },
      );
      if (fetched.exitCode !== 0) throw CairnError.invalid(`the bundle could not be fetched: ${fetched.stderr.trim()}`, { reason: 'bad_bundle' });
      // As FetchRemote: a fetch whose caller died is not applied (its task is taken over and sends the bundle again).
      if (ctx.signal.aborted) throw new CairnError(Code.CANCELLED, 'the caller went away; the bundle was not applied');
      const request = { repository: header.repository, prune: false, origin: header.origin };
      const updated = await applyRemoteRefs(context, request, gitDir, await refsUnder(gitDir, staging), header.push);
      const pulls = await refsUnder(gitDir, staging, [PULL_HEADS]);
      const pullHeads = Object.fromEntries(Object.entries(pulls).filter(([ref]) => /^refs\/pull\/\d+\/head$/.test(ref)));
      const pullUpdates = await applyRemoteRefs(context, request, gitDir, pullHeads, undefined, [PULL_HEADS]);
      const branches = await runGit(['for-each-ref', '--count=1', '--format=%(refname)', BRANCH_PREFIX], { gitDir });
      return { updated: [...updated, ...pullUpdates], empty: branches.stdout.length === 0 };
    } finally {
      endPush();
      await deleteRefsUnder(gitDir, staging);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
