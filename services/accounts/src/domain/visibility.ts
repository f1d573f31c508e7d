/** Account visibility (Gitea's `structs.VisibleType`), stored and sent by name. */
import { visibilityInvalid } from './errors';

export const VISIBILITIES = ['public', 'limited', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export function isVisibility(value: string): value is Visibility {
  return (VISIBILITIES as readonly string[]).includes(value);
}

/** `value` as a visibility; the empty string means `fallback` (the instance default). */
export function parseVisibility(value: string, fallback: Visibility): Visibility {
  if (value === '') return fallback;
  if (!isVisibility(value)) throw visibilityInvalid(value);
  return value;
}
