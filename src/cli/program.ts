import { Command, CommanderError, Help, Option } from 'commander';
import type { GlobalOptions } from '../global-options.js';
import type { ProcessLike } from './context-factory.js';
import type { MainOptions, ParseOutcome, Selection } from './selection.js';
import { COMMAND_GROUPS, COMMAND_SPECS, COMMANDS } from './commands.js';
import { commandKey } from '../define-command.js';
import { packageVersion } from '../version.js';
import { GLOBAL_OPTION_SPECS } from '../global-options.js';
import { routedSpec, versionIsTheCommands } from './route.js';
import { examplesText, GLOBALS_POINTER, GROUP_EXAMPLES, globalsHelp, wrapCommandLine } from './help-text.js';

/** Help is laid out for 80 columns, examples included. */
const HELP_WIDTH = 80;

/** The heading of each top-level word in `textgen --help`: its commands' help group (src/cli/commands.ts). */
export function helpGroups(): Record<string, string> {
  const headings: Record<string, string> = {};
  for (const { spec, helpGroup } of COMMANDS) headings[spec.path[0] as string] ??= helpGroup;
  return headings;
}

function addGlobalOptions(program: Command): void {
  for (const o of GLOBAL_OPTION_SPECS) {
    const opt = new Option(o.flags, o.description);
    if ('repeatable' in o && o.repeatable) opt.argParser(collect);
    program.addOption(opt);
  }
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function groupCommand(program: Command, name: string): Command {
  const existing = program.commands.find((c) => c.name() === name);
  if (existing) return existing;
  const group = program.command(name).description(COMMAND_GROUPS[name] ?? name);
  return group;
}

/**
 * Builds the command line from the specs alone (no handler is loaded) and parses `argv`. Help, the version and
 * usage errors end here; otherwise the chosen command and its options are returned for `executeCommand`.
 */
export async function parseCommandLine(
  argv: string[],
  io: ProcessLike,
  { route = true }: { route?: boolean } = {},
): Promise<ParseOutcome> {
  // A reader that goes away (`textgen --help | head`) is not an error, and a failed write (a full disk) must not end the
  // process with a stack trace: the data sink records command output failures, which src/cli/execute.ts reports.
  io.stdout.on('error', () => undefined);
  const program = new Command('textgen');
  program.description(
    'One command line for text-generation services: watsonx.ai, Azure OpenAI, Aleph Alpha, Open Inference',
  );
  // commander takes a program option anywhere on the line: a `--version DATE` after the words of a command that
  // declares it (the API version date of the wx-ai mirrors) must reach that command, so textgen's own is left out.
  if (!versionIsTheCommands(argv, COMMAND_SPECS, GLOBAL_OPTION_SPECS))
    program.version(packageVersion(), '--version', 'print the version');
  program
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .configureHelp({
      // The global options are listed once (`textgen help globals`); each command's help points there.
      showGlobalOptions: false,
      sortSubcommands: true,
      helpWidth: HELP_WIDTH,
      // The long flag names of text-generate leave ~32 columns for descriptions: wrap those too (commander's 40).
      minWidthToWrap: 24,
      // Descriptions are written as paragraphs (commands/*.ts) and wrapped here, once, to the width; an indented
      // line is an example command, broken with shell continuations so that it can still be copied.
      boxWrap(this: Help, text: string, width: number): string {
        return text
          .split('\n')
          .map((line) =>
            /^\s/.test(line)
              ? wrapCommandLine(line, width, `${/^\s*/.exec(line)?.[0] ?? ''}    `)
              : Help.prototype.boxWrap.call(this, line, width),
          )
          .join('\n');
      },
    })
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride();
  addGlobalOptions(program);

  let selection: Selection | undefined;
  // A command the words name for certain is the only one registered; help and anything unclear get them all.
  const routed = route ? routedSpec(argv, COMMAND_SPECS, GLOBAL_OPTION_SPECS) : undefined;
  for (const spec of routed ? [routed] : COMMAND_SPECS) {
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
    if (spec.examples.length > 0) cmd.addHelpText('after', examplesText(spec.examples, HELP_WIDTH));
    cmd.addHelpText('after', `\n${GLOBALS_POINTER}\n`);
    cmd.exitOverride();
    const key = commandKey(spec);
    cmd.action((...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const opts = { ...command.opts(), args: command.args };
      selection = { key, opts, globals: command.optsWithGlobals() as GlobalOptions };
    });
  }
  program.addHelpText('after', examplesText(GROUP_EXAMPLES[''] ?? [], HELP_WIDTH));
  const headings = helpGroups();
  for (const group of program.commands) {
    const heading = headings[group.name()];
    if (heading !== undefined) group.helpGroup(heading);
    const examples = group.commands.length > 0 ? GROUP_EXAMPLES[group.name()] : undefined;
    if (examples) group.addHelpText('after', `${examplesText(examples, HELP_WIDTH)}\n${GLOBALS_POINTER}\n`);
    group.exitOverride();
    group.configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  }

  // Bare `textgen` is `textgen --help` (as gh does): the help on stdout, exit 0. A usage error goes to stderr, exit 2.
  if (argv.length === 0) {
    program.outputHelp();
    return { exitCode: 0 };
  }
  if (argv.length === 2 && argv[0] === 'help' && argv[1] === 'globals') {
    globalsHelp()
      .configureHelp({ helpWidth: HELP_WIDTH })
      .configureOutput({ writeOut: (s) => io.stdout.write(s) })
      .outputHelp();
    return { exitCode: 0 };
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help')
        return { exitCode: 0 };
      // commander has already printed its one-line message.
      return { exitCode: 2 };
    }
    throw e;
  }
  if (!selection) {
    program.outputHelp();
    return { exitCode: 0 };
  }
  return { selection };
}

/**
 * Parses the command line and runs the chosen command. In-process (src/cli/main.ts, the tests); bin/textgen.js runs
 * the two halves from their own bundles (src/cli/launch/launch.ts).
 */
export async function runCli(argv: string[], io: ProcessLike, options: MainOptions = {}): Promise<number> {
  const outcome = await parseCommandLine(argv, io);
  if ('exitCode' in outcome) return outcome.exitCode;
  const { executeCommand } = await import('./execute.js');
  return executeCommand(outcome.selection, io, options);
}
