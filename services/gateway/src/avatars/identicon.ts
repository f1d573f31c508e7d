/**
 * Generated avatars, as Gitea gives every user without an uploaded one (models/user/avatar.go
 * GenerateRandomAvatar, modules/avatar's identicon): a left-right symmetric 5×5 block pattern in one colour on a
 * light background, here derived from the avatar hash alone, so the same address always shows the same image.
 */
import { encodePng } from './png';

/** Gitea's avatar hashes: 32 lower-case hex digits (an MD5). */
export const AVATAR_HASH = /^[0-9a-f]{32}$/;

/** Pixels per side (Gitea renders avatars at up to 290 px; browsers scale). */
export const AVATAR_SIZE = 240;
const CELLS = 5;
const MARGIN = 20;
const CELL = (AVATAR_SIZE - 2 * MARGIN) / CELLS;
const BACKGROUND = [0xf0, 0xf0, 0xf0] as const;

/** HSL (s = 0.55, l = 0.5) → RGB: a saturated, mid-light colour from the hash's hue. */
function colourOf(hue: number): [number, number, number] {
  const s = 0.55;
  const l = 0.5;
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const h = hue / 60;
  const x = c * (1 - Math.abs((h % 2) - 1));
  const [r, g, b] = h < 1 ? [c, x, 0] : h < 2 ? [x, c, 0] : h < 3 ? [0, c, x] : h < 4 ? [0, x, c] : h < 5 ? [x, 0, c] : [c, 0, x];
  const m = l - c / 2;
  return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
}

/** Which cells are filled: 15 bits (three columns, mirrored onto five) from the hash. */
export function identiconCells(hash: string): boolean[][] {
  // An all-blank pattern would show nothing: use a fixed checker instead.
  const bits = (parseInt(hash.slice(0, 4), 16) & 0x7fff) || 0x5555;
  return Array.from({ length: CELLS }, (_, row) =>
    Array.from({ length: CELLS }, (_, column) => {
      const half = Math.min(column, CELLS - 1 - column);
      return ((bits >> (row * 3 + half)) & 1) === 1;
    }),
  );
}

/** The PNG for a well-formed avatar hash (check with AVATAR_HASH first). */
export function identiconPng(hash: string): Buffer {
  const cells = identiconCells(hash);
  const colour = colourOf(parseInt(hash.slice(4, 8), 16) % 360);
  return encodePng(AVATAR_SIZE, (x, y) => {
    const column = Math.floor((x - MARGIN) / CELL);
    const row = Math.floor((y - MARGIN) / CELL);
    const inside = x >= MARGIN && y >= MARGIN && column < CELLS && row < CELLS;
    return inside && cells[row][column] ? colour : BACKGROUND;
  });
}
