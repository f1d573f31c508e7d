/**
 * Ref names and revisions as users write them. Everything a caller sends that becomes part of a git command line
 * (branch and tag names, revisions) is checked here first, so git never sees an option, a range or a name
 * `git check-ref-format` would refuse.
 */
import { CairnError } from '@cairn/rpc';

export const BRANCH_PREFIX = 'refs/heads/';
export const TAG_PREFIX = 'refs/tags/';

/** The all-zero object id git uses for "no object" (ref creation and deletion). */
export const ZERO_SHA = '0000000000000000000000000000000000000000';

/** Bytes git refuses anywhere in a ref name (check-ref-format rules 4, 5 and the backslash of rule 10). */
const FORBIDDEN_CHARACTERS = /[\u0000-\u0020\u007f~^:?*[\\]/;

/** Why `name` is not a valid short ref name, or undefined when it is. */
export function refNameProblem(name: string): string | undefined {
  if (name === '') return 'is empty';
  if (name === '@') return 'is "@"';
  if (name.startsWith('-')) return 'starts with "-"';
  if (name.startsWith('/') || name.endsWith('/')) return 'starts or ends with "/"';
  if (name.endsWith('.')) return 'ends with "."';
  if (name.includes('//')) return 'contains "//"';
  if (name.includes('..')) return 'contains ".."';
  if (name.includes('@{')) return 'contains "@{"';
  if (FORBIDDEN_CHARACTERS.test(name)) return 'contains a space, control character or one of ~^:?*[\\';
  for (const component of name.split('/')) {
    if (component.startsWith('.')) return 'has a component starting with "."';
    if (component.endsWith('.lock')) return 'has a component ending with ".lock"';
  }
  return undefined;
}

/**
 * Throws INVALID_ARGUMENT (reason `invalid_ref_name`) unless `name` is a branch or tag name git accepts
 * (`git check-ref-format`, plus no leading `-` so it can never be read as an option).
 */
export function assertValidRefName(name: string): void {
  const problem = refNameProblem(name);
  if (problem !== undefined) throw CairnError.invalid(`invalid ref name "${name}": ${problem}`, { reason: 'invalid_ref_name' });
}

/**
 * Throws INVALID_ARGUMENT (reason `invalid_revision`) for a revision that could be read as an option or a range,
 * or that carries control characters: a revision names one thing (branch, tag or commit id).
 */
export function assertValidRevision(revision: string): void {
  if (revision === '' || revision.startsWith('-') || revision.includes('..') || /[\u0000-\u001f\u007f]/.test(revision)) {
    throw CairnError.invalid(`invalid revision "${revision}"`, { reason: 'invalid_revision' });
  }
}

/** A full or abbreviated (at least 4 hex digits) object id. */
export function isCommitIdLike(value: string): boolean {
  return /^[0-9a-f]{4,40}$/i.test(value);
}

/** `refs/heads/<name>` for a validated branch name. */
export function branchRef(name: string): string {
  assertValidRefName(name);
  return BRANCH_PREFIX + name;
}

/** `refs/tags/<name>` for a validated tag name. */
export function tagRef(name: string): string {
  assertValidRefName(name);
  return TAG_PREFIX + name;
}
