/**
 * `import()` of what stays outside the bundles: an ES module package (ora, @inquirer/prompts) or a config file
 * given by URL. bin/textgen.js runs the bundles as vm scripts (src/cli/launch/compile-cache.ts), and in Node 20 a vm
 * script cannot `import()` without an experimental flag; the launcher, an ordinary module, lends its own
 * `import()` under this symbol. Everywhere else (tests, src/cli/main.ts in-process) this is plain `import()`.
 */
export const LENT_IMPORT = Symbol.for('textgen.import');

export function importEsm<T>(specifier: string): Promise<T> {
  const lent = (globalThis as Record<symbol, unknown>)[LENT_IMPORT] as
    | ((specifier: string) => Promise<unknown>)
    | undefined;
  return (lent ? lent(specifier) : import(specifier)) as Promise<T>;
}
