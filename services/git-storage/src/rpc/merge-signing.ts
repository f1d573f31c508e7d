/**
 * Merge's signing decision (Gitea's SignMerge with isSignedIfRequired): the instance key (git/signing.ts), the
 * MERGES rules (domain/merge-signing.ts) on facts read here — the merger's GPG keys from accounts, verification of
 * the base tip, the head tip and merge-base..head (domain/commit-signatures.ts, the instance key included). A
 * refusal is an error only when the request requires the signature; otherwise the merge is written unsigned.
 */
import type { MergeRequest } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError, Code } from '@cairn/rpc';
import { verifyCommits } from '../domain/commit-signatures';
import { type MergeSigningFacts, mergeSigningRefusal } from '../domain/merge-signing';
import { listCommitsBetween } from '../git/compare';
import { readCommits } from '../git/log';
import type { CommitSigning } from '../git/merge';
import type { InstanceSigning, SigningKey } from '../git/signing';
import type { GitStorageContext } from './context';

/** A key the merge signs with, and how git reaches gpg for it. */
export interface MergeSigner {
  key: SigningKey;
  /** GNUPGHOME for the signing git commands. */
  env: NodeJS.ProcessEnv;
  /** `-c gpg.program=gpg …`, before the git subcommand. */
  config: readonly string[];
  /** Whether the signer is the committer of what the merge writes (committer trust models). */
  signerCommits: boolean;
}

function wontSign(reason: string): CairnError {
  return CairnError.precondition(`wont sign: ${reason}`, { reason: 'wont_sign' });
}

/** Whether the merger has any GPG key (accounts' ListGpgKeys, as the merger); a merger that is gone has none. */
async function hasGpgKey(context: GitStorageContext, userId: number): Promise<boolean> {
  if (userId <= 0) return false;
  try {
    const { keys, total } = await context.gpgKeys.listGpgKeys({
      viewer: { userId, isAdmin: true, isRestricted: false },
      userId,
      page: { page: 1, limit: 1 },
    });
    return total > 0 || keys.length > 0;
  } catch (error) {
    if (error instanceof CairnError && error.code === Code.NOT_FOUND) return false;
    throw error;
  }
}

function facts(context: GitStorageContext, signing: InstanceSigning, request: MergeRequest, gitDir: string, tips: { base: string; head: string; mergeBase: string }): MergeSigningFacts {
  const findKeys = async (emails: string[]) => (await context.gpgKeys.findVerificationKeys({ emails })).keys;
  const instanceKey = () => signing.verificationKey();
  /** Whether every commit of `shas` is verified (stopping at the first that is not). */
  const allVerified = async (shas: readonly string[]) => {
    const verifications = await verifyCommits(await readCommits(gitDir, shas), findKeys, (verification) => !verification.verified, instanceKey);
    return verifications.every((verification) => verification.verified);
  };
  let head: Promise<boolean> | undefined;
  return {
    mergerHasGpgKey: () => hasGpgKey(context, request.push?.pusherId ?? 0),
    approved: request.approved,
    baseVerified: () => allVerified([tips.base]),
    headVerified: () => (head ??= allVerified([tips.head])),
    commitsVerified: async () => allVerified(await listCommitsBetween(gitDir, tips.mergeBase, tips.head, 0, 0)),
  };
}

/**
 * The signer of this merge, or undefined when it is written unsigned: not asked to sign, no key (`nokey`), or a
 * MERGES rule refuses. With `require_signed`, the last two are FAILED_PRECONDITION `wont sign: <rule>`.
 */
export async function mergeSigner(
  context: GitStorageContext,
  request: MergeRequest,
  gitDir: string,
  tips: { base: string; head: string; mergeBase: string },
): Promise<MergeSigner | undefined> {
  if (!request.sign) return undefined;
  const signing = context.signing;
  const key = signing === undefined ? undefined : await signing.signingKey();
  if (signing === undefined || key === undefined) {
    if (request.requireSigned) throw wontSign('nokey');
    return undefined;
  }
  let refusal: string | undefined;
  try {
    refusal = await mergeSigningRefusal(signing.merges, facts(context, signing, request, gitDir, tips));
  } catch (error) {
    // Gitea ignores SignMerge's errors unless the signature is required: the merge goes ahead unsigned.
    if (request.requireSigned) throw error;
    context.logger.warn({ err: error }, 'merge written unsigned: the [repository.signing] MERGES rules could not be checked');
    return undefined;
  }
  if (refusal !== undefined) {
    if (request.requireSigned) throw wontSign(refusal);
    context.logger.debug({ rule: refusal }, 'merge written unsigned: a [repository.signing] MERGES rule refuses');
    return undefined;
  }
  return { key, env: signing.gitEnv, config: signing.gitConfig, signerCommits: signing.signerCommits };
}

/** GIT_COMMITTER_NAME/EMAIL of `env` replaced by the signer's, under committer trust models (Gitea's merge context). */
function committerAsSigner(env: NodeJS.ProcessEnv, signer: MergeSigner): NodeJS.ProcessEnv {
  const { name, email } = signer.key;
  // An identity git would refuse (an explicit key without SIGNING_NAME / EMAIL) leaves the merger as committer.
  if (!signer.signerCommits || name.trim() === '' || email.trim() === '' || env.GIT_COMMITTER_NAME === undefined) return env;
  return { ...env, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email };
}

/** `plan` signed by `signer`: its new commits get `--gpg-sign`, and the signer as committer when it commits. */
export function signedPlan<T extends { identity: NodeJS.ProcessEnv; committerEnv: NodeJS.ProcessEnv }>(plan: T, signer: MergeSigner): T & { sign: CommitSigning } {
  return {
    ...plan,
    identity: committerAsSigner(plan.identity, signer),
    committerEnv: committerAsSigner(plan.committerEnv, signer),
    sign: { keyId: signer.key.keyId, env: signer.env, config: signer.config },
  };
}
