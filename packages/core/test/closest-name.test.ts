import { closestName, editDistance } from '../src/closest-name';

describe('editDistance', () => {
  it('counts the insertions, deletions and substitutions between two strings', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });
});

describe('closestName', () => {
  const options = ['--format', '--export', '--json', '--help'];

  it('names the option a typo most likely meant', () => {
    expect(closestName('--fromat', options)).toBe('--format');
    expect(closestName('--jsno', options)).toBe('--json');
    expect(closestName('--EXPORT', options)).toBe('--export');
  });

  it('names the only choice a prefix begins', () => {
    expect(closestName('--form', options)).toBe('--format');
    expect(closestName('mcp', ['agent', 'mcp-server', 'tools'])).toBe('mcp-server');
  });

  it('names nothing when no choice is close', () => {
    expect(closestName('--verbose', options)).toBeUndefined();
    expect(closestName('x', ['build', 'list'])).toBeUndefined();
    expect(closestName('anything', [])).toBeUndefined();
  });
});
