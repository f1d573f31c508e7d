// The `ini` package (v6) ships no type declarations; this is the part Cairn uses.
declare module 'ini' {
  export function decode(text: string, options?: { bracketedArray?: boolean }): Record<string, unknown>;
}
