import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * Comments say why; figures and their history live in docs/performance.md and bench/history/
 * (issue 40). A measured figure in a comment of src/ goes stale with the next change and is read
 * as today's: this spec finds one, and names the file and line.
 */
const ROOT = resolve(__dirname, '../..');

/** What a benchmark figure looks like in prose: a time per call, instructions, a rate, a share of a call. */
const FIGURES = [
  /\d[\d,.]*\s?µs\b/,
  /\d[\d,.]*\s?instructions\b/,
  /\d[\d,.]*\s?MB\/s\b/,
  /\d[\d,.]*\s?req\/s\b/,
  /\btimes faster\b/,
  /\d\s?% (?:of a (?:tool )?call|fewer instructions|of a request)/,
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The comment lines of a TypeScript file (`//`, and the lines of `/* … *\/` blocks), with their numbers. */
function commentLines(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  let inBlock = false;
  text.split('\n').forEach((raw, at) => {
    const line = raw.trim();
    if (inBlock || line.startsWith('/*')) {
      found.push({ line: at + 1, text: line });
      inBlock = !line.includes('*/');
    } else if (line.includes('//')) {
      found.push({ line: at + 1, text: line.slice(line.indexOf('//')) });
    }
  });
  return found;
}

function figuresIn(text: string): string[] {
  return commentLines(text)
    .filter(({ text: comment }) => FIGURES.some((pattern) => pattern.test(comment)))
    .map(({ line, text: comment }) => `${line}: ${comment}`);
}

describe('comments of src/ say why, not what a benchmark measured', () => {
  it('finds no benchmark figure in any comment of src/', () => {
    const problems = sources(join(ROOT, 'src')).flatMap((file) =>
      figuresIn(readFileSync(file, 'utf8')).map((hit) => `${relative(ROOT, file)}:${hit}`),
    );
    expect(problems).toEqual([]);
  });

  it('finds what it looks for, in line and block comments, and leaves code and rules alone', () => {
    const source = [
      '// a cold statement costs ~15 µs per call',
      'const limit = 80; // warn from 80 % on',
      '/**',
      ' * fewer: 4,000 instructions a call',
      ' */',
      "const text = '12 µs';",
    ].join('\n');
    expect(figuresIn(source)).toEqual([
      '1: // a cold statement costs ~15 µs per call',
      '4: * fewer: 4,000 instructions a call',
    ]);
  });
});
