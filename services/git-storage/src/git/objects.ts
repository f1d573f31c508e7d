/**
 * Reading whole objects in bulk: one `git cat-file --batch` process answers every object of a page (commits of a
 * log page, tag objects, branch heads), so a list costs a constant number of processes, not one per row.
 */
import { CairnError } from '@cairn/rpc';
import { runGit } from './command';

export interface GitObject {
  sha: string;
  type: 'commit' | 'tree' | 'blob' | 'tag';
  data: Buffer;
}

const OBJECT_TYPES = new Set(['commit', 'tree', 'blob', 'tag']);

/**
 * Reads each object named by `specs` (object ids or `<rev>^{commit}`-style expressions git resolves itself).
 * The answer maps each spec to its object, or to undefined when git reports it missing or ambiguous.
 * Specs must not contain newlines (callers pass object ids and validated revisions).
 */
export async function readObjects(
  gitDir: string,
  specs: readonly string[],
  /** Extra environment, e.g. a push quarantine's object directories (the pre-receive checks). */
  env?: NodeJS.ProcessEnv,
): Promise<Map<string, GitObject | undefined>> {
  const answers = new Map<string, GitObject | undefined>();
  const unique = [...new Set(specs)];
  if (unique.length === 0) return answers;
  const { stdout } = await runGit(['cat-file', '--batch'], { gitDir, env, stdin: unique.map((spec) => `${spec}\n`).join('') });
  let offset = 0;
  for (const spec of unique) {
    const lineEnd = stdout.indexOf(0x0a, offset);
    if (lineEnd < 0) throw CairnError.internal('git cat-file --batch ended early', { cause: new Error(`no answer for ${spec}`) });
    const header = stdout.subarray(offset, lineEnd).toString('utf8');
    offset = lineEnd + 1;
    const [sha, type, size] = header.split(' ');
    if (sha === undefined || type === undefined || size === undefined || !OBJECT_TYPES.has(type)) {
      // "<spec> missing" or "<spec> ambiguous".
      answers.set(spec, undefined);
      continue;
    }
    const length = Number(size);
    answers.set(spec, { sha, type: type as GitObject['type'], data: stdout.subarray(offset, offset + length) });
    offset += length + 1;
  }
  return answers;
}
