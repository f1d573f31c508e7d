/**
 * `[attachment] ALLOWED_TYPES` as Gitea's modules/upload `Verify` reads it: comma (or `|`) separated entries, each
 * an extension (`.zip`), a MIME type (`application/pdf`) or a MIME family (`image/*`) checked against the type
 * sniffed from the first bytes, or the any-type entry (star, slash, star) for everything; no entries allows
 * everything.
 */
import { mediaTypeOf, sniffContentType } from './sniff';

export function allowedTypeEntries(setting: string): string[] {
  return setting
    .replaceAll('|', ',')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
}

function extensionOf(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot < 0 ? '' : base.slice(dot).toLowerCase();
}

/**
 * The forbidden type to report (Gitea's ErrFileTypeForbidden.Type: the sniffed type), or undefined when the file
 * may be stored. A rename passes no bytes: the type sniffed from nothing is text, as in Gitea.
 */
export function forbiddenType(head: Uint8Array, name: string, setting: string): string | undefined {
  const entries = allowedTypeEntries(setting);
  if (entries.length === 0) return undefined;
  const fullType = sniffContentType(head);
  const mediaType = mediaTypeOf(fullType);
  const extension = extensionOf(name);
  for (const entry of entries) {
    if (entry === '*/*') return undefined;
    if (entry.startsWith('.') && entry === extension) return undefined;
    if (entry.endsWith('/*') && mediaType.startsWith(entry.slice(0, -1))) return undefined;
    if (entry === mediaType) return undefined;
  }
  return fullType;
}

/** Gitea's ErrFileTypeForbidden message. */
export function forbiddenTypeMessage(type: string): string {
  return `This file extension or type is not allowed to be uploaded. Type: ${type}`;
}
