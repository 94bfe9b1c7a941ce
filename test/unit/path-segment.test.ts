import { describe, expect, it } from 'vitest';
import { pathSegment } from '../../profiles/common/path-segment.js';

describe('pathSegment', () => {
  it.each([
    ['demo', 'demo'],
    ['my model/v2', 'my%20model%2Fv2'],
    ['%2e', '%252e'],
    ['...', '...'],
    ['.hidden', '.hidden'],
  ])('%s → %s', (value, segment) => {
    expect(pathSegment(value, 'model')).toBe(segment);
  });

  it.each(['.', '..'])('refuses %s: the URL would point at another path', (value) => {
    expect(() => pathSegment(value, 'deployment')).toThrow(`deployment "${value}" is not a usable name`);
  });
});
