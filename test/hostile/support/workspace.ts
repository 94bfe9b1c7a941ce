/**
 * The throw-away directory the hostile cases run in: a home with no config, a working directory full of
 * bad files, and one directory per config case (each its own home, so the project-file search stops there).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Workspace {
  root: string;
  /** cwd of most cases: holds the files below, and no config. */
  work: string;
  /** env for cases run in `work`. */
  env: Record<string, string>;
  /** A fresh directory holding `files`, which is also HOME (so only these files are config); its env. */
  configCase(name: string, files: Record<string, string | Uint8Array>): { cwd: string; env: Record<string, string> };
  cleanup(): void;
}

/** A valid --parameters object of about `bytes` bytes: many prompt variables. */
export function hugeParameters(bytes: number): string {
  const count = Math.ceil(bytes / 40);
  const vars: Record<string, string> = {};
  for (let i = 0; i < count; i++) vars[`variable_${i}`] = 'v'.repeat(24);
  return JSON.stringify({ max_new_tokens: 5, prompt_variables: vars });
}

export const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
export const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

export const FILES = {
  params: 'params.json',
  directory: 'a-directory.json',
  missing: 'no-such-file.json',
  unreadable: 'unreadable.json',
  binary: 'binary.bin',
  empty: 'empty.json',
  huge: 'huge-params.json',
  hugeBroken: 'huge-broken.json',
  deepArray: 'deep-array.json',
  deepObject: 'deep-object.json',
  deepUnclosed: 'deep-unclosed.json',
  latin1: 'latin1-prompt.txt',
  prompt: 'prompt.txt',
  png: 'image.png',
  embedDeep: 'embed-deep.json',
} as const;

export function createWorkspace(): Workspace {
  const root = mkdtempSync(join(tmpdir(), 'textgen-hostile-'));
  const work = join(root, 'work');
  mkdirSync(join(work, FILES.directory), { recursive: true });
  const write = (name: string, content: string | Uint8Array) => writeFileSync(join(work, name), content);
  write(FILES.params, '{"max_new_tokens": 5}');
  write(FILES.unreadable, '{"max_new_tokens": 5}');
  chmodSync(join(work, FILES.unreadable), 0o000);
  // Bytes that are neither UTF-8 nor JSON: a NUL, an ESC sequence, invalid lead bytes.
  write(FILES.binary, Uint8Array.from([0x00, 0x1b, 0x5b, 0x32, 0x4a, 0xff, 0xfe, 0xc0, 0x80, 0x89, 0x50, 0x4e, 0x47]));
  write(FILES.empty, '');
  write(FILES.huge, hugeParameters(3_000_000));
  write(FILES.hugeBroken, `${hugeParameters(3_000_000)},`);
  write(FILES.deepArray, deepArray(100_000));
  write(FILES.deepObject, deepObject(100_000));
  write(FILES.deepUnclosed, '['.repeat(100_000));
  write(FILES.latin1, Buffer.from('caf\u00e9 cr\u00e8me', 'latin1'));
  write(FILES.prompt, 'Hello');
  write(FILES.png, Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
  write(FILES.embedDeep, deepArray(50_000));
  const home = join(root, 'home');
  mkdirSync(home);
  const envFor = (dir: string) => ({
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'xdg-config'),
    XDG_CACHE_HOME: join(dir, 'xdg-cache'),
    TEXTGEN_SPACE_ID: 'space-1',
  });
  let cases = 0;
  return {
    root,
    work,
    env: envFor(home),
    configCase(name, files) {
      const dir = join(root, 'config-cases', `${++cases}-${name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 40)}`);
      mkdirSync(dir, { recursive: true });
      for (const [file, content] of Object.entries(files)) {
        mkdirSync(join(dir, file, '..'), { recursive: true });
        if (file.endsWith('/')) mkdirSync(join(dir, file), { recursive: true });
        else writeFileSync(join(dir, file), content);
      }
      return { cwd: dir, env: envFor(dir) };
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
