import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileValidator, schemaProblems } from '@anytool/core/internal';
import { analyzeSourceFile } from '@anytool/schema/internal';
import { anytoolBin, fixtures, messages, programFor, repoRoot, removeScratchDirs, scratchDir } from '../helpers';

afterAll(removeScratchDirs);

// class-validator decorators are legacy (experimentalDecorators) decorators: these fixtures build with the legacy config.
const dir = join(fixtures, 'legacy');
const file = join(dir, 'user-tools.ts');

describe('class-validator DTOs', () => {
  const program = programFor([file], join(dir, 'tsconfig.json'));
  const { sites, diagnostics } = analyzeSourceFile(program, program.getSourceFile(file)!);

  it('their constraints appear in the schema', () => {
    expect(messages(diagnostics)).toEqual([
      'UserTools.team: class CreateUser at team.owner has class-validator decorators, but only a parameter typed with the class (or an array of it) becomes an instance validated by class-validator; here only the constraints with a JSON Schema form are checked (by the schema), the others are not; take it as its own parameter, or validate it in the tool',
    ]);
    const create = sites.find((s) => s.label === 'UserTools.create')!;
    expect(create.info.parameters['properties']).toEqual({
      user: {
        type: 'object',
        properties: {
          email: { type: 'string', format: 'email' },
          name: { type: 'string', minLength: 2, maxLength: 30 },
          age: { type: 'integer', minimum: 13, maximum: 130 },
          role: { type: 'string', enum: ['admin', 'member'] },
          handle: { type: 'string', description: 'Only checked by class-validator at call time (no schema keyword for it).' },
          website: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          teamId: { type: 'string', format: 'uuid' },
        },
        required: ['email', 'name', 'age', 'role', 'handle', 'tags', 'teamId'],
        additionalProperties: false,
      },
    });
    expect(create.prepare).toEqual([
      {
        kind: 'validate',
        at: 'user',
        label: 'UserTools.create: CreateUser',
        reference: { kind: 'import', module: './create-user.dto', exportName: 'CreateUser' },
      },
    ]);
    expect(schemaProblems(create.info.parameters)).toBeUndefined();
    const check = compileValidator(create.info.parameters, create.label);
    const user = { email: 'ada@example.com', name: 'Ada', age: 36, role: 'admin', handle: 'ada', tags: [], teamId: '7f8e3a52-3c1b-4d4e-9a57-2b6f0d5c1e11' };
    expect(check({ user })).toBe(true);
    expect(check({ user: { ...user, email: 'ada', tags: ['a', 'b', 'c', 'd'] } })).toBe(false);
    const invite = sites.find((s) => s.label === 'tool(invite)')!;
    expect(invite.info.paramNames).toEqual(['*']);
    expect(invite.info.parameters['properties']).toEqual({ email: { type: 'string', format: 'email' }, role: { type: 'string', enum: ['viewer', 'editor'] } });
    expect(invite.prepare).toEqual([{ kind: 'validate', at: '*', label: 'tool(invite): Invite', reference: { kind: 'local', name: 'Invite' } }]);
  });

  it('an array of DTOs is validated item by item at call time', () => {
    const many = sites.find((s) => s.label === 'UserTools.createMany')!;
    expect(many.prepare).toEqual([
      {
        kind: 'validate',
        at: 'users',
        each: true,
        label: 'UserTools.createMany: CreateUser',
        reference: { kind: 'import', module: './create-user.dto', exportName: 'CreateUser' },
      },
    ]);
    expect(sites.find((s) => s.label === 'UserTools.team')!.prepare).toEqual([]);
  });

  it('formats class-validator checks more loosely stay out of the schema (ISO dates without a time, URLs without a scheme, either IP version)', () => {
    const register = sites.find((s) => s.label === 'UserTools.register')!;
    expect((register.info.parameters['properties'] as Record<string, unknown>)['endpoint']).toEqual({
      type: 'object',
      properties: {
        since: { type: 'string' },
        until: { type: 'string' },
        site: { type: 'string' },
        host: { type: 'string' },
        v4: { type: 'string', format: 'ipv4' },
        v6: { type: 'string', format: 'ipv6' },
      },
      required: ['since', 'until', 'site', 'host', 'v4', 'v6'],
      additionalProperties: false,
    });
    const check = compileValidator(register.info.parameters, register.label);
    const endpoint = { since: '2020-01-01', until: '2020-02-01', site: 'example.com', host: '::1', v4: '10.0.0.1', v6: '::1' };
    expect(check({ endpoint })).toBe(true);
    expect(check({ endpoint: { ...endpoint, v4: '::1' } })).toBe(false);
    expect(check({ endpoint: { ...endpoint, v6: '10.0.0.1' } })).toBe(false);
  });

  it('at call time the arguments become an instance of the class and bad ones are rejected', () => {
    const scratch = scratchDir('class-validator');
    writeFileSync(join(scratch, 'package.json'), '{ "type": "commonjs" }\n');
    const tsconfig = join(scratch, 'tsconfig.json');
    const compilerOptions = {
      target: 'ES2022',
      module: 'CommonJS',
      moduleResolution: 'Node10',
      strict: true,
      skipLibCheck: true,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      types: ['node'],
      rootDir: dir,
      outDir: join(scratch, 'out'),
    };
    writeFileSync(tsconfig, JSON.stringify({ compilerOptions, files: [file] }));
    execFileSync(process.execPath, [anytoolBin, 'build', '-p', tsconfig], { cwd: repoRoot, encoding: 'utf8' });
    const script = `
      const { ExecutionContext, Toolset, resultText } = require('@anytool/core');
      const { UserTools, invite } = require(${JSON.stringify(join(scratch, 'out', 'user-tools.js'))});
      const toolset = new Toolset(new UserTools(), invite);
      const user = { email: 'ada@example.com', name: 'Ada', age: 36, role: 'admin', handle: 'ada', tags: [], teamId: '7f8e3a52-3c1b-4d4e-9a57-2b6f0d5c1e11' };
      const calls = [
        ['create', { user }],
        ['create', { user: { ...user, handle: 'ADA' } }],
        ['create', { user: { ...user, age: 7 } }],
        ['invite', { email: 'bob@example.com', role: 'editor' }],
        ['createMany', { users: [user, { ...user, name: 'Bo', handle: 'BO' }] }],
        ['createMany', { users: [user, { ...user, name: 'Bo' }] }],
      ];
      (async () => {
        const out = [];
        for (const [name, args] of calls) {
          const r = await toolset.invoke(name, args, new ExecutionContext());
          out.push({ isError: r.isError, text: resultText(r) });
        }
        process.stdout.write(JSON.stringify(out));
      })();`;
    const [ok, lowercase, tooYoung, invited, manyBad, manyOk] = JSON.parse(
      execFileSync(process.execPath, ['-e', script], { cwd: repoRoot, encoding: 'utf8' }),
    ) as Array<{ isError: boolean; text: string }>;
    expect(ok).toEqual({ isError: false, text: 'instance Ada <ada@example.com>' });
    expect(lowercase!.isError).toBe(true);
    expect(lowercase!.text).toMatch(/Invalid arguments \(UserTools\.create: CreateUser\):\n- \/user\/handle: handle must be a lowercase string/);
    expect(tooYoung!.isError).toBe(true);
    expect(tooYoung!.text).toMatch(/\/user\/age/);
    expect(invited).toEqual({ isError: false, text: 'invited bob@example.com as editor' });
    expect(manyBad!.isError).toBe(true);
    expect(manyBad!.text).toMatch(/Invalid arguments \(UserTools\.createMany: CreateUser\):\n- \/users\/1\/handle: handle must be a lowercase string/);
    expect(manyOk).toEqual({ isError: false, text: 'instance Ada, instance Bo' });
  });
});
