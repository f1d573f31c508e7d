/**
 * Whether a pull request merge is signed: Gitea's services/asymkey/sign.go SignMerge over `[repository.signing]
 * MERGES`. The rules run in the configured order and the first that refuses is the answer ("wont sign: <rule>");
 * "always" accepts at once. The facts are asked for lazily, so a refusal early in the list costs no later checks.
 */
import type { MergeSigningRule } from '@cairn/config';

/** What the rules look at, each asked for only when a rule needs it. */
export interface MergeSigningFacts {
  /** The merger has at least one GPG key (any, verified or not: Gitea's FindGPGKeyOptions by owner). */
  mergerHasGpgKey(): Promise<boolean>;
  /** The base branch has a protection rule and at least one granted approval (the caller's `approved`). */
  approved: boolean;
  /** The base branch's tip is verified. */
  baseVerified(): Promise<boolean>;
  /** The head's tip is verified. */
  headVerified(): Promise<boolean>;
  /** Every commit of merge-base..head is verified. */
  commitsVerified(): Promise<boolean>;
}

/** The rule that refuses signing, or undefined when the merge may be signed. */
export async function mergeSigningRefusal(rules: readonly MergeSigningRule[], facts: MergeSigningFacts): Promise<MergeSigningRule | undefined> {
  for (const rule of rules) {
    switch (rule) {
      case 'never':
        return 'never';
      case 'always':
        return undefined;
      case 'pubkey':
        if (!(await facts.mergerHasGpgKey())) return rule;
        break;
      case 'twofa':
        // Cairn has no two-factor enrolment, so every merger is one Gitea's rule refuses (no TwoFactor row).
        return rule;
      case 'approved':
        if (!facts.approved) return rule;
        break;
      case 'basesigned':
        if (!(await facts.baseVerified())) return rule;
        break;
      case 'headsigned':
        if (!(await facts.headVerified())) return rule;
        break;
      case 'commitssigned':
        // Gitea checks the head commit first, then each commit back to the merge base.
        if (!(await facts.headVerified()) || !(await facts.commitsVerified())) return rule;
        break;
    }
  }
  return undefined;
}
