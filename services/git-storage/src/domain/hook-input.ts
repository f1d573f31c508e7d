/** What git hands a pre-receive hook on stdin: one `<old-sha> SP <new-sha> SP <ref>` line per proposed update. */
import type { RefUpdate } from '../git/ref-update';

const LINE = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (refs\/\S+)$/;

/** The updates of a hook's input; undefined when a line is not of git's form. */
export function parseHookInput(input: string): RefUpdate[] | undefined {
  const updates: RefUpdate[] = [];
  for (const line of input.split('\n')) {
    if (line === '') continue;
    const match = LINE.exec(line);
    if (match === null) return undefined;
    updates.push({ oldSha: match[1], newSha: match[2], ref: match[3] });
  }
  return updates;
}
