/**
 * Row schemas for hot queries: every column's type checked as `sql.type(z.object(…))` checks it, but the row is
 * handed on as it is instead of rebuilt key by key (zod's object parse spent ~0.2 ms on a 30-issue page, a tenth of
 * the issues service's work for the list). Each check is a type guard, so a shape's row type follows from its checks.
 */
import { z } from '@cairn/db';

export type Check<T> = (value: unknown) => value is T;
export type Shape = Record<string, Check<unknown>>;
export type Checked<S extends Shape> = { [K in keyof S]: S[K] extends Check<infer T> ? T : never };

export const isNumber: Check<number> = (value): value is number => typeof value === 'number' && Number.isFinite(value);
/** An integer JSON may carry without losing digits (what the int8 type parser demands of columns). */
export const isSafeInteger: Check<number> = (value): value is number => Number.isSafeInteger(value);
export const isString: Check<string> = (value): value is string => typeof value === 'string';
export const isBoolean: Check<boolean> = (value): value is boolean => typeof value === 'boolean';
export const isDate: Check<Date> = (value): value is Date => value instanceof Date && !Number.isNaN(value.getTime());

export function nullable<T>(check: Check<T>): Check<T | null> {
  return (value): value is T | null => value === null || check(value);
}

export function arrayOf<T>(check: Check<T>): Check<T[]> {
  return (value): value is T[] => Array.isArray(value) && value.every(check);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The keys of `shape` whose check `value` fails (all of them when it is no object). */
function failing(shape: Shape, value: unknown): string[] {
  const keys = Object.keys(shape);
  return isRecord(value) ? keys.filter((key) => !shape[key](value[key])) : keys;
}

export function objectOf<S extends Shape>(shape: S): Check<Checked<S>> {
  const keys = Object.keys(shape);
  return (value): value is Checked<S> => isRecord(value) && keys.every((key) => shape[key](value[key]));
}

/** A schema for `sql.type`: the row itself when every column checks; otherwise an issue naming the failing columns. */
export function rowShape<S extends Shape>(shape: S): z.ZodType<Checked<S>> {
  return z.custom<Checked<S>>(objectOf(shape), (row: unknown) => ({ message: `unexpected column types: ${failing(shape, row).join(', ')}` }));
}
