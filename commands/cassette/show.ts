import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';

const spec = {
  path: ['cassette', 'show'],
  summary: 'Print one cassette entry as stored (secrets were never written)',
  description:
    'KEY is an entry key from "cassette ls" (or its first 6 digits or more); FILE an entry file of DIR. The entry ' +
    'is printed as it is on disk: JSON for a whole answer, JSON Lines for a stream (its events, as they arrived). ' +
    'See docs/cassettes.md.',
  args: '<dir> <key-or-file>',
  options: [],
  examples: [
    'textgen cassette show ci/cassettes 3fa29c01',
    'textgen cassette show ci/cassettes openai-post-v1-completions-0a822c330de03262d328.json',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { resolve } = await import('node:path');
  const { findEntry } = await import('../../src/cassette/manage.js');
  const { CassetteDir } = await import('../../src/cassette/store.js');
  const { serializeEntry } = await import('../../src/cassette/entry.js');
  const dir = resolve(ctx.cwd, options.args[0] ?? '');
  const found = await findEntry(dir, options.args[1] ?? '');
  // Read through the store: the same checks as a replay (no link, bounded, well-formed).
  const entry = await new CassetteDir(dir).read(found.name);
  if (entry === undefined) return 0;
  ctx.out.json(serializeEntry(entry));
  return 0;
}

export const command = defineCommand({ spec, helpGroup: 'Setup:', run });
