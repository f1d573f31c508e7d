/**
 * The mirror file: every issue seen, keyed `<owner>/<repo>#<number>`, and the ids of the events already applied, so an
 * event delivered again (JetStream delivers at least once) changes nothing. Written whole to a temporary file and
 * renamed over the old one, so a crash leaves the old file or the new one, never half of one.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';

export interface MirroredIssue {
  title: string;
  state: string;
  body: string;
  labels: string[];
  /** Comments on the issue, as the last event told. */
  comments: number;
  updated_at: string;
  html_url: string;
}

export interface Mirror {
  issues: Record<string, MirroredIssue>;
  /** `ce-id`s applied, oldest first; the last SEEN_IDS_KEPT of them. */
  seen: string[];
}

/**
 * Ids remembered for deduplication. A redelivery comes within the consumer's ack wait and a replay (`--since`)
 * re-reads what the stream keeps; for a mirror, applying a very old event again is harmless (the next event of the
 * issue sets it right), so a bounded list is enough.
 */
const SEEN_IDS_KEPT = 10_000;

/** The parts of Gitea's `issues` and `issue_comment` payloads (modules/structs/hook.go IssuePayload) used here. */
interface IssuesPayload {
  action: string;
  issue: {
    number: number;
    title: string;
    body: string;
    state: string;
    labels: { name: string }[] | null;
    comments: number;
    updated_at: string;
    html_url: string;
  };
  repository: { full_name: string };
}

export async function loadMirror(file: string): Promise<Mirror> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Mirror;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { issues: {}, seen: [] };
    throw error;
  }
}

export async function saveMirror(file: string, mirror: Mirror): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(mirror, null, 2)}\n`);
  await rename(temporary, file);
}

/**
 * Applies one event to the mirror; false when its id was applied before. `eventType` is the subject's last token
 * (Gitea's `X-Gitea-Event-Type`): `issues` sets or (action `deleted`) removes the issue, `issue_comment` refreshes it
 * with its comment count; other event types are not the mirror's business.
 */
export function applyEvent(mirror: Mirror, id: string, eventType: string, data: Uint8Array): boolean {
  if (mirror.seen.includes(id)) return false;
  if (eventType === 'issues' || eventType === 'issue_comment') {
    const payload = JSON.parse(new TextDecoder().decode(data)) as IssuesPayload;
    const key = `${payload.repository.full_name}#${payload.issue.number}`;
    if (eventType === 'issues' && payload.action === 'deleted') {
      delete mirror.issues[key];
    } else {
      const { title, body, state, labels, comments, updated_at, html_url } = payload.issue;
      mirror.issues[key] = { title, state, body, labels: (labels ?? []).map((label) => label.name), comments, updated_at, html_url };
    }
  }
  mirror.seen.push(id);
  if (mirror.seen.length > SEEN_IDS_KEPT) mirror.seen.splice(0, mirror.seen.length - SEEN_IDS_KEPT);
  return true;
}
