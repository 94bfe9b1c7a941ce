/**
 * Finds and reads config files (docs/design.md §2): the user file, then a project file found with cosmiconfig and merged
 * over it profile by profile; or exactly the one file named by --config / TEXTGEN_CONFIG.
 * yaml, cosmiconfig and zod (via ./schema.js) are imported lazily: `textgen --help` reads no config.
 */
// node:fs/promises (with readline and fs watchers behind it) is imported where a file is read, not at start-up.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../contract/errors.js';
import type { ConfigFile, ProfileConfig } from './schema.js';
import { literalSecrets } from './secrets.js';

export interface LoadedConfig {
  default_profile?: string;
  profiles: Record<string, ProfileConfig>;
  sources: {
    /** Profile name → absolute path of the file it came from. */
    profiles: Record<string, string>;
    /** The file `profiles add` writes: the user file, or the --config file when one is given. */
    userFile: string;
    projectFile?: string;
    /** A code config (textgen.config.js …) that was found and not run, because the caller said not to. */
    skippedCode?: string;
  };
}

export interface LoadConfigOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  /** From --config or TEXTGEN_CONFIG. */
  configPath?: string;
  warn: (msg: string) => void;
  /**
   * false: a code config (textgen.config.{js,mjs,cjs,ts}) is found but not run, as if absent. For what runs on its
   * own without a command asking for a service (TAB completion, `profiles list`): a repository's code must not run
   * because someone pressed Tab in it.
   */
  runCode?: boolean;
}

/** cosmiconfig's places for the name `textgen`, minus the `.config/` ones docs/design.md §2 does not list. */
export const PROJECT_SEARCH_PLACES = [
  'package.json',
  '.textgenrc',
  '.textgenrc.json',
  '.textgenrc.yaml',
  '.textgenrc.yml',
  'textgen.config.js',
  'textgen.config.mjs',
  'textgen.config.cjs',
  'textgen.config.ts',
];

export function homeDir(env: Record<string, string | undefined>): string {
  return env.HOME || os.homedir();
}

/** `$XDG_CONFIG_HOME/textgen/config.yaml`, default `$HOME/.config/textgen/config.yaml`. */
export function userConfigPath(env: Record<string, string | undefined>): string {
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec says relative values are to be ignored.
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(homeDir(env), '.config');
  return path.join(base, 'textgen', 'config.yaml');
}

/** A file name for messages: `~/…` under the home directory, else as given. */
export function displayPath(file: string, home: string): string {
  const rel = path.relative(home, file);
  if (home !== '' && rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel))
    return `~/${rel.split(path.sep).join('/')}`;
  return file;
}

interface LoadedFile {
  file: string;
  config: ConfigFile;
}

export async function loadConfig(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const home = homeDir(opts.env);
  const show = (file: string) => displayPath(file, home);
  // The zod schema is built only when there is a file to check (docs/performance.md).
  const schema = () => import('./schema.js');

  const runCode = opts.runCode !== false;
  if (opts.configPath !== undefined) {
    const file = path.resolve(opts.cwd, opts.configPath);
    if (!runCode && isCodeConfig(file))
      return { profiles: {}, sources: { profiles: {}, userFile: file, skippedCode: file } };
    const data = await loadExplicitFile(file, show);
    const loaded = { file, config: (await schema()).parseConfigFile(data, show(file)) };
    await warnIfExposed(loaded, show, opts.warn);
    return merge([loaded], file, undefined);
  }

  const userFile = userConfigPath(opts.env);
  const layers: LoadedFile[] = [];
  const userText = await readIfExists(userFile, show);
  if (userText !== undefined) {
    const user = {
      file: userFile,
      config: (await schema()).parseConfigFile(await parseYaml(userText, userFile, show), show(userFile)),
    };
    await warnIfExposed(user, show, opts.warn);
    layers.push(user);
  }
  const found = await searchProjectFile(opts.cwd, home, show, runCode);
  if (found?.skipped) {
    const loaded = merge(layers, userFile, undefined);
    loaded.sources.skippedCode = found.file;
    return loaded;
  }
  if (found !== undefined) {
    const { parseConfigFile, fieldPath } = await schema();
    const project = { file: found.file, config: parseConfigFile(found.data, show(found.file)) };
    rejectLiteralSecrets(project, show, fieldPath);
    layers.push(project);
  }
  return merge(layers, userFile, found?.file);
}

function merge(layers: LoadedFile[], userFile: string, projectFile: string | undefined): LoadedConfig {
  const profiles: Record<string, ProfileConfig> = {};
  const sources: Record<string, string> = {};
  let defaultProfile: string | undefined;
  // Later layers win whole profiles: mixing fields of two files would pair one file's URL with another's key.
  for (const layer of layers) {
    for (const [name, profile] of Object.entries(layer.config.profiles ?? {})) {
      profiles[name] = profile;
      sources[name] = layer.file;
    }
    defaultProfile = layer.config.default_profile ?? defaultProfile;
  }
  const loaded: LoadedConfig = { profiles, sources: { profiles: sources, userFile } };
  if (defaultProfile !== undefined) loaded.default_profile = defaultProfile;
  if (projectFile !== undefined) loaded.sources.projectFile = projectFile;
  return loaded;
}

function rejectLiteralSecrets(
  layer: LoadedFile,
  show: (f: string) => string,
  fieldPath: (p: string[]) => string,
): void {
  const found = literalSecrets(layer.config.profiles ?? {});
  if (found.length === 0) return;
  const secret = found[0]!;
  const what = secret.path.at(-1) === 'url' ? 'a password in a url' : 'a literal secret';
  throw new UsageError(
    `${show(layer.file)}: ${fieldPath(secret.path)}: ${what} is not allowed in a project config file`,
    {
      hint: `project files get committed: ${secret.instead}, or keep the secret in the user file (textgen profiles add)`,
    },
  );
}

async function warnIfExposed(
  layer: LoadedFile,
  show: (f: string) => string,
  warn: (msg: string) => void,
): Promise<void> {
  if (process.platform === 'win32' || literalSecrets(layer.config.profiles ?? {}).length === 0) return;
  const { stat } = await import('node:fs/promises');
  const mode = (await stat(layer.file)).mode;
  if ((mode & 0o077) !== 0) {
    warn(`${show(layer.file)} holds a secret and is readable by others; run chmod 600 ${shellQuote(layer.file)}`);
  }
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

async function readIfExists(file: string, show: (f: string) => string): Promise<string | undefined> {
  try {
    // Synchronous: one small file, read once, before anything else can run.
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`${show(file)}: cannot read: ${(e as Error).message}`);
  }
}

async function loadExplicitFile(file: string, show: (f: string) => string): Promise<unknown> {
  const { stat } = await import('node:fs/promises');
  let isFile: boolean;
  try {
    isFile = (await stat(file)).isFile();
  } catch {
    throw new UsageError(`config file ${show(file)} does not exist`, { hint: 'check --config or TEXTGEN_CONFIG' });
  }
  if (!isFile)
    throw new UsageError(`config file ${show(file)} is not a file`, { hint: 'check --config or TEXTGEN_CONFIG' });
  const explorer = await createExplorer(show);
  const result = await withLoadErrors(file, show, () => explorer.load(file));
  return result?.config;
}

/** textgen.config.js and its kin: JavaScript or TypeScript that runs when loaded. */
export function isCodeConfig(file: string): boolean {
  return /\.(c|m)?[jt]s$/.test(file);
}

/** What a code config loads as when it must not run. */
const NOT_RUN = Symbol('code config not run');

/**
 * Walks up from cwd to the home directory (inclusive) or the root, returning the first project file; a code config
 * found where code must not run comes back as `skipped`, unloaded.
 */
async function searchProjectFile(
  cwd: string,
  home: string,
  show: (f: string) => string,
  runCode = true,
): Promise<{ file: string; data: unknown; skipped?: boolean } | undefined> {
  const stop = path.resolve(home);
  // Most directories hold none of the files cosmiconfig would read: then it is not loaded at all.
  if (!(await mayHoldProjectConfig(cwd, stop, process.cwd()))) return undefined;
  const explorer = await createExplorer(show, runCode);
  let dir = path.resolve(cwd);
  for (;;) {
    const here = dir;
    // searchStrategy "none" looks in one directory: we do the walk so it stops at home, not at a package.json.
    const result = await withLoadErrors(here, show, () => explorer.search(here));
    if (result !== null && result.config === NOT_RUN) return { file: result.filepath, data: undefined, skipped: true };
    if (result !== null && !result.isEmpty) return { file: result.filepath, data: result.config };
    const parent = path.dirname(dir);
    if (dir === stop || parent === dir) return undefined;
    dir = parent;
  }
}

async function withLoadErrors<T>(where: string, show: (f: string) => string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    throw await loadError(e, where, show);
  }
}

/**
 * One line naming the file for whatever a loader threw. cosmiconfig's JSON errors carry a coloured code
 * frame quoting the file (which may hold a secret): the file is parsed again for our own message instead.
 */
async function loadError(e: unknown, where: string, show: (f: string) => string): Promise<UsageError> {
  if (e instanceof UsageError) return e;
  const err = e as { filepath?: unknown; fileName?: unknown; name?: unknown; message?: unknown };
  const file =
    typeof err.filepath === 'string' ? err.filepath : typeof err.fileName === 'string' ? err.fileName : where;
  if (err.name === 'JSONError') {
    try {
      parseJson(await (await import('node:fs/promises')).readFile(file, 'utf8'), file, show);
    } catch (parsed) {
      if (parsed instanceof UsageError) return parsed;
    }
  }
  return new UsageError(
    `${show(file)}: cannot load: ${firstLine(typeof err.message === 'string' ? err.message : String(e))}`,
    { cause: e },
  );
}

/** The first line of a message that says something, without terminal colours, at most 200 characters. */
function firstLine(message: string): string {
  const line =
    message
      .replace(/\u001b\[[0-9;]*m/g, '')
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? 'unknown error';
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

/**
 * Whether the search could find anything: a search place in a directory of the walk other than a package.json
 * without a "textgen" key, or a file that configures cosmiconfig itself in the process's directory (its "meta"
 * config: a "cosmiconfig" key in package.json or package.yaml, .config/config.*). Otherwise the answer is "no project
 * file" without loading cosmiconfig, its loaders and their dependencies (docs/performance.md). Anything unclear
 * (unreadable, not JSON) is left to cosmiconfig, which reports it as before.
 */
async function mayHoldProjectConfig(cwd: string, stop: string, processCwd: string): Promise<boolean> {
  const { existsSync, readdirSync } = await import('node:fs');
  const packageKeys = (file: string): string[] | undefined => {
    try {
      const data: unknown = JSON.parse(readFileSync(file, 'utf8'));
      return data !== null && typeof data === 'object' && !Array.isArray(data) ? Object.keys(data) : undefined;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ENOENT' ? [] : undefined;
    }
  };
  const meta = path.resolve(processCwd);
  if (existsSync(path.join(meta, 'package.yaml'))) return true;
  try {
    if (readdirSync(path.join(meta, '.config')).some((name) => /^config(\.|$)/.test(name))) return true;
  } catch {
    // No .config directory.
  }
  const metaKeys = packageKeys(path.join(meta, 'package.json'));
  if (metaKeys === undefined || metaKeys.includes('cosmiconfig')) return true;
  let dir = path.resolve(cwd);
  for (;;) {
    for (const place of PROJECT_SEARCH_PLACES) {
      const file = path.join(dir, place);
      if (place === 'package.json') {
        const keys = packageKeys(file);
        if (keys === undefined || keys.includes('textgen')) return true;
      } else if (existsSync(file)) {
        return true;
      }
    }
    const parent = path.dirname(dir);
    if (dir === stop || parent === dir) return false;
    dir = parent;
  }
}

async function createExplorer(show: (f: string) => string, runCode = true) {
  // `.default` (module.exports of this CommonJS package) works in Node and in the bundle (scripts/bundle.mjs) alike.
  const { cosmiconfig, defaultLoaders } = (await import('cosmiconfig')).default;
  const yamlLoader = (file: string, content: string) => parseYaml(content, file, show);
  const code = <T>(load: T): T | (() => typeof NOT_RUN) => (runCode ? load : () => NOT_RUN);
  const options = {
    searchPlaces: PROJECT_SEARCH_PLACES,
    searchStrategy: 'none' as const,
    cache: false,
    // Our own loaders give messages with the file and the line (YAML, JSON, TypeScript) or the module's own error
    // (JavaScript: cosmiconfig's loader retries a failed import with require(), whose error hides the real one).
    loaders: {
      ...defaultLoaders,
      '.yaml': yamlLoader,
      '.yml': yamlLoader,
      noExt: yamlLoader,
      '.json': (file: string, content: string) => parseJson(content, file, show),
      '.js': code(importModule),
      '.mjs': code(importModule),
      '.cjs': code(importModule),
      '.ts': code((file: string, content: string) => importTypeScript(file, content, show)),
      default: yamlLoader,
    },
  };
  try {
    return cosmiconfig('textgen', options);
  } catch (e) {
    // cosmiconfig reads its own "meta" config (package.json, .config/config.{json,yaml}…) from the process's
    // working directory while it is being set up; a broken one is the user's file, not our bug.
    throw await loadError(e, path.join(process.cwd(), 'package.json'), show);
  }
}

/** The default export of a JavaScript config file; the file's modification time keeps an edited file from being served from the module cache. */
async function importModule(file: string): Promise<unknown> {
  const { pathToFileURL } = await import('node:url');
  const { realpath, stat } = await import('node:fs/promises');
  const real = await realpath(file);
  const { importEsm } = await import('../import-esm.js');
  const mod = await importEsm<{ default?: unknown }>(`${pathToFileURL(real).href}?mtime=${(await stat(real)).mtimeMs}`);
  return mod.default;
}

/** textgen.config.ts: syntax errors are reported with their line; the module is compiled next to the file (so its imports resolve) and imported. */
async function importTypeScript(file: string, content: string, show: (f: string) => string): Promise<unknown> {
  let ts: typeof import('typescript');
  try {
    ts = (await import('typescript')).default;
  } catch {
    throw new UsageError(`${show(file)}: cannot load: a TypeScript config file needs the typescript package`, {
      hint: 'install typescript, or write the config as textgen.config.js or .textgenrc.yaml',
    });
  }
  const out = ts.transpileModule(content, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  });
  const problem = out.diagnostics?.find((d) => d.category === ts.DiagnosticCategory.Error);
  if (problem !== undefined) {
    const pos =
      problem.file && problem.start !== undefined
        ? problem.file.getLineAndCharacterOfPosition(problem.start)
        : undefined;
    const where = pos ? `line ${pos.line + 1}, column ${pos.character + 1}: ` : '';
    throw new UsageError(
      `${show(file)}: ${where}${firstLine(ts.flattenDiagnosticMessageText(problem.messageText, ' '))}`,
    );
  }
  const { randomUUID } = await import('node:crypto');
  const { rm, writeFile } = await import('node:fs/promises');
  const compiled = `${file}.${randomUUID()}.mjs`;
  try {
    await writeFile(compiled, out.outputText);
    return await importModule(compiled);
  } finally {
    await rm(compiled, { force: true });
  }
}

export async function parseYaml(text: string, file: string, show: (f: string) => string): Promise<unknown> {
  const { parseDocument } = (await import('yaml')).default; // CommonJS in Node: see createExplorer
  const doc = parseDocument(text, { uniqueKeys: true });
  const error = doc.errors[0];
  if (error !== undefined) {
    const pos = error.linePos?.[0];
    const where = pos ? `line ${pos.line}, column ${pos.col}: ` : '';
    const first = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    // The YAML parser recurses per level of nesting; its stack overflow is reported as a document error.
    const message = /call stack/i.test(first) ? 'nested too deeply to read' : first;
    throw new UsageError(`${show(file)}: ${where}${message}`);
  }
  try {
    return doc.toJS({ maxAliasCount: 1000 });
  } catch (e) {
    const message = (e as Error).message;
    throw new UsageError(
      `${show(file)}: ${/call stack/i.test(message) ? 'nested too deeply to read' : firstLine(message)}`,
    );
  }
}

function parseJson(text: string, file: string, show: (f: string) => string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    // Node's message may quote the file's text, which can hold a secret: keep only the description.
    const message = (e as Error).message.replace(/, ".*" is not valid JSON$/s, '');
    const at = /at position (\d+)/.exec(message);
    let where = '';
    if (at) {
      const before = text.slice(0, Number(at[1]));
      const line = before.split('\n').length;
      where = `line ${line}, column ${before.length - before.lastIndexOf('\n')}: `;
    }
    throw new UsageError(`${show(file)}: ${where}invalid JSON: ${message.replace(/ in JSON at position \d+.*$/s, '')}`);
  }
}
