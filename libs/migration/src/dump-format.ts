/**
 * Gitea's repository dump format (services/migrations/dump.go RepositoryDumper; the on-disk layout of `gitea
 * dump-repo`): the file names and, per item, its YAML keys in Gitea's order — the yaml tags of modules/migration's
 * structs, untagged Go fields lower-cased whole (`ForeignIndex` → `foreignindex`). This module owns the keys, so a
 * reader (restore) is added next to the writers here.
 *
 * YAML is written as gopkg.in/yaml.v3 writes it: block style; lists of an item at the next multiple of 4 columns
 * (yaml.v3's indentation rule, which for these files is 2 per level below a top-level list and 4 below a top-level
 * map); times as Go's time.RFC3339Nano (fraction dropped when zero; Cairn's times are UTC, so `Z`); a string that
 * would read back as another type (`""`, `true`, `yes`, `0755`, `1e5`, `2021-01-02` …) double-quoted; a string with
 * a line break as a literal block; empty lists `[]`; nil pointers `null`; Go maps (repo.yml, topic.yml, a comment's
 * meta) with their keys sorted.
 */
import { Document, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { Comment, Issue, Label, Milestone, PullRequest, PullRequestBranch, Reaction, Release, ReleaseAsset, Review, ReviewComment } from './base';

/** Where each part of a dump lives, relative to `<repo_dir>/<owner>/<repo>/`. */
export const DUMP_PATHS = {
  repo: 'repo.yml',
  topics: 'topic.yml',
  milestones: 'milestone.yml',
  labels: 'label.yml',
  releases: 'release.yml',
  releaseAssets: 'release_assets',
  issues: 'issue.yml',
  comments: 'comments',
  pullRequests: 'pull_request.yml',
  reviews: 'reviews',
  git: 'git',
  wiki: 'wiki',
  /** Pull request patches, `git/pulls/<number>.patch` (also the patch_url written for them). */
  pullPatches: 'git/pulls',
} as const;

/** A value of the YAML tree: `Date` is a Go time.Time, `null` a nil pointer. */
export type DumpValue = string | number | boolean | null | Date | DumpValue[] | DumpRecord;
/** An ordered record: a Go struct's keys in field order, or a Go map's sorted (goMap). */
export interface DumpRecord {
  readonly [key: string]: DumpValue;
}

/** Gitea's GitServiceType numbers (modules/structs/repo.go), written as repo.yml's `service_type`. */
export const GIT_SERVICE_TYPES = { git: 1, github: 2, gitea: 3, gitlab: 4, gogs: 5, onedev: 6, gitbucket: 7, codebase: 8, codecommit: 9 } as const;
export type GitServiceName = keyof typeof GIT_SERVICE_TYPES;

/** What repo.yml holds (dump.go CreateRepo: the repository and the options it was dumped with). */
export interface DumpRepoInfo {
  name: string;
  owner: string;
  description: string;
  cloneAddr: string;
  originalUrl: string;
  isPrivate: boolean;
  service: GitServiceName;
  wiki: boolean;
  issues: boolean;
  milestones: boolean;
  labels: boolean;
  releases: boolean;
  comments: boolean;
  pulls: boolean;
  assets: boolean;
}

const optionalTime = (time: Date | undefined): Date | null => time ?? null;

export function repoRecord(repo: DumpRepoInfo): DumpRecord {
  return goMap({
    name: repo.name,
    owner: repo.owner,
    description: repo.description,
    clone_addr: repo.cloneAddr,
    original_url: repo.originalUrl,
    is_private: repo.isPrivate,
    service_type: GIT_SERVICE_TYPES[repo.service],
    wiki: repo.wiki,
    issues: repo.issues,
    milestones: repo.milestones,
    labels: repo.labels,
    releases: repo.releases,
    comments: repo.comments,
    pulls: repo.pulls,
    assets: repo.assets,
  });
}

export const topicsRecord = (topics: string[]): DumpRecord => goMap({ topics });

export function labelRecord(label: Label): DumpRecord {
  return { name: label.name, color: label.color, description: label.description, exclusive: label.exclusive };
}

export function milestoneRecord(milestone: Milestone): DumpRecord {
  return {
    title: milestone.title,
    description: milestone.description,
    deadline: optionalTime(milestone.deadline),
    created: milestone.created,
    updated: optionalTime(milestone.updated),
    closed: optionalTime(milestone.closed),
    state: milestone.state,
  };
}

export function reactionRecord(reaction: Reaction): DumpRecord {
  return { user_id: reaction.userId, user_name: reaction.userName, content: reaction.content };
}

export function releaseAssetRecord(asset: ReleaseAsset): DumpRecord {
  return {
    id: asset.id,
    name: asset.name,
    content_type: asset.contentType ?? null,
    size: asset.size ?? null,
    download_count: asset.downloadCount ?? null,
    created: asset.created,
    updated: asset.updated,
    download_url: asset.downloadUrl ?? null,
  };
}

export function releaseRecord(release: Release): DumpRecord {
  return {
    tag_name: release.tagName,
    target_commitish: release.targetCommitish,
    name: release.name,
    body: release.body,
    draft: release.draft,
    prerelease: release.prerelease,
    publisher_id: release.publisherId,
    publisher_name: release.publisherName,
    publisher_email: release.publisherEmail,
    assets: release.assets.map(releaseAssetRecord),
    created: release.created,
    published: release.published,
  };
}

export function issueRecord(issue: Issue): DumpRecord {
  return {
    number: issue.number,
    poster_id: issue.posterId,
    poster_name: issue.posterName,
    poster_email: issue.posterEmail,
    title: issue.title,
    content: issue.content,
    ref: issue.ref,
    milestone: issue.milestone,
    state: issue.state,
    is_locked: issue.isLocked,
    created: issue.created,
    updated: issue.updated,
    closed: optionalTime(issue.closed),
    labels: issue.labels.map(labelRecord),
    reactions: issue.reactions.map(reactionRecord),
    assignees: issue.assignees,
    foreignindex: issue.foreignIndex,
  };
}

export function commentRecord(comment: Comment): DumpRecord {
  const record: Record<string, DumpValue> = {
    issue_index: comment.issueIndex,
    index: comment.index,
    comment_type: comment.commentType,
    poster_id: comment.posterId,
    poster_name: comment.posterName,
    poster_email: comment.posterEmail,
    created: comment.created,
    updated: comment.updated,
    content: comment.content,
    reactions: comment.reactions.map(reactionRecord),
  };
  // `meta,omitempty`.
  if (comment.meta !== undefined && Object.keys(comment.meta).length > 0) record.meta = metaValue(comment.meta);
  return record;
}

/** A comment's meta (Go's map[string]interface{}): JSON-like values only. */
function metaValue(value: unknown): DumpValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value instanceof Date) return value;
  if (Array.isArray(value)) return value.map(metaValue);
  if (typeof value === 'object') return goMap(Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, metaValue(entry)])));
  return String(value);
}

function branchRecord(branch: PullRequestBranch): DumpRecord {
  return { clone_url: branch.cloneUrl, ref: branch.ref, sha: branch.sha, repo_name: branch.repoName, owner_name: branch.ownerName };
}

/** `ensuredSafe`: Gitea's dumper refuses a pull request its downloader did not check (dump.go handlePullRequest). */
export function pullRequestRecord(pull: PullRequest, ensuredSafe: boolean): DumpRecord {
  return {
    number: pull.number,
    title: pull.title,
    poster_name: pull.posterName,
    poster_id: pull.posterId,
    poster_email: pull.posterEmail,
    content: pull.content,
    milestone: pull.milestone,
    state: pull.state,
    created: pull.created,
    updated: pull.updated,
    closed: optionalTime(pull.closed),
    labels: pull.labels.map(labelRecord),
    patch_url: pull.patchUrl,
    merged: pull.merged,
    merged_time: optionalTime(pull.mergedTime),
    merge_commit_sha: pull.mergeCommitSha,
    head: branchRecord(pull.head),
    base: branchRecord(pull.base),
    assignees: pull.assignees,
    is_locked: pull.isLocked,
    reactions: pull.reactions.map(reactionRecord),
    foreignindex: pull.foreignIndex,
    ensured_safe: ensuredSafe,
    is_draft: pull.isDraft,
  };
}

function reviewCommentRecord(comment: ReviewComment): DumpRecord {
  return {
    id: comment.id,
    in_reply_to: comment.inReplyTo,
    content: comment.content,
    tree_path: comment.treePath,
    diff_hunk: comment.diffHunk,
    position: comment.position,
    line: comment.line,
    commit_id: comment.commitId,
    poster_id: comment.posterId,
    reactions: comment.reactions.map(reactionRecord),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
  };
}

export function reviewRecord(review: Review): DumpRecord {
  return {
    id: review.id,
    issue_index: review.issueIndex,
    reviewer_id: review.reviewerId,
    reviewer_name: review.reviewerName,
    official: review.official,
    commit_id: review.commitId,
    content: review.content,
    created_at: review.createdAt,
    state: review.state,
    comments: review.comments.map(reviewCommentRecord),
  };
}

/** Go's time.Time in yaml.v3: `t.Format(time.RFC3339Nano)`, trailing zeros of the fraction dropped. */
export function goTime(time: Date): string {
  return time.toISOString().replace(/\.(\d*?)0*Z$/, (_match, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`));
}

/**
 * Whether yaml.v3 quotes a string that would otherwise be plain (encode.go stringv: it resolves to a non-string —
 * null, bool, int, float, timestamp, merge key — or is a YAML 1.1 bool or base 60 float).
 */
function readsAsOtherType(text: string): boolean {
  if (/^(|~|null|Null|NULL|true|True|TRUE|false|False|FALSE|<<)$/.test(text)) return true;
  if (/^(y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/.test(text)) return true;
  if (/^[-+]?(\.inf|\.Inf|\.INF)$|^(\.nan|\.NaN|\.NAN)$/.test(text)) return true;
  const plain = text.replace(/_/g, '');
  if (/^[-+]?(0b[01]+|0o[0-7]+|0x[0-9a-fA-F]+|[0-9]+)$/.test(plain)) return true;
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(plain)) return true;
  if (/^\d{4}-\d{1,2}-\d{1,2}(([Tt]|[ \t]+)\d{1,2}:\d{1,2}:\d{1,2}(\.\d*)?([ \t]*(Z|[-+]\d{1,2}(:\d{2})?))?)?$/.test(text)) return true;
  return /^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$/.test(text);
}

function stringNode(text: string): Scalar {
  const node = new Scalar(text);
  if (readsAsOtherType(text)) node.type = Scalar.QUOTE_DOUBLE;
  // A space before a line break, or a tab, rules out block styles in libyaml's emitter.
  else if (text.includes('\n')) node.type = / [\r\n]|\t/.test(text) ? Scalar.QUOTE_DOUBLE : Scalar.BLOCK_LITERAL;
  else node.type = Scalar.PLAIN;
  return node;
}

type Node = Scalar | YAMLSeq | YAMLMap;

function toNode(value: DumpValue): Node {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return new Scalar(value);
  if (typeof value === 'string') return stringNode(value);
  if (value instanceof Date) {
    const node = new Scalar(goTime(value));
    node.type = Scalar.PLAIN;
    return node;
  }
  if (Array.isArray(value)) {
    const seq = new YAMLSeq();
    seq.items = value.map(toNode);
    seq.flow = value.length === 0;
    return seq;
  }
  const map = new YAMLMap();
  const keys = Object.keys(value);
  map.items = keys.map((key) => new Pair(new Scalar(key), toNode(value[key])));
  map.flow = keys.length === 0;
  return map;
}

/** yaml.v3's map key order (sorter.go keyList.Less) for the keys these files have: letters after other characters. */
function compareGoMapKeys(a: string, b: string): number {
  for (let index = 0; index < a.length && index < b.length; index++) {
    if (a[index] === b[index]) continue;
    const aLetter = /\p{L}/u.test(a[index]);
    const bLetter = /\p{L}/u.test(b[index]);
    if (aLetter !== bLetter) return aLetter ? 1 : -1;
    return a[index] < b[index] ? -1 : 1;
  }
  return a.length - b.length;
}

/** A Go map's entries in yaml.v3's order. */
export function goMap(record: DumpRecord): DumpRecord {
  return Object.fromEntries(Object.keys(record).sort(compareGoMapKeys).map((key) => [key, record[key]]));
}

/**
 * One YAML document as yaml.v3 writes it. A list of items (issue.yml …) is a block list whose appended batches
 * concatenate into one list, as Gitea appends each batch to the same file; a map is a Go map (keys sorted).
 */
export function dumpYaml(value: DumpValue[] | DumpRecord): string {
  const isList = Array.isArray(value);
  const doc = new Document();
  doc.contents = toNode(value);
  // Below a top-level list yaml.v3's indentation is 2 per level; below a top-level map, 4.
  return doc.toString({ indent: isList ? 2 : 4, indentSeq: true, lineWidth: 0, singleQuote: true });
}

// ---------------------------------------------------------------------------------------------------------------
// Reading (Gitea's services/migrations/restore.go RepositoryRestorer): each record back to the model, with the same
// keys as the writers above. Gitea's restorer unmarshals into its structs, so a missing key is the field's zero
// value and an unknown key is ignored; the same here.

/** A parsed YAML value as the `yaml` package answers it (YAML 1.2 core schema: times stay strings). */
export type ParsedYaml = unknown;

function recordOf(value: ParsedYaml): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A list file's items (a missing or empty document is an empty list). */
export function listOf(value: ParsedYaml): Record<string, unknown>[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new Error('expected a list');
  return value.map(recordOf);
}

const str = (record: Record<string, unknown>, key: string): string => {
  const value = record[key];
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
};
const num = (record: Record<string, unknown>, key: string): number => {
  const value = record[key];
  const parsed = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : 0;
  return Number.isFinite(parsed) ? parsed : 0;
};
/** Go's strconv.ParseBool for repo.yml's strings, and YAML booleans. */
const bool = (record: Record<string, unknown>, key: string): boolean => {
  const value = record[key];
  return value === true || (typeof value === 'string' && ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value));
};
const optionalNum = (record: Record<string, unknown>, key: string): number | undefined => (record[key] === null || record[key] === undefined ? undefined : num(record, key));
/** A time (Go's zero time when missing or unreadable, as Gitea's unmarshal leaves it). */
const time = (record: Record<string, unknown>, key: string): Date => optionalTimeOf(record, key) ?? new Date(Date.UTC(1, 0, 1));
function optionalTimeOf(record: Record<string, unknown>, key: string): Date | undefined {
  const value = record[key];
  if (value instanceof Date) return value;
  if (typeof value !== 'string' || value === '') return undefined;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
}
const strings = (record: Record<string, unknown>, key: string): string[] =>
  Array.isArray(record[key]) ? (record[key] as unknown[]).filter((item): item is string => typeof item === 'string') : [];
const records = (record: Record<string, unknown>, key: string): Record<string, unknown>[] => (Array.isArray(record[key]) ? (record[key] as unknown[]).map(recordOf) : []);

/** repo.yml (Gitea reads it as map[string]string); `service` is `git` for an unknown service_type. */
export function repoFromRecord(value: ParsedYaml): DumpRepoInfo & { defaultBranch: string } {
  const record = recordOf(value);
  const type = num(record, 'service_type');
  const service = (Object.keys(GIT_SERVICE_TYPES) as GitServiceName[]).find((name) => GIT_SERVICE_TYPES[name] === type) ?? 'git';
  return {
    name: str(record, 'name'),
    owner: str(record, 'owner'),
    description: str(record, 'description'),
    cloneAddr: str(record, 'clone_addr'),
    originalUrl: str(record, 'original_url'),
    isPrivate: bool(record, 'is_private'),
    service,
    wiki: bool(record, 'wiki'),
    issues: bool(record, 'issues'),
    milestones: bool(record, 'milestones'),
    labels: bool(record, 'labels'),
    releases: bool(record, 'releases'),
    comments: bool(record, 'comments'),
    pulls: bool(record, 'pulls'),
    assets: bool(record, 'assets'),
    defaultBranch: str(record, 'default_branch'),
  };
}

export const topicsFromRecord = (value: ParsedYaml): string[] => strings(recordOf(value), 'topics');

export function labelFromRecord(record: Record<string, unknown>): Label {
  return { name: str(record, 'name'), color: str(record, 'color'), description: str(record, 'description'), exclusive: bool(record, 'exclusive') };
}

export function milestoneFromRecord(record: Record<string, unknown>): Milestone {
  return {
    title: str(record, 'title'),
    description: str(record, 'description'),
    deadline: optionalTimeOf(record, 'deadline'),
    created: time(record, 'created'),
    updated: optionalTimeOf(record, 'updated'),
    closed: optionalTimeOf(record, 'closed'),
    state: str(record, 'state') === 'closed' ? 'closed' : 'open',
  };
}

export function reactionFromRecord(record: Record<string, unknown>): Reaction {
  return { userId: num(record, 'user_id'), userName: str(record, 'user_name'), content: str(record, 'content') };
}

export function releaseAssetFromRecord(record: Record<string, unknown>): ReleaseAsset {
  const downloadUrl = record.download_url;
  return {
    id: num(record, 'id'),
    name: str(record, 'name'),
    contentType: record.content_type === null || record.content_type === undefined ? undefined : str(record, 'content_type'),
    size: optionalNum(record, 'size'),
    downloadCount: optionalNum(record, 'download_count'),
    created: time(record, 'created'),
    updated: time(record, 'updated'),
    downloadUrl: typeof downloadUrl === 'string' ? downloadUrl : undefined,
  };
}

export function releaseFromRecord(record: Record<string, unknown>): Release {
  return {
    tagName: str(record, 'tag_name'),
    targetCommitish: str(record, 'target_commitish'),
    name: str(record, 'name'),
    body: str(record, 'body'),
    draft: bool(record, 'draft'),
    prerelease: bool(record, 'prerelease'),
    publisherId: num(record, 'publisher_id'),
    publisherName: str(record, 'publisher_name'),
    publisherEmail: str(record, 'publisher_email'),
    assets: records(record, 'assets').map(releaseAssetFromRecord),
    created: time(record, 'created'),
    published: time(record, 'published'),
  };
}

export function issueFromRecord(record: Record<string, unknown>): Issue {
  return {
    number: num(record, 'number'),
    posterId: num(record, 'poster_id'),
    posterName: str(record, 'poster_name'),
    posterEmail: str(record, 'poster_email'),
    title: str(record, 'title'),
    content: str(record, 'content'),
    ref: str(record, 'ref'),
    milestone: str(record, 'milestone'),
    state: str(record, 'state') === 'closed' ? 'closed' : 'open',
    isLocked: bool(record, 'is_locked'),
    created: time(record, 'created'),
    updated: time(record, 'updated'),
    closed: optionalTimeOf(record, 'closed'),
    labels: records(record, 'labels').map(labelFromRecord),
    reactions: records(record, 'reactions').map(reactionFromRecord),
    assignees: strings(record, 'assignees'),
    foreignIndex: num(record, 'foreignindex'),
  };
}

export function commentFromRecord(record: Record<string, unknown>): Comment {
  const meta = record.meta;
  return {
    issueIndex: num(record, 'issue_index'),
    index: num(record, 'index'),
    commentType: str(record, 'comment_type'),
    posterId: num(record, 'poster_id'),
    posterName: str(record, 'poster_name'),
    posterEmail: str(record, 'poster_email'),
    created: time(record, 'created'),
    updated: time(record, 'updated'),
    content: str(record, 'content'),
    reactions: records(record, 'reactions').map(reactionFromRecord),
    meta: typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined,
  };
}

function branchFromRecord(record: Record<string, unknown>): PullRequestBranch {
  return { cloneUrl: str(record, 'clone_url'), ref: str(record, 'ref'), sha: str(record, 'sha'), repoName: str(record, 'repo_name'), ownerName: str(record, 'owner_name') };
}

export function pullRequestFromRecord(record: Record<string, unknown>): PullRequest {
  return {
    number: num(record, 'number'),
    title: str(record, 'title'),
    posterName: str(record, 'poster_name'),
    posterId: num(record, 'poster_id'),
    posterEmail: str(record, 'poster_email'),
    content: str(record, 'content'),
    milestone: str(record, 'milestone'),
    state: str(record, 'state') === 'closed' ? 'closed' : 'open',
    created: time(record, 'created'),
    updated: time(record, 'updated'),
    closed: optionalTimeOf(record, 'closed'),
    labels: records(record, 'labels').map(labelFromRecord),
    patchUrl: str(record, 'patch_url'),
    merged: bool(record, 'merged'),
    mergedTime: optionalTimeOf(record, 'merged_time'),
    mergeCommitSha: str(record, 'merge_commit_sha'),
    head: branchFromRecord(recordOf(record.head)),
    base: branchFromRecord(recordOf(record.base)),
    assignees: strings(record, 'assignees'),
    isLocked: bool(record, 'is_locked'),
    reactions: records(record, 'reactions').map(reactionFromRecord),
    foreignIndex: num(record, 'foreignindex'),
    isDraft: bool(record, 'is_draft'),
  };
}

function reviewCommentFromRecord(record: Record<string, unknown>): ReviewComment {
  return {
    id: num(record, 'id'),
    inReplyTo: num(record, 'in_reply_to'),
    content: str(record, 'content'),
    treePath: str(record, 'tree_path'),
    diffHunk: str(record, 'diff_hunk'),
    position: num(record, 'position'),
    line: num(record, 'line'),
    commitId: str(record, 'commit_id'),
    posterId: num(record, 'poster_id'),
    reactions: records(record, 'reactions').map(reactionFromRecord),
    createdAt: time(record, 'created_at'),
    updatedAt: time(record, 'updated_at'),
  };
}

export function reviewFromRecord(record: Record<string, unknown>): Review {
  return {
    id: num(record, 'id'),
    issueIndex: num(record, 'issue_index'),
    reviewerId: num(record, 'reviewer_id'),
    reviewerName: str(record, 'reviewer_name'),
    official: bool(record, 'official'),
    commitId: str(record, 'commit_id'),
    content: str(record, 'content'),
    createdAt: time(record, 'created_at'),
    state: str(record, 'state'),
    comments: records(record, 'comments').map(reviewCommentFromRecord),
  };
}
