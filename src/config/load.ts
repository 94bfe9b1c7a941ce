/**
 * Finds and reads config files (docs/design.md §2): the user file, then a project file found upwards from the working
 * directory and merged over it profile by profile; or exactly the one file named by --config / TEXTGEN_CONFIG.
 * Where the search looks and which files it reads: ./project-search.ts; what an untrusted project file may do:
 * ./trust.ts and ./untrusted.ts (README, "Trusting a project's config").
 * The files are read here, not by cosmiconfig: cosmiconfig runs `$import` (a YAML file importing a .cjs) and reads
 * its own "meta" config from the working directory with its code loaders (a cloned repository's .config/config.js
 * ran at set-up), neither of which can be switched off.
 * yaml and zod (via ./schema.js) are imported lazily: `textgen --help` reads no config.
 */
// node:fs/promises (with readline and fs watchers behind it) is imported where a file is read, not at start-up.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { markOneOffRun } from '../contract/code-cache-coverage.js';
import { UsageError } from '../contract/errors.js';
import type { ConfigFile, ProfileConfig } from './schema.js';
import { literalSecrets } from './secrets.js';
import {
  PROJECT_SEARCH_PLACES,
  isCodeConfig,
  isProjectFileName,
  isSkipped,
  readCandidate,
  searchDirectories,
  type FoundFile,
} from './project-search.js';

export { PROJECT_SEARCH_PLACES, isCodeConfig, isProjectFileName };

export interface LoadedConfig {
  default_profile?: string;
  profiles: Record<string, ProfileConfig>;
  sources: {
    /** Profile name → absolute path of the file it came from. */
    profiles: Record<string, string>;
    /** The file `profiles add` writes: the user file, or the --config file when one is given. */
    userFile: string;
    projectFile?: string;
    /** Whether the project file is trusted (recorded with `textgen trust`, named in TEXTGEN_TRUST, or in $HOME). */
    projectTrusted?: boolean;
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
   * For what must be seen even with -q: a file skipped because someone else could have written it, and credentials
   * or TLS settings an untrusted file tried to set. Defaults to `warn`.
   */
  alert?: (msg: string) => void;
  /**
   * false: a code config (textgen.config.{js,mjs,cjs,ts}) is found but not run, as if absent. For what runs on its
   * own without a command asking for a service (TAB completion, `profiles list`): a repository's code must not run
   * because someone pressed Tab in it.
   */
  runCode?: boolean;
}

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

export interface LoadedFile {
  file: string;
  config: ConfigFile;
}

export async function loadConfig(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const home = homeDir(opts.env);
  const show = (file: string) => displayPath(file, home);
  const alert = opts.alert ?? opts.warn;
  // The zod schema is built only when there is a file to check (docs/performance.md).
  const schema = () => import('./schema.js');

  const runCode = opts.runCode !== false;
  if (opts.configPath !== undefined) {
    const file = path.resolve(opts.cwd, opts.configPath);
    if (!runCode && isCodeConfig(file))
      return { profiles: {}, sources: { profiles: {}, userFile: file, skippedCode: file } };
    const { parseConfigFile, fieldPath } = await schema();
    const data = dropImport(await loadExplicitFile(file, show), file, show, opts.warn);
    const loaded = { file, config: parseConfigFile(data, show(file)) };
    // Named on purpose, so trusted; but a file with a project file's name gets committed: no literal secrets in it.
    if (isProjectFileName(file)) rejectLiteralSecrets(loaded, show, fieldPath);
    await warnIfExposed(loaded, show, opts.warn);
    return merge([loaded], file, undefined);
  }

  const userFile = userConfigPath(opts.env);
  const layers: LoadedFile[] = [];
  const userText = await readIfExists(userFile, show);
  let user: LoadedFile | undefined;
  if (userText !== undefined) {
    user = { file: userFile, config: await parseUserFile(userFile, userText, opts.env, show) };
    await warnIfExposed(user, show, opts.warn);
    layers.push(user);
  }
  const found = searchProjectFile(opts.cwd, home, (file, reason) =>
    alert(`skipped ${show(file)}: it ${reason} (textgen reads only project files that only you can change)`),
  );
  if (found === undefined) return merge(layers, userFile, undefined);

  const { trustOf, shellQuote } = await import('./trust.js');
  const trust = trustOf(found.file, found.bytes, {
    records: user?.config.trusted_files ?? [],
    env: opts.env,
    cwd: opts.cwd,
    home,
  });
  const trusted = trust.state === 'trusted';
  const hint = `run textgen trust ${shellQuote(found.file)} to use it`;
  const notTrusted = `${show(found.file)} is ${trust.state === 'changed' ? 'not trusted (changed since you trusted it)' : 'not trusted'}`;
  let data: unknown;
  if (isCodeConfig(found.file)) {
    if (!trusted) {
      opts.warn(`${notTrusted}: it is code and was not run; ${hint}`);
      return withProject(merge(layers, userFile, undefined), found.file, false);
    }
    if (!runCode) {
      const loaded = merge(layers, userFile, undefined);
      loaded.sources.skippedCode = found.file;
      return loaded;
    }
    data = await withLoadErrors(found.file, show, () => loadCode(found.file, show));
  } else {
    data = await parseData(found, show);
  }
  const ignored: string[] = [];
  if (hasImport(data)) ignored.push('$import (never run: it would load files the trust does not cover)');
  const project = await checkProjectData(found.file, data, show);
  if (trusted) {
    if (ignored.length > 0) opts.warn(`${show(found.file)}: ignored ${ignored.join(', ')}`);
    layers.push({ file: project.file, config: { ...project.config, trusted_files: undefined } });
    return withProject(merge(layers, userFile, found.file), found.file, true);
  }
  const { restrictUntrusted } = await import('./untrusted.js');
  const restricted = restrictUntrusted(project.config, new Set(Object.keys(user?.config.profiles ?? {})));
  ignored.push(...restricted.ignored);
  if (ignored.length > 0)
    (restricted.alarming ? alert : opts.warn)(`${notTrusted}: ignored ${ignored.join(', ')}; ${hint}`);
  layers.push({ file: project.file, config: restricted.config });
  return withProject(merge(layers, userFile, found.file), found.file, false);
}

/** A project file's contents as a config: validated, `$import` dropped, no literal secret (project files get committed). */
export async function checkProjectData(file: string, data: unknown, show: (f: string) => string): Promise<LoadedFile> {
  const { parseConfigFile, fieldPath } = await import('./schema.js');
  const project = { file, config: parseConfigFile(hasImport(data) ? withoutImport(data) : data, show(file)) };
  rejectLiteralSecrets(project, show, fieldPath);
  return project;
}

function withProject(loaded: LoadedConfig, file: string, trusted: boolean): LoadedConfig {
  loaded.sources.projectFile = file;
  loaded.sources.projectTrusted = trusted;
  return loaded;
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
    const { shellQuote } = await import('./trust.js');
    warn(`${show(layer.file)} holds a secret and is readable by others; run chmod 600 ${shellQuote(layer.file)}`);
  }
}

/** Hashes the sources the schema is built from (scripts/bundle.mjs); not defined outside the bundles. */
declare const TEXTGEN_CONFIG_SCHEMA_ID: string;

/**
 * The user file, validated: from ./parsed-cache.ts when this exact text was validated before by this build, which
 * skips loading yaml and zod; else parsed and checked, and recorded for the next run unless it holds a literal
 * credential.
 */
async function parseUserFile(
  file: string,
  text: string,
  env: Record<string, string | undefined>,
  show: (f: string) => string,
): Promise<ConfigFile> {
  const schemaId = typeof TEXTGEN_CONFIG_SCHEMA_ID === 'string' ? TEXTGEN_CONFIG_SCHEMA_ID : undefined;
  const { cachedConfig, parsedConfigDir, rememberConfig } = await import('./parsed-cache.js');
  const dir = parsedConfigDir(env);
  const cached = cachedConfig(dir, schemaId, file, text);
  if (cached !== undefined) return cached as ConfigFile;
  const config = (await import('./schema.js')).parseConfigFile(await parseYaml(text, file, show), show(file));
  // A literal credential stays in the file the user wrote it into: the record would be a copy of it on disk.
  if (literalSecrets(config.profiles ?? {}).length > 0) return config;
  if (await rememberConfig(dir, schemaId, file, text, config)) markOneOffRun('the user config was parsed');
  return config;
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
  if (isCodeConfig(file)) return withLoadErrors(file, show, () => loadCode(file, show));
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new UsageError(`${show(file)}: cannot read: ${(e as Error).message}`);
  }
  return parseData({ file, bytes }, show);
}

/** `$import` is cosmiconfig's: textgen never follows it (a YAML file must not run a .cjs); said once, then dropped. */
function dropImport(data: unknown, file: string, show: (f: string) => string, warn: (m: string) => void): unknown {
  if (!hasImport(data)) return data;
  warn(`${show(file)}: ignored $import (textgen does not load other files from a config file)`);
  return withoutImport(data);
}

function hasImport(data: unknown): data is Record<string, unknown> {
  return data !== null && typeof data === 'object' && !Array.isArray(data) && Object.hasOwn(data, '$import');
}

function withoutImport(data: Record<string, unknown>): Record<string, unknown> {
  const { $import: _dropped, ...rest } = data;
  return rest;
}

/**
 * The first project file of the search (./project-search.ts), read once; files passed over are reported through
 * `skipped`. An empty file counts as none (the search goes on upwards), as it did with cosmiconfig.
 */
function searchProjectFile(
  cwd: string,
  home: string,
  skipped: (file: string, reason: string) => void,
): FoundFile | undefined {
  for (const dir of searchDirectories(cwd, home)) {
    for (const place of PROJECT_SEARCH_PLACES) {
      const found = readCandidate(path.join(dir, place));
      if (found === undefined) continue;
      if (isSkipped(found)) {
        skipped(found.file, found.reason);
        continue;
      }
      if (found.bytes.toString('utf8').trim() === '') continue;
      return found;
    }
  }
  return undefined;
}

/** The file the search would pick from `cwd`, or why there is none (for `textgen trust` with no PATH). */
export function findProjectFile(
  cwd: string,
  env: Record<string, string | undefined>,
): { found?: FoundFile; skipped: Array<{ file: string; reason: string }>; searched: string[] } {
  const skipped: Array<{ file: string; reason: string }> = [];
  const home = homeDir(env);
  const found = searchProjectFile(cwd, home, (file, reason) => skipped.push({ file, reason }));
  return { ...(found ? { found } : {}), skipped, searched: searchDirectories(cwd, home) };
}

/** A data file's contents: package.json's "textgen" key, JSON, or YAML (`.textgenrc` without an extension too). */
export async function parseData(found: FoundFile, show: (f: string) => string): Promise<unknown> {
  const text = found.bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  const base = path.basename(found.file);
  if (base === 'package.json') {
    const data = parseJson(text, found.file, show);
    return data !== null && typeof data === 'object' && !Array.isArray(data)
      ? (data as Record<string, unknown>).textgen
      : undefined;
  }
  if (path.extname(base) === '.json') return parseJson(text, found.file, show);
  return parseYaml(text, found.file, show);
}

async function loadCode(file: string, show: (f: string) => string): Promise<unknown> {
  if (file.endsWith('.ts')) {
    const { readFile } = await import('node:fs/promises');
    return importTypeScript(file, await readFile(file, 'utf8'), show);
  }
  return importModule(file);
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
