/** Gitea's repository name rules (models/repo `IsUsableRepoName`, the API's `AlphaDashDot;MaxSize(100)` binding). */
import { CairnError } from '@cairn/rpc';

export const MAX_REPO_NAME_LENGTH = 100;

const RESERVED_NAMES: readonly string[] = ['.', '..', '-'];
const RESERVED_SUFFIXES: readonly string[] = ['.git', '.wiki', '.rss', '.atom'];
// Go's `[^\w-\.]`: anything but ASCII letters, digits, `_`, `-` and `.`.
const NOT_ALPHA_DASH_DOT = /[^\w.-]/;

function invalid(message: string): CairnError {
  return CairnError.invalid(message, { reason: 'repo_name_invalid' });
}

/** INVALID_ARGUMENT (reason repo_name_invalid, Gitea's messages) unless `name` may name a repository. */
export function assertUsableRepoName(name: string): void {
  if (NOT_ALPHA_DASH_DOT.test(name)) {
    throw invalid(`name is invalid [${name}]: must be valid alpha or numeric or dash(-_) or dot characters`);
  }
  if (name.length > MAX_REPO_NAME_LENGTH) throw invalid(`name is too long [${name}]: at most ${MAX_REPO_NAME_LENGTH} characters`);
  const lower = name.trim().toLowerCase();
  if (lower === '') throw invalid('name is empty');
  if (RESERVED_NAMES.includes(lower)) throw invalid(`name is reserved [name: ${lower}]`);
  const suffix = RESERVED_SUFFIXES.find((candidate) => lower.endsWith(candidate));
  if (suffix !== undefined) throw invalid(`name pattern is not allowed [pattern: *${suffix}]`);
}
