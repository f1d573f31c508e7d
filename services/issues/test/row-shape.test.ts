/** row-shape.ts: the checks of the list's row schema, and the schema as slonik's interceptor uses it (safeParse). */
import { arrayOf, isBoolean, isDate, isNumber, isSafeInteger, isString, nullable, objectOf, rowShape } from '../src/store/row-shape';

describe('checks', () => {
  test('scalars', () => {
    expect([1, 0, -2.5].every(isNumber)).toBe(true);
    expect([Number.NaN, Number.POSITIVE_INFINITY, '1', null, undefined, 1n].some(isNumber)).toBe(false);
    expect([2 ** 53 - 1, -(2 ** 53 - 1), 0].every(isSafeInteger)).toBe(true);
    expect([2 ** 53, 1.5, '3'].some(isSafeInteger)).toBe(false);
    expect([isString(''), isString(1), isBoolean(false), isBoolean(0)]).toEqual([true, false, true, false]);
    expect([isDate(new Date(0)), isDate(new Date(Number.NaN)), isDate('2024-01-01')]).toEqual([true, false, false]);
  });

  test('nullable, arrays and objects', () => {
    expect([nullable(isNumber)(null), nullable(isNumber)(undefined), nullable(isNumber)(3)]).toEqual([true, false, true]);
    expect([arrayOf(isNumber)([]), arrayOf(isNumber)([1, 2]), arrayOf(isNumber)([1, '2']), arrayOf(isNumber)({ 0: 1, length: 1 })]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const point = objectOf({ x: isNumber, label: nullable(isString) });
    expect([point({ x: 1, label: null }), point({ x: 1, label: 'a', extra: true }), point({ x: 1 }), point([1]), point(null)]).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe('rowShape', () => {
  const schema = rowShape({ id: isSafeInteger, title: isString, closed_at: nullable(isDate), labels: arrayOf(objectOf({ id: isSafeInteger })) });

  test('a row that checks is handed on as it is', () => {
    const row = { id: 7, title: 'seven', closed_at: null, labels: [{ id: 1 }] };
    const parsed = schema.safeParse(row);
    expect(parsed.success && parsed.data).toBe(row);
  });

  test('a row that does not check fails, naming the columns', () => {
    const parsed = schema.safeParse({ id: '7', title: 'seven', closed_at: 'yesterday', labels: [{ id: 2 ** 60 }] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual(['unexpected column types: id, closed_at, labels']);
    expect(schema.safeParse(undefined).success).toBe(false);
  });
});
