/**
 * Markdown without its code, as Gitea reads bodies for mentions and references (modules/markup/mdstripper: code
 * blocks' lines and code spans' raw text are not rendered, so nothing in them names a user or an issue). Each removed
 * character becomes a space and line breaks stay, so nothing joins across the code and positions do not move.
 *
 * Every step is linear in the text: a body is user input, and a backtracking code-span pattern blocked the server
 * for seconds on 50,000 backticks followed by 50,000 letters.
 */

/**
 * A fenced code block, up to its closing fence or the end of the text. Linear: it is tried only at line starts,
 * every match consumes what it scanned, and the closing fence is tried only right after a line break.
 */
const FENCED_CODE = /^ {0,3}(`{3,}|~{3,})[^\n]*(?:\n[\s\S]*?(?<=\n) {0,3}\1[`~]*[ \t]*(?=\n|$)|[\s\S]*)/gm;

const blank = (code: string) => code.replace(/[^\n]/g, ' ');

/**
 * Indented code blocks blanked: a line indented by four spaces or a tab is code unless it continues a paragraph
 * (CommonMark: an indented code block cannot interrupt one), i.e. unless the line before it is text.
 */
function withoutIndentedCode(text: string): string {
  const lines = text.split('\n');
  let afterText = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!afterText && (line.startsWith('    ') || line.startsWith('\t'))) {
      lines[i] = blank(line);
      continue;
    }
    afterText = line.trim() !== '';
  }
  return lines.join('\n');
}

/**
 * Code spans blanked: a run of backticks opens one that the next run of the same length closes (CommonMark); a run
 * without one is literal. One pass over the runs, each length's candidates taken in order, so any text is linear.
 */
function withoutCodeSpans(text: string): string {
  const runs = [...text.matchAll(/`+/g)].map((match) => ({ at: match.index ?? 0, length: match[0].length }));
  const byLength = new Map<number, number[]>();
  runs.forEach((run, i) => {
    const list = byLength.get(run.length);
    if (list === undefined) byLength.set(run.length, [i]);
    else list.push(i);
  });
  const next = new Map<number, number>();
  let out = '';
  let copied = 0;
  for (let i = 0; i < runs.length; ) {
    const open = runs[i];
    const candidates = byLength.get(open.length) ?? [];
    let c = next.get(open.length) ?? 0;
    while (c < candidates.length && candidates[c] <= i) c += 1;
    next.set(open.length, c);
    if (c >= candidates.length) {
      i += 1;
      continue;
    }
    const close = runs[candidates[c]];
    const end = close.at + close.length;
    out += text.slice(copied, open.at) + blank(text.slice(open.at, end));
    copied = end;
    i = candidates[c] + 1;
  }
  return out + text.slice(copied);
}

/** Markdown without its code blocks (fenced and indented) and code spans, each removed character a space. */
export function withoutCode(markdown: string): string {
  return withoutCodeSpans(withoutIndentedCode(markdown.replace(FENCED_CODE, blank)));
}
