/**
 * Label colours as Gitea accepts them (modules/label/label.go NormalizeColor): `#rrggbb`, `rrggbb`, `#rgb` or `rgb`,
 * any case, surrounding blanks ignored; stored as six lower-case hex digits without '#'.
 */
import { CairnError } from '@cairn/rpc';

const COLOR_PATTERN = /^#?(?:[0-9a-f]{6}|[0-9a-f]{3})$/;

/** The colour as stored, or INVALID_ARGUMENT with Gitea's message (`bad color code: …`, the input as Gitea saw it). */
export function normalizeLabelColor(input: string): string {
  let color = input.trim().toLowerCase();
  if (color.length === 6 || color.length === 3) color = `#${color}`;
  if (!COLOR_PATTERN.test(color)) throw CairnError.invalid(`bad color code: ${color}`, { reason: 'label_color_invalid' });
  const hex = color.replace(/^#/, '');
  return hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex;
}
