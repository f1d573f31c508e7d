/**
 * The diff excerpt a review comment keeps (Gitea's `comment.patch`, shown as the API's `diff_hunk`): when a line
 * comment is made, Gitea diffs the file from the pull request's merge base to its head and keeps the file's headers
 * and the hunk holding the line, cut to the line and the `[ui] CODE_COMMENT_LINES` lines above it (default 4,
 * config.ui.codeCommentLines; modules/git/diff.go `CutDiffAroundLine`); the API answers the part from the hunk header on (services/convert
 * `patch2diff`). Cairn streams the pull request's whole diff once per review and keeps the sections of the files
 * commented on (FileDiffCollector), then cuts each comment's excerpt here. No I/O.
 */

/** A file's section of a diff is kept up to this size; a longer one is cut off (a line past it has no excerpt). */
export const MAX_FILE_DIFF_BYTES = 4 * 1024 * 1024;

const DIFF_HEAD = 'diff --git ';
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Collects, from a `git diff` written in chunks, the sections of the files named: the section whose header names
 * the path on both sides, or whose `--- a/<path>` / `+++ b/<path>` line does.
 */
export class FileDiffCollector {
  private readonly wanted: ReadonlySet<string>;
  private readonly found = new Map<string, string[]>();
  private tail = '';
  private section: string[] | undefined;
  private sectionBytes = 0;

  constructor(paths: Iterable<string>) {
    this.wanted = new Set(paths);
  }

  push(text: string): void {
    const lines = (this.tail + text).split('\n');
    this.tail = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  /** The sections found, by path (a path without one is missing). */
  finish(): Map<string, string> {
    if (this.tail !== '') this.line(this.tail);
    this.tail = '';
    this.close();
    return new Map([...this.found].map(([path, lines]) => [path, lines.join('\n')]));
  }

  private line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith(DIFF_HEAD)) {
      this.close();
      this.section = [line];
      this.sectionBytes = line.length;
      return;
    }
    if (this.section === undefined || this.sectionBytes > MAX_FILE_DIFF_BYTES) return;
    this.section.push(line);
    this.sectionBytes += line.length + 1;
  }

  private close(): void {
    const section = this.section;
    this.section = undefined;
    if (section === undefined) return;
    const path = this.pathOf(section);
    if (path !== undefined && !this.found.has(path)) this.found.set(path, section);
  }

  private pathOf(section: readonly string[]): string | undefined {
    for (const path of this.wanted) {
      if (section[0] === `${DIFF_HEAD}a/${path} b/${path}`) return path;
    }
    for (const line of section) {
      if (line.startsWith('@@')) break;
      const named = line.startsWith('+++ b/') || line.startsWith('--- a/') ? line.slice(6) : undefined;
      if (named !== undefined && this.wanted.has(named)) return named;
    }
    return undefined;
  }
}

function isHeader(line: string, inHunk: boolean): boolean {
  return line.startsWith(DIFF_HEAD) || (!inHunk && (line.startsWith('---') || line.startsWith('+++')));
}

/**
 * Gitea's CutDiffAroundLine on one file's diff: the file's header lines and the hunk holding `line` (on the old side
 * when `old`), ending at that line and cut to its last `lines` lines with a recomputed hunk header. "" when no hunk
 * holds the line. Kept as Gitea has it, quirks included (the `index` line is not a header; a cut header counts from
 * the end).
 */
export function cutDiffAroundLine(diff: string, line: number, old: boolean, lines: number): string {
  if (line === 0 || lines === 0) return '';
  const hunk: string[] = [];
  let currentLine = 0;
  let otherLine = 0;
  let headerLines = 0;
  let inHunk = false;
  for (const raw of diff.split('\n')) {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (isHeader(text, inHunk)) {
      if (text.startsWith(DIFF_HEAD)) inHunk = false;
      hunk.push(text);
      headerLines += 1;
    }
    if (currentLine > line) break;
    if (text.startsWith('@@')) {
      inHunk = true;
      // Already got the hunk: it ends here.
      if (hunk.length > headerLines) break;
      const match = HUNK_HEADER.exec(text);
      if (match === null) continue;
      const [, beginOld = '0', endOld = '0', beginNew = '0', endNew = '0'] = match;
      const begin = Number(old ? beginOld : beginNew);
      const end = Number(old ? endOld : endNew) + begin;
      otherLine = Number(old ? beginNew : beginOld);
      if (begin <= line && end >= line) {
        hunk.push(text);
        currentLine = begin;
      }
    } else if (hunk.length > headerLines) {
      hunk.push(text);
      switch (text[0]) {
        case '+':
          if (old) otherLine += 1;
          else currentLine += 1;
          break;
        case '-':
          if (old) currentLine += 1;
          else otherLine += 1;
          break;
        case '\\':
          break;
        default:
          currentLine += 1;
          otherLine += 1;
      }
    }
  }
  if (currentLine === 0) return '';
  // The header lines and the hunk header are not code lines.
  if (hunk.length - headerLines - 1 <= lines) return hunk.join('\n');
  let oldBegin = old ? currentLine : otherLine;
  let newBegin = old ? otherLine : currentLine;
  let oldCount = 0;
  let newCount = 0;
  for (let i = hunk.length - 1; i >= hunk.length - lines; i -= 1) {
    switch (hunk[i][0]) {
      case '+':
        newBegin -= 1;
        newCount += 1;
        break;
      case '-':
        oldBegin -= 1;
        oldCount += 1;
        break;
      default:
        oldBegin -= 1;
        newBegin -= 1;
        newCount += 1;
        oldCount += 1;
    }
  }
  const cut = [...hunk.slice(0, headerLines), ...hunk.slice(hunk.length - lines - 1)];
  cut[headerLines] = `@@ -${oldBegin},${oldCount} +${newBegin},${newCount} @@`;
  return cut.join('\n');
}

/** Gitea's patch2diff: the API's diff_hunk is the stored patch from its hunk header on ("" without exactly one). */
export function diffHunkOf(patch: string): string {
  const parts = patch.split('\n@@');
  return parts.length === 2 ? `@@${parts[1]}` : '';
}
