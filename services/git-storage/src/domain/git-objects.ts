/**
 * Commit and tag objects as git stores them (`git cat-file commit|tag`), parsed into the RPC messages. Parsing the
 * raw object, rather than a `--format` rendering, keeps the message byte-exact and lets the signed payload be
 * rebuilt exactly as git verifies it: the object without its `gpgsig` header.
 */
import type { Commit, Signature, Tag } from '@cairn/proto/cairn/git/v1/git_service';

/** Headers whose value is a signature over the rest of the object (sha1 and sha256 repositories). */
const SIGNATURE_HEADERS = new Set(['gpgsig', 'gpgsig-sha256']);

interface Header {
  key: string;
  /** Continuation lines joined with "\n", their leading space removed. */
  value: string;
  /** The header's raw lines (with continuations), for rebuilding the payload. */
  raw: string;
}

interface ParsedObject {
  headers: Header[];
  message: string;
}

/** Splits a raw commit or tag object into its headers and message. */
function parseObject(data: Buffer): ParsedObject {
  const text = data.toString('utf8');
  const split = text.indexOf('\n\n');
  const head = split < 0 ? text : text.slice(0, split);
  const message = split < 0 ? '' : text.slice(split + 2);
  const headers: Header[] = [];
  for (const line of head === '' ? [] : head.split('\n')) {
    const last = headers[headers.length - 1];
    if (line.startsWith(' ') && last !== undefined) {
      last.value += `\n${line.slice(1)}`;
      last.raw += `\n${line}`;
      continue;
    }
    const space = line.indexOf(' ');
    const key = space < 0 ? line : line.slice(0, space);
    const value = space < 0 ? '' : line.slice(space + 1);
    headers.push({ key, value, raw: line });
  }
  return { headers, message };
}

function headerValue(headers: readonly Header[], key: string): string | undefined {
  return headers.find((header) => header.key === key)?.value;
}

/** `Name <email> 1700000000 +0200` → Signature; lenient about the broken identities old tools wrote. */
export function parseSignature(value: string): Signature {
  const open = value.indexOf('<');
  const close = value.indexOf('>', open + 1);
  if (open < 0 || close < 0) return { name: value.trim(), email: '', when: undefined, timezone: '' };
  const name = value.slice(0, open).trim();
  const email = value.slice(open + 1, close);
  const [seconds, timezone] = value.slice(close + 1).trim().split(/\s+/);
  const epoch = Number(seconds);
  return {
    name,
    email,
    when: seconds !== undefined && seconds !== '' && Number.isFinite(epoch) ? new Date(epoch * 1000) : undefined,
    timezone: timezone !== undefined && /^[+-]\d{4}$/.test(timezone) ? timezone : '+0000',
  };
}

/** A commit object's fields (no stats: those come from a diff, see log.ts). */
export function parseCommit(sha: string, data: Buffer): Commit {
  const { headers, message } = parseObject(data);
  const author = headerValue(headers, 'author');
  const committer = headerValue(headers, 'committer');
  const signatureHeader = headers.find((header) => SIGNATURE_HEADERS.has(header.key));
  let signedPayload = '';
  if (signatureHeader !== undefined) {
    const unsignedHead = headers.filter((header) => header !== signatureHeader).map((header) => `${header.raw}\n`);
    signedPayload = `${unsignedHead.join('')}\n${message}`;
  }
  return {
    sha,
    treeSha: headerValue(headers, 'tree') ?? '',
    parentShas: headers.filter((header) => header.key === 'parent').map((header) => header.value),
    author: author === undefined ? undefined : parseSignature(author),
    committer: committer === undefined ? undefined : parseSignature(committer),
    message,
    signature: signatureHeader === undefined ? '' : `${signatureHeader.value}\n`,
    signedPayload,
    additions: 0,
    deletions: 0,
    files: [],
  };
}

const SIGNATURE_MARKERS = ['-----BEGIN PGP SIGNATURE-----', '-----BEGIN SSH SIGNATURE-----'];

/** Where an annotated tag's message ends and its (PGP or SSH) signature starts; -1 when unsigned. */
function signatureStart(message: string): number {
  let first = -1;
  for (const marker of SIGNATURE_MARKERS) {
    const newline = message.indexOf(`\n${marker}`);
    const start = message.startsWith(marker) ? 0 : newline < 0 ? -1 : newline + 1;
    if (start >= 0 && (first < 0 || start < first)) first = start;
  }
  return first;
}

export interface AnnotatedTag {
  /** The object the tag points at (maybe another tag). */
  object: string;
  message: string;
  tagger: Signature | undefined;
}

/** An annotated tag object; the message without its signature block, as Gitea shows it. */
export function parseTagObject(data: Buffer): AnnotatedTag {
  const { headers, message } = parseObject(data);
  const tagger = headerValue(headers, 'tagger');
  const cut = signatureStart(message);
  return {
    object: headerValue(headers, 'object') ?? '',
    message: cut < 0 ? message : message.slice(0, cut),
    tagger: tagger === undefined ? undefined : parseSignature(tagger),
  };
}

/** A Tag message from its parts. */
export function toTag(name: string, id: string, commit: Commit | undefined, annotated: AnnotatedTag | undefined): Tag {
  return {
    name,
    id,
    commit,
    message: annotated?.message ?? '',
    tagger: annotated?.tagger,
    annotated: annotated !== undefined,
  };
}
