/** Integer path parameters as Gitea's `PathParamInt64` reads them. */

/** The parameter as a non-negative integer; anything else is 0, which names nothing. */
export function pathInt64(text: string | undefined): number {
  const value = text ?? '';
  return /^\d+$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : 0;
}
