import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** The pages a reader of the repository reads: the README, the bench's, and every docs/*.md. */
export const PAGES = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** One TypeScript block of a page (docs/development.md#code-in-the-docs). */
export interface Block {
  page: string;
  /** The line of the page where its code starts (1-based). */
  line: number;
  code: string;
  /** The file it is, named by its first line (`// src/tools/x/x.module.ts`); none: a snippet. */
  path?: string;
  /** The spec that compiles it, named by a comment before it (`<!-- compiled by test/x.ts -->`). */
  compiledBy?: string;
}

/** A first line `// <path>.ts` names the file the block is (words may follow: `: what it is`). */
const FILE_COMMENT = /^\/\/ ((?:\.{0,2}\/)?[\w.@/-]+\.ts)\b/;
const COMPILED_BY = /<!-- compiled by ([\w./-]+) -->\s*$/;

/** The ```ts and ```typescript blocks of a markdown text, indented ones (in lists) included. */
export function blocksOf(page: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  const fence = /^( *)(`{3,})(ts|typescript)(?![\w-])[^\S\n]*[^\n`]*\n([\s\S]*?)^ *\2`*[^\S\n]*$/gm;
  for (const match of markdown.matchAll(fence)) {
    const [, indent, , , body] = match;
    const code = body
      .split('\n')
      .map((text) => (text.startsWith(indent) ? text.slice(indent.length) : text.trimStart()))
      .join('\n');
    const before = markdown.slice(0, match.index);
    const line = before.split('\n').length + 1;
    const path = FILE_COMMENT.exec(code.split('\n')[0])?.[1];
    const compiledBy = COMPILED_BY.exec(before)?.[1];
    blocks.push({ page, line, code, path, ...(compiledBy ? { compiledBy } : {}) });
  }
  return blocks;
}
