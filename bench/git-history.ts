/**
 * A repository with a long history, made fast and always the same: a generated `git fast-import` stream (fixed
 * authors, dates and contents, so the same shape gives the same commit ids on every machine), then a full
 * repack so its pack is what a hosted repository's would be (fast-import's own deltas are poor).
 */
import { git } from './git';

export interface HistoryShape {
  commits: number;
  /** Files in the tree, spread over a few directories; the first commit adds them all. */
  files: number;
  /** Files each later commit changes (one line each, and a line more every tenth commit). */
  filesPerCommit: number;
  /** Lines of each file in the first commit. */
  lines: number;
}

export const HISTORY_BRANCH = 'main';

const DIRECTORIES = ['src', 'src/lib', 'docs', 'test'];
/** 2023-11-14T22:13:20Z; commits are ten minutes apart. */
const FIRST_COMMIT_TIME = 1_700_000_000;
const IDENTITY = 'Bench Author <bench@example.com>';

const data = (text: string): string => `data ${Buffer.byteLength(text)}\n${text}\n`;

/** The fast-import commands for `shape`, commit by commit, ending with `done`. */
export function* fastImportStream(shape: HistoryShape): Generator<string> {
  if (shape.filesPerCommit > shape.files) throw new Error('a commit cannot change more files than there are');
  const files = Array.from({ length: shape.files }, (_, f) => ({
    path: `${DIRECTORIES[f % DIRECTORIES.length]}/file-${f}.txt`,
    lines: Array.from({ length: shape.lines }, (_, l) => `line ${l} of file ${f}: as first written`),
  }));
  for (let commit = 1; commit <= shape.commits; commit++) {
    let touched: number[];
    if (commit === 1) touched = files.map((_, f) => f);
    else {
      // Consecutive files from a moving start: each file changes as often as the others.
      touched = Array.from({ length: shape.filesPerCommit }, (_, k) => (commit * shape.filesPerCommit + k) % shape.files);
      for (const f of touched) {
        const lines = files[f].lines;
        const at = (commit * 31 + f) % lines.length;
        lines[at] = `line ${at} of file ${f}: changed by commit ${commit}`;
        if (commit % 10 === 0) lines.push(`line ${lines.length} of file ${f}: added by commit ${commit}`);
      }
    }
    const when = `${FIRST_COMMIT_TIME + commit * 600} +0000`;
    let out = `commit refs/heads/${HISTORY_BRANCH}\nmark :${commit}\nauthor ${IDENTITY} ${when}\ncommitter ${IDENTITY} ${when}\n`;
    out += data(`Commit ${commit} of ${shape.commits}\n\nChanges ${touched.map((f) => files[f].path).join(', ')}.\n`);
    if (commit > 1) out += `from :${commit - 1}\n`;
    for (const f of touched) out += `M 100644 inline ${files[f].path}\n${data(`${files[f].lines.join('\n')}\n`)}`;
    yield `${out}\n`;
  }
  yield 'done\n';
}

/** Creates the bare repository `gitDir` holding `shape`'s history on `main` (its HEAD); answers the tip's id. */
export async function createHistoryRepository(gitDir: string, shape: HistoryShape, signal?: AbortSignal): Promise<string> {
  await git(['init', '--bare', '--quiet', `--initial-branch=${HISTORY_BRANCH}`, gitDir], { signal });
  await git(['fast-import', '--quiet', '--done'], { gitDir, input: fastImportStream(shape), signal });
  await git(['repack', '-a', '-d', '-f', '--quiet'], { gitDir, signal });
  return (await git(['rev-parse', '--verify', `refs/heads/${HISTORY_BRANCH}`], { gitDir, signal })).trim();
}
