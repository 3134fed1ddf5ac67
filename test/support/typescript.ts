import { join, resolve, sep } from 'node:path';
import * as ts from 'typescript';

const ROOT = resolve(__dirname, '..', '..');

/** The project's compiler options (tsconfig.json), for a check that writes nothing. */
const OPTIONS = (() => {
  const file = join(ROOT, 'tsconfig.json');
  const { config } = ts.readConfigFile(file, (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, ROOT, undefined, file);
  return { ...parsed.options, noEmit: true, incremental: false };
})();

/** Files read once for every check of the process: the libraries and the repository's sources. */
const sourceCache = new Map<string, ts.SourceFile | undefined>();

/** One error of a checked file: its 0-based line and the compiler's message. */
export interface TypeError {
  file: string;
  line: number;
  message: string;
}

/**
 * Type-checks files that exist only in memory, each at its absolute path inside the repository:
 * their imports resolve as they would from there (the repository's sources, node_modules, and the
 * other files given), with the project's tsconfig.json. Nothing is written. Returns the errors of
 * the given files (the files they import are taken as they are).
 */
export function typeCheck(files: ReadonlyMap<string, string>): TypeError[] {
  const host = ts.createCompilerHost(OPTIONS, true);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  const directoryExists = host.directoryExists?.bind(host);
  host.fileExists = (name) => files.has(resolve(name)) || fileExists(name);
  host.readFile = (name) => files.get(resolve(name)) ?? readFile(name);
  host.directoryExists = (name) =>
    [...files.keys()].some((file) => file.startsWith(resolve(name) + sep)) ||
    (directoryExists?.(name) ?? true);
  host.getSourceFile = (name, languageVersion) => {
    const own = files.get(resolve(name));
    if (own !== undefined) return ts.createSourceFile(name, own, languageVersion, true);
    if (!sourceCache.has(name)) {
      const text = readFile(name);
      sourceCache.set(
        name,
        text === undefined ? undefined : ts.createSourceFile(name, text, languageVersion, true),
      );
    }
    return sourceCache.get(name);
  };

  const program = ts.createProgram([...files.keys()], OPTIONS, host);
  const errors: TypeError[] = program
    .getOptionsDiagnostics()
    .map((d) => ({ file: 'tsconfig.json', line: 0, message: messageOf(d) }));
  for (const file of files.keys()) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} was not compiled`);
    for (const diagnostic of [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ]) {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      errors.push({ file, line, message: messageOf(diagnostic) });
    }
  }
  return errors;
}

function messageOf(diagnostic: ts.Diagnostic): string {
  return ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
}
