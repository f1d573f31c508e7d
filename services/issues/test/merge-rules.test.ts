import { BranchProtection, Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code } from '@cairn/rpc';
import {
  blockedByOfficialReviewRequests,
  blockedByRejectedReview,
  changedProtectedFiles,
  checkMergeable,
  defaultMergeMessage,
  grantedApprovals,
  hasEnoughApprovals,
  headToMerge,
  isFullCommitId,
  isMergeStyleAllowed,
  isWorkInProgress,
  MERGE_REFUSED,
  MERGE_STYLES,
  type MergeStyle,
  mergeMessage,
  parseMergeStyle,
  type ProtectionFacts,
  protectionRefusal,
  Refusal,
  requiredContextsState,
  type ReviewFacts,
  statusChecksPass,
} from '../src/domain/merge-rules';

const ALL_ALLOWED = Repository.fromPartial({
  allowMergeCommits: true,
  allowRebase: true,
  allowRebaseExplicit: true,
  allowSquashMerge: true,
  allowFastForwardOnlyMerge: true,
  allowManualMerge: true,
});

function rule(partial: Partial<BranchProtection> = {}): BranchProtection {
  return BranchProtection.fromPartial({ ruleName: 'main', enablePush: true, ...partial });
}

function review(reviewerId: number, state: string, extra: Partial<ReviewFacts> = {}): ReviewFacts {
  return { reviewerId, state, official: true, dismissed: false, stale: false, ...extra };
}

const NO_FACTS: ProtectionFacts = { reviews: [], statuses: { statuses: [], combinedState: 'pending' }, behindBase: false, changedProtectedFiles: [] };
const GREEN: ProtectionFacts = { ...NO_FACTS, statuses: { statuses: [{ context: 'ci/build', state: 'success' }], combinedState: 'success' } };

/** The error checkMergeable throws, or undefined. */
function refusalOf(run: () => void): CairnError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
}

describe('merge styles', () => {
  it('parses the six styles and refuses others', () => {
    for (const style of MERGE_STYLES) expect(parseMergeStyle(style)).toBe(style);
    for (const bad of ['', 'MERGE', 'octopus', 'merge ', 'manually_merged']) {
      const error = refusalOf(() => parseMergeStyle(bad));
      expect(error?.code).toBe(Code.INVALID_ARGUMENT);
    }
  });

  it('maps each style to its repository setting', () => {
    const settings: [MergeStyle, keyof Repository][] = [
      ['merge', 'allowMergeCommits'],
      ['rebase', 'allowRebase'],
      ['rebase-merge', 'allowRebaseExplicit'],
      ['squash', 'allowSquashMerge'],
      ['fast-forward-only', 'allowFastForwardOnlyMerge'],
      ['manually-merged', 'allowManualMerge'],
    ];
    for (const [style, key] of settings) {
      expect(isMergeStyleAllowed(ALL_ALLOWED, style)).toBe(true);
      const without = { ...ALL_ALLOWED, [key]: false };
      expect(isMergeStyleAllowed(without, style)).toBe(false);
      for (const other of MERGE_STYLES) if (other !== style) expect(isMergeStyleAllowed(without, other)).toBe(true);
    }
  });
});

describe('work in progress', () => {
  it("matches Gitea's default prefixes case-insensitively at the start only", () => {
    expect(isWorkInProgress('WIP: thing')).toBe(true);
    expect(isWorkInProgress('wip: thing')).toBe(true);
    expect(isWorkInProgress('[WIP] thing')).toBe(true);
    expect(isWorkInProgress('[wip]thing')).toBe(true);
    expect(isWorkInProgress('WIP thing')).toBe(false);
    expect(isWorkInProgress('thing WIP:')).toBe(false);
    expect(isWorkInProgress(' WIP: thing')).toBe(false);
    expect(isWorkInProgress('Draft: x', ['Draft:'])).toBe(true);
    expect(isWorkInProgress('anything', [''])).toBe(false);
  });
});

describe('approvals and reviews', () => {
  it('counts official, undismissed approvals once per reviewer', () => {
    const reviews = [
      review(1, 'APPROVED'),
      review(1, 'APPROVED'),
      review(2, 'APPROVED', { official: false }),
      review(3, 'APPROVED', { dismissed: true }),
      review(4, 'COMMENT'),
      review(5, 'REQUEST_CHANGES'),
      review(6, 'APPROVED', { stale: true }),
    ];
    expect(grantedApprovals(rule(), reviews)).toBe(2);
    expect(grantedApprovals(rule({ ignoreStaleApprovals: true }), reviews)).toBe(1);
    expect(hasEnoughApprovals(rule({ requiredApprovals: 2 }), reviews)).toBe(true);
    expect(hasEnoughApprovals(rule({ requiredApprovals: 3 }), reviews)).toBe(false);
    expect(hasEnoughApprovals(rule({ requiredApprovals: 2, ignoreStaleApprovals: true }), reviews)).toBe(false);
    expect(hasEnoughApprovals(rule({ requiredApprovals: 0 }), [])).toBe(true);
  });

  it('blocks on official, undismissed change requests only when the rule says so', () => {
    const rejected = [review(1, 'REQUEST_CHANGES')];
    expect(blockedByRejectedReview(rule({ blockOnRejectedReviews: true }), rejected)).toBe(true);
    expect(blockedByRejectedReview(rule({ blockOnRejectedReviews: false }), rejected)).toBe(false);
    expect(blockedByRejectedReview(rule({ blockOnRejectedReviews: true }), [review(1, 'REQUEST_CHANGES', { dismissed: true })])).toBe(false);
    expect(blockedByRejectedReview(rule({ blockOnRejectedReviews: true }), [review(1, 'REQUEST_CHANGES', { official: false })])).toBe(false);
  });

  it('blocks on official review requests only when the rule says so', () => {
    expect(blockedByOfficialReviewRequests(rule({ blockOnOfficialReviewRequests: true }), [review(1, 'REQUEST_REVIEW')])).toBe(true);
    expect(blockedByOfficialReviewRequests(rule({ blockOnOfficialReviewRequests: true }), [review(1, 'REQUEST_REVIEW', { official: false })])).toBe(false);
    expect(blockedByOfficialReviewRequests(rule(), [review(1, 'REQUEST_REVIEW')])).toBe(false);
  });
});

describe('required status checks', () => {
  const statuses = (...pairs: [string, string][]) => pairs.map(([context, state]) => ({ context, state }));

  it('is pending without statuses and the combined state without required contexts', () => {
    expect(requiredContextsState({ statuses: [], combinedState: 'success' }, ['ci'])).toBe('pending');
    expect(requiredContextsState({ statuses: statuses(['a', 'failure']), combinedState: 'failure' }, [])).toBe('failure');
  });

  it('takes the most severe state among the required contexts', () => {
    const facts = { statuses: statuses(['ci/build', 'success'], ['ci/test', 'failure'], ['lint', 'error']), combinedState: 'failure' };
    expect(requiredContextsState(facts, ['ci/build'])).toBe('success');
    expect(requiredContextsState(facts, ['ci/*'])).toBe('success'); // the first matching status decides the pattern
    expect(requiredContextsState(facts, ['ci/build', 'ci/test'])).toBe('failure');
    expect(requiredContextsState(facts, ['ci/build', 'lint'])).toBe('error');
    expect(requiredContextsState({ statuses: statuses(['a', 'skipped'], ['b', 'warning']), combinedState: 'failure' }, ['a'])).toBe('success');
    expect(requiredContextsState({ statuses: statuses(['a', 'success'], ['b', 'warning']), combinedState: 'failure' }, ['a', 'b'])).toBe('warning');
  });

  it('is pending when a required context has no status', () => {
    const facts = { statuses: statuses(['ci/build', 'success']), combinedState: 'success' };
    expect(requiredContextsState(facts, ['ci/build', 'deploy'])).toBe('pending');
    expect(requiredContextsState({ statuses: statuses(['ci/build', 'failure']), combinedState: 'failure' }, ['ci/build', 'deploy'])).toBe('failure');
  });

  it('passes only on success when enabled', () => {
    const failing = { statuses: statuses(['ci', 'failure']), combinedState: 'failure' };
    expect(statusChecksPass(rule({ enableStatusCheck: false }), failing)).toBe(true);
    expect(statusChecksPass(rule({ enableStatusCheck: true, statusCheckContexts: ['ci'] }), failing)).toBe(false);
    expect(statusChecksPass(rule({ enableStatusCheck: true, statusCheckContexts: ['other'] }), { statuses: statuses(['ci', 'success']), combinedState: 'success' })).toBe(
      false,
    );
    expect(statusChecksPass(rule({ enableStatusCheck: true, statusCheckContexts: [] }), { statuses: statuses(['ci', 'success']), combinedState: 'success' })).toBe(true);
  });
});

describe('protected files', () => {
  it('matches `;`-separated globs case-insensitively, `*` not crossing `.` or `/`', () => {
    const protectedRule = rule({ protectedFilePatterns: ' *.md ; .gitea/** ' });
    expect(changedProtectedFiles(protectedRule, ['README.md', 'src/a.md', '.gitea/workflows/ci.yml', 'a.txt'])).toEqual(['README.md', '.gitea/workflows/ci.yml']);
    expect(changedProtectedFiles(rule(), ['README.md'])).toEqual([]);
    expect(changedProtectedFiles(rule({ protectedFilePatterns: '**' }), ['a', 'b', 'c'], 2)).toEqual(['a', 'b']);
  });
});

describe('protection refusal order', () => {
  const everything = rule({
    enableStatusCheck: true,
    statusCheckContexts: ['ci'],
    requiredApprovals: 1,
    blockOnRejectedReviews: true,
    blockOnOfficialReviewRequests: true,
    blockOnOutdatedBranch: true,
    protectedFilePatterns: '*.lock',
  });

  it('names the first unmet requirement in Gitea order', () => {
    const facts: ProtectionFacts = {
      reviews: [review(2, 'REQUEST_CHANGES'), review(3, 'REQUEST_REVIEW')],
      statuses: { statuses: [{ context: 'ci', state: 'failure' }], combinedState: 'failure' },
      behindBase: true,
      changedProtectedFiles: ['x.lock'],
    };
    expect(protectionRefusal(undefined, facts)).toBeUndefined();
    expect(protectionRefusal(everything, facts)).toBe(Refusal.statusChecks);
    const green = { ...facts, statuses: { statuses: [{ context: 'ci', state: 'success' }], combinedState: 'success' } };
    expect(protectionRefusal(everything, green)).toBe(Refusal.approvals);
    const approved = { ...green, reviews: [...green.reviews, review(1, 'APPROVED')] };
    expect(protectionRefusal(everything, approved)).toBe(Refusal.rejected);
    const noRejection = { ...approved, reviews: [review(1, 'APPROVED'), review(3, 'REQUEST_REVIEW')] };
    expect(protectionRefusal(everything, noRejection)).toBe(Refusal.officialRequests);
    const noRequests = { ...noRejection, reviews: [review(1, 'APPROVED')] };
    expect(protectionRefusal(everything, noRequests)).toBe(Refusal.outdated);
    expect(protectionRefusal(everything, { ...noRequests, behindBase: false })).toBe(Refusal.protectedFiles);
    expect(protectionRefusal(everything, { ...noRequests, behindBase: false, changedProtectedFiles: [] })).toBeUndefined();
    expect(protectionRefusal(rule(), NO_FACTS)).toBeUndefined();
  });
});

describe('checkMergeable', () => {
  const base = {
    style: 'merge' as MergeStyle,
    settings: ALL_ALLOWED,
    pull: { hasMerged: false, isClosed: false, title: 'Add feature', status: 'mergeable' },
    merger: { signedIn: true, userCanMerge: true, isRepoAdmin: false, forceMerge: false },
    protection: undefined as BranchProtection | undefined,
    protectionFacts: GREEN as ProtectionFacts | undefined,
  };
  const run = (change: Partial<typeof base> = {}) => refusalOf(() => checkMergeable({ ...base, ...change }));
  const expectRefused = (error: CairnError | undefined, message: string) => {
    expect(error?.code).toBe(Code.FAILED_PRECONDITION);
    expect(error?.reason).toBe(MERGE_REFUSED);
    expect(error?.message).toBe(message);
  };

  it('passes a clean, mergeable or empty pull request', () => {
    expect(run()).toBeUndefined();
    expect(run({ pull: { ...base.pull, status: 'empty' } })).toBeUndefined();
  });

  it('refuses merged, closed and unpermitted ones first, in that order', () => {
    expectRefused(run({ pull: { ...base.pull, hasMerged: true, isClosed: true }, merger: { ...base.merger, userCanMerge: false } }), Refusal.alreadyMerged);
    expect(run({ pull: { ...base.pull, isClosed: true }, merger: { ...base.merger, userCanMerge: false } })?.code).toBe(Code.NOT_FOUND);
    expectRefused(run({ merger: { ...base.merger, userCanMerge: false } }), Refusal.notAllowed);
    expectRefused(run({ merger: { ...base.merger, signedIn: false } }), Refusal.notAllowed);
    // force_merge does not give permission
    expectRefused(run({ merger: { ...base.merger, userCanMerge: false, isRepoAdmin: true, forceMerge: true } }), Refusal.notAllowed);
  });

  it('refuses work in progress before mergeability, and every state but mergeable/empty', () => {
    expectRefused(run({ pull: { ...base.pull, title: 'WIP: x', status: 'conflict' } }), Refusal.workInProgress);
    for (const status of ['checking', 'conflict', 'error', 'ancestor', 'manually_merged']) {
      expectRefused(run({ pull: { ...base.pull, status } }), Refusal.notMergeable);
    }
  });

  it('checks the style last', () => {
    const noSquash = { ...ALL_ALLOWED, allowSquashMerge: false };
    expectRefused(run({ style: 'squash', settings: noSquash }), 'squash is not allowed an allowed merge style for this repository');
    expectRefused(run({ style: 'squash', settings: noSquash, pull: { ...base.pull, status: 'conflict' } }), Refusal.notMergeable);
    expect(run({ style: 'merge', settings: noSquash })).toBeUndefined();
  });

  it('a manual merge skips work in progress, mergeability and protection but not the style', () => {
    const manual = { style: 'manually-merged' as MergeStyle, pull: { ...base.pull, title: 'WIP: x', status: 'conflict' } };
    expect(run({ ...manual, protection: rule({ requiredApprovals: 3 }), protectionFacts: NO_FACTS })).toBeUndefined();
    expectRefused(run({ ...manual, settings: { ...ALL_ALLOWED, allowManualMerge: false } }), 'manually-merged is not allowed an allowed merge style for this repository');
    expectRefused(run({ ...manual, pull: { ...manual.pull, hasMerged: true } }), Refusal.alreadyMerged);
    expectRefused(run({ ...manual, merger: { ...base.merger, userCanMerge: false } }), Refusal.notAllowed);
  });

  it('refuses unmet protection unless a repository admin forces it and the rule allows that', () => {
    const protection = rule({ requiredApprovals: 1 });
    expectRefused(run({ protection }), Refusal.approvals);
    expectRefused(run({ protection, merger: { ...base.merger, forceMerge: true } }), Refusal.approvals);
    expectRefused(run({ protection, merger: { ...base.merger, isRepoAdmin: true } }), Refusal.approvals);
    expect(run({ protection, merger: { ...base.merger, isRepoAdmin: true, forceMerge: true } })).toBeUndefined();
    expectRefused(run({ protection: { ...protection, blockAdminMergeOverride: true }, merger: { ...base.merger, isRepoAdmin: true, forceMerge: true } }), Refusal.approvals);
    expect(run({ protection, protectionFacts: { ...GREEN, reviews: [review(9, 'APPROVED')] } })).toBeUndefined();
    // force_merge does not skip work in progress or mergeability
    const admin = { ...base.merger, isRepoAdmin: true, forceMerge: true };
    expectRefused(run({ protection, merger: admin, pull: { ...base.pull, title: '[WIP] x' } }), Refusal.workInProgress);
    expectRefused(run({ protection, merger: admin, pull: { ...base.pull, status: 'conflict' } }), Refusal.notMergeable);
  });
});

describe('merge messages', () => {
  const facts = { title: 'Add feature', index: 7, headBranch: 'feature', baseBranch: 'main', headRepoFullName: undefined };

  it("builds Gitea's default titles", () => {
    expect(defaultMergeMessage('merge', facts)).toBe("Merge pull request 'Add feature' (#7) from feature into main");
    expect(defaultMergeMessage('rebase-merge', facts)).toBe("Merge pull request 'Add feature' (#7) from feature into main");
    expect(defaultMergeMessage('merge', { ...facts, headRepoFullName: 'bob/fork' })).toBe("Merge pull request 'Add feature' (#7) from bob/fork:feature into main");
    expect(defaultMergeMessage('merge', { ...facts, headRepoFullName: null })).toBe("Merge pull request 'Add feature' (#7) from <deleted>:feature into main");
    expect(defaultMergeMessage('squash', facts)).toBe('Add feature (#7)');
    expect(defaultMergeMessage('squash', { ...facts, externalTracker: true })).toBe('Add feature (!7)');
  });

  it('takes the trimmed title or the default, then the trimmed message after a blank line', () => {
    expect(mergeMessage('merge', facts, '', '')).toBe("Merge pull request 'Add feature' (#7) from feature into main");
    expect(mergeMessage('merge', facts, '  Custom  ', '')).toBe('Custom');
    expect(mergeMessage('squash', facts, ' ', ' body\n')).toBe('Add feature (#7)\n\nbody');
    expect(mergeMessage('merge', facts, 'T', 'B')).toBe('T\n\nB');
  });
});

describe('commit ids', () => {
  it('accepts full sha1 (or sha256) hex ids only', () => {
    expect(isFullCommitId('a'.repeat(40))).toBe(true);
    expect(isFullCommitId('A1'.repeat(20))).toBe(true);
    expect(isFullCommitId('a'.repeat(39))).toBe(false);
    expect(isFullCommitId('g'.repeat(40))).toBe(false);
    expect(isFullCommitId('a'.repeat(64))).toBe(false);
    expect(isFullCommitId('a'.repeat(64), 'sha256')).toBe(true);
    expect(isFullCommitId('')).toBe(false);
  });
});

describe('headToMerge', () => {
  const recorded = 'a'.repeat(40);
  const outOfDate = (requested: string, recordedHead = recorded) => {
    const error = refusalOf(() => headToMerge(recordedHead, requested));
    return error === undefined ? undefined : [error.code, error.message, error.reason];
  };

  it('is the recorded head, whether the merger named it or not', () => {
    expect(headToMerge(recorded, '')).toBe(recorded);
    expect(headToMerge(recorded, ` ${recorded} `)).toBe(recorded);
  });

  it('refuses another head, and a pull request no check has recorded a head for', () => {
    const refusal = [Code.ABORTED, 'head out of date', 'head_out_of_date'];
    expect(outOfDate('b'.repeat(40))).toEqual(refusal);
    expect(outOfDate(recorded.slice(0, 7))).toEqual(refusal);
    expect(outOfDate('', '')).toEqual(refusal);
  });
});
