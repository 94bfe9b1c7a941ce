import { Command, CommanderError, Option } from 'commander';
import type { CommandSpec, OptionSpec } from './command.js';
import type { CommandRun } from './context.js';
import type { GlobalOptions } from './config/types.js';
import type { MainOptions } from './main.js';
import { createContext, type ProcessLike } from './context-factory.js';
import { reportFailure } from './report-failure.js';
import { packageVersion } from './package-version.js';

interface CommandModule {
  spec: CommandSpec;
  run: CommandRun;
}

/** The one place that lists commands. Each module is cheap to import; `run` loads what it needs. */
const COMMANDS: Array<() => Promise<CommandModule>> = [
  () => import('../commands/deployment/text-generate.js'),
  () => import('../commands/deployment/text-generate-stream.js'),
  () => import('../commands/complete.js'),
  () => import('../commands/chat.js'),
  () => import('../commands/models.js'),
  () => import('../commands/health.js'),
  () => import('../commands/evaluate.js'),
  () => import('../commands/explain.js'),
  () => import('../commands/qa.js'),
  () => import('../commands/summarize.js'),
  () => import('../commands/tokenize.js'),
  () => import('../commands/detokenize.js'),
  () => import('../commands/embed.js'),
  () => import('../commands/serve.js'),
  () => import('../commands/profiles/list.js'),
  () => import('../commands/profiles/show.js'),
  () => import('../commands/profiles/add.js'),
  () => import('../commands/profiles/remove.js'),
  () => import('../commands/profiles/use.js'),
  () => import('../commands/completion.js'),
];

const GROUPS: Record<string, string> = {
  deployment: 'Generate text with a deployment (mirrors cpd-cli wx-ai deployment)',
  profiles: 'Manage connection profiles in the user config file',
};

/** `textgen --help` lists top-level commands under these headings; a command not named here goes under "Commands:". */
export const HELP_GROUPS: Record<string, string> = {
  deployment: 'Generate:',
  complete: 'Generate:',
  chat: 'Generate:',
  embed: 'Embeddings and tokens:',
  tokenize: 'Embeddings and tokens:',
  detokenize: 'Embeddings and tokens:',
  evaluate: 'Aleph Alpha tasks:',
  explain: 'Aleph Alpha tasks:',
  qa: 'Aleph Alpha tasks:',
  summarize: 'Aleph Alpha tasks:',
  models: 'Inspect:',
  health: 'Inspect:',
  profiles: 'Setup:',
  completion: 'Setup:',
  serve: 'Setup:',
};

/** Every command's spec, in COMMANDS order: what shell completion is generated from. */
export async function loadCommandSpecs(): Promise<CommandSpec[]> {
  const modules = await Promise.all(COMMANDS.map((load) => load()));
  return modules.map((m) => m.spec);
}

/** The global options as specs (flags and description), read from the same commander setup the CLI uses. */
export function globalOptionSpecs(): OptionSpec[] {
  const probe = new Command();
  addGlobalOptions(probe);
  return probe.options.map((o) => ({ flags: o.flags, description: o.description }));
}

function addGlobalOptions(program: Command): void {
  program
    .option('--profile <name>', 'connection profile to use (env TEXTGEN_PROFILE); "local" starts the embedded server')
    .option('--config <path>', 'config file to use instead of searching (env TEXTGEN_CONFIG)')
    .option('--provider <kind>', 'watsonx | azure-openai | openai | aleph-alpha | open-inference (ad hoc profile with --url)')
    .option('--url <base-url>', 'service base URL (overrides the profile)')
    .option('--api-key <key>', 'API key (prefer env TEXTGEN_API_KEY or the profile\'s apikey_env)')
    .option('--token <bearer>', 'bearer token (prefer env TEXTGEN_TOKEN)')
    .option('--api-version <date>', 'API version date, e.g. 2024-05-01')
    .addOption(new Option('-o, --output <format>', 'output format: text, json, jsonl, yaml (table = text)'))
    .option('-j, --jmes-query <expr>', 'JMESPath query applied to the JSON result')
    .option('--raw-output', 'print a string result without quotes')
    .option('-q, --quiet', 'no warnings or progress on stderr')
    .option('-v, --verbose', 'HTTP trace on stderr (secrets redacted)')
    .option('--no-color', 'no colour')
    .option('--no-interactive', 'never prompt; missing values are errors')
    .option('--dry-run', 'print the request as a curl command (secrets redacted) and send nothing')
    .option('--timeout <ms>', 'wait this long for an answer, or a silent stream (default 300000)')
    .option('--retries <n>', 'retries for 408/429/5xx and connection resets (default 2)')
    .option('--ca-cert <file>', 'extra trusted CA certificates (PEM)')
    .option('--insecure', 'do not verify TLS certificates (prints a warning)');
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function groupCommand(program: Command, name: string): Command {
  const existing = program.commands.find((c) => c.name() === name);
  if (existing) return existing;
  const group = program.command(name).description(GROUPS[name] ?? name);
  return group;
}

export async function runCli(argv: string[], io: ProcessLike, options: MainOptions = {}): Promise<number> {
  // A reader that goes away (`textgen --help | head`) is not an error; the data sink handles it for command output.
  io.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  const modules = await Promise.all(COMMANDS.map((load) => load()));
  const program = new Command('textgen');
  program
    .description('One command line for text-generation services: watsonx.ai, Azure OpenAI, Aleph Alpha, Open Inference')
    .version(packageVersion(), '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true, sortSubcommands: true })
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride();
  addGlobalOptions(program);

  let selected: { module: CommandModule; opts: Record<string, unknown>; globals: GlobalOptions } | undefined;
  for (const mod of modules) {
    const { spec } = mod;
    let parent = program;
    for (const word of spec.path.slice(0, -1)) parent = groupCommand(parent, word);
    const cmd = parent.command(spec.path[spec.path.length - 1] as string).description(spec.summary);
    // The summary alone in command lists; the description only in the command's own help.
    if (spec.description) cmd.summary(spec.summary).description(`${spec.summary}\n\n${spec.description}`);
    if (spec.args) cmd.arguments(spec.args);
    for (const o of spec.options) {
      const opt = new Option(o.flags, o.description);
      if (o.repeatable) opt.argParser(collect);
      if (o.hidden) opt.hideHelp();
      cmd.addOption(opt);
    }
    if (spec.examples.length > 0) {
      cmd.addHelpText('after', `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}\n`);
    }
    cmd.exitOverride();
    cmd.action((...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const opts = { ...command.opts(), args: command.args };
      selected = { module: mod, opts, globals: command.optsWithGlobals() as GlobalOptions };
    });
  }
  for (const group of program.commands) {
    const heading = HELP_GROUPS[group.name()];
    if (heading !== undefined) group.helpGroup(heading);
    group.exitOverride();
    group.configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  }

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      // commander has already printed its one-line message.
      return 2;
    }
    throw e;
  }
  if (!selected) {
    program.outputHelp();
    return 0;
  }

  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1) {
      io.stderr.write('\n');
      process.exit(130);
    }
    controller.abort();
  };
  if (options.handleSignals) process.on('SIGINT', onSigint);
  const ctx = createContext(io, selected.globals, controller.signal);
  let code: number;
  try {
    code = await selected.module.run(selected.opts, ctx);
  } catch (e) {
    code = reportFailure(e, ctx.reporter, io.stderr, selected.globals.verbose === true, ctx.terminal.colorLevel);
  } finally {
    await ctx.dispose();
    if (options.handleSignals) process.off('SIGINT', onSigint);
  }
  return code;
}
