/** Commits' signature verification for any RPC that returns commits. */
import type { Commit } from '@cairn/proto/cairn/git/v1/git_service';
import { verifyCommits } from '../domain/commit-signatures';
import type { GitStorageContext } from './context';

/** Fills each commit's verification: one accounts call for all their committers' keys, then the instance key. */
export async function addVerifications(context: GitStorageContext, commits: Commit[], signal: AbortSignal): Promise<void> {
  const findKeys = async (emails: string[]) => (await context.gpgKeys.findVerificationKeys({ emails }, { signal })).keys;
  const verifications = await verifyCommits(commits, findKeys, undefined, async () => context.signing?.verificationKey());
  for (const [i, commit] of commits.entries()) commit.verification = verifications[i];
}
