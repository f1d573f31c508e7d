import { Code } from '@cairn/rpc';
import { planRename } from './rename';

describe('planRename', () => {
  it('does nothing for the same name, without checking it', () => {
    expect(planRename('alice', 'alice')).toBe('unchanged');
  });

  it('tells a change of case from a new name', () => {
    expect(planRename('alice', 'Alice')).toBe('case');
    expect(planRename('alice', 'alicia')).toBe('rename');
  });

  it.each([
    ['', 'name is empty'],
    ['api', 'name is reserved [name: api]'],
    ['Assets', 'name is reserved [name: assets]'],
    ['admin', 'name is reserved [name: admin]'],
    ['x.keys', 'name pattern is not allowed [pattern: *.keys]'],
    ['bad name', 'name is invalid [bad name]: must be valid alpha or numeric or dash(-_) or dot characters'],
  ])('refuses %j as a new account would be refused', (name, message) => {
    expect(() => planRename('alice', name)).toThrow(expect.objectContaining({ code: Code.INVALID_ARGUMENT, message }));
  });
});
