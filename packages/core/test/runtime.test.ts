// The helpers compiled code calls at run time (`@anytool/core/runtime`), used directly.
// Tools compiled through the build step that call them are tested in packages/schema/test/ways-in/ts-jest.test.ts.
import { IsEmail, MinLength } from 'class-validator';
import { AnytoolError, ErrorCode, ExecutionContext, FunctionTool, resultText } from '@anytool/core';
import { revive, validateClass } from '@anytool/core/runtime';

describe('revive', () => {
  it('never makes an Invalid Date, and copies what it changes', () => {
    const prepare = revive({ root: { p: { when: { u: [{ date: 1 }] }, list: { i: 'date' } } } });
    const args = { when: 'not a date', list: ['2026-13-45T99:00:00Z', '2026-01-02T00:00:00Z', 5] };
    const out = prepare(args) as { when: unknown; list: unknown[] };
    expect(out.when).toBe('not a date');
    expect(out.list[0]).toBe('2026-13-45T99:00:00Z');
    expect(out.list[1]).toEqual(new Date('2026-01-02T00:00:00Z'));
    expect(out.list[2]).toBe(5);
    expect(args.list[1]).toBe('2026-01-02T00:00:00Z');
  });

  it('follows records, patterns, tuples and $defs, and leaves what the plan does not name', () => {
    const at = '2026-01-02T09:00:00Z';
    const prepare = revive({
      root: { p: { byDay: { a: 'date', n: ['note'] }, tagged: { pp: [['^at_', 'date']] }, pair: { t: ['date', 0] }, tree: { r: 'Node' } } },
      defs: { Node: { p: { at: 'date', kids: { i: { r: 'Node' } } } } },
    });
    const out = prepare({
      byDay: { mon: at, note: at },
      tagged: { at_x: at, other: at },
      pair: [at, at],
      tree: { at, kids: [{ at, kids: [] }] },
      free: at,
    }) as Record<string, Record<string, unknown>>;
    expect(out['byDay']!['mon']).toBeInstanceOf(Date);
    expect(out['byDay']!['note']).toBe(at);
    expect(out['tagged']!['at_x']).toBeInstanceOf(Date);
    expect(out['tagged']!['other']).toBe(at);
    expect((out['pair'] as unknown as unknown[])[0]).toBeInstanceOf(Date);
    expect((out['pair'] as unknown as unknown[])[1]).toBe(at);
    expect((out['tree']!['kids'] as Array<{ at: unknown }>)[0]!.at).toBeInstanceOf(Date);
    expect(out['free']).toBe(at as never);
  });
});

class Signup {
  email!: string;
  name!: string;
}
// The legacy decorator calls a compiler would emit for `@IsEmail() email` and `@MinLength(2) name`.
IsEmail()(Signup.prototype, 'email');
MinLength(2)(Signup.prototype, 'name');

describe('validateClass', () => {
  const parameters = { type: 'object', properties: { user: { type: 'object' } }, required: ['user'] } as const;

  it('hands the tool an instance of the class, and refuses a violation with every failed constraint', async () => {
    const seen: unknown[] = [];
    const signup = new FunctionTool(
      (user: Signup) => {
        seen.push(user);
        return `welcome ${user.name}`;
      },
      { name: 'signup', description: 'Sign up.' },
      { parameters, paramNames: ['user'], prepare: [validateClass(() => Signup, 'user', 'parameter user')] },
    );
    const context = new ExecutionContext();
    expect(resultText(await signup.invoke(context, { user: { email: 'a@example.com', name: 'Ada' } }))).toBe('welcome Ada');
    expect(seen[0]).toBeInstanceOf(Signup);
    const refused = await signup.invoke(context, { user: { email: 'nope', name: 'A' } });
    expect(refused.isError).toBe(true);
    expect(refused.error?.code).toBe(ErrorCode.InvalidArguments);
    expect(resultText(refused)).toMatch(/parameter user/);
    expect(resultText(refused)).toMatch(/\/user\/email: email must be an email/);
    expect(resultText(refused)).toMatch(/\/user\/name: name must be longer than or equal to 2 characters/);
    expect(seen).toHaveLength(1);
  });

  it('validates every item of an array argument', async () => {
    const prepare = validateClass(() => Signup, 'users', 'parameter users', true);
    const good = (await prepare({ users: [{ email: 'a@example.com', name: 'Ada' }] })) as { users: unknown[] };
    expect(good.users[0]).toBeInstanceOf(Signup);
    const bad = prepare({
      users: [
        { email: 'a@example.com', name: 'Ada' },
        { email: 'x', name: 'Bob' },
      ],
    });
    await expect(bad).rejects.toThrow(AnytoolError);
    await expect(bad).rejects.toThrow(/\/users\/1\/email/);
  });
});
