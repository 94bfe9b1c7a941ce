/**
 * The global options, as plain data: src/cli/program.ts gives them to commander (accepted before or after the command words),
 * and shell completion (src/completion/) lists them. Declared here once.
 */
import type { OptionSpec, OptionValues } from './command.js';

export const GLOBAL_OPTION_SPECS = [
  {
    flags: '--profile <name>',
    description: 'connection profile to use (env TEXTGEN_PROFILE); "local" starts the embedded server',
  },
  { flags: '--config <path>', description: 'config file to use instead of searching (env TEXTGEN_CONFIG)' },
  {
    flags: '--provider <kind>',
    description: 'watsonx | azure-openai | openai | aleph-alpha | open-inference (ad hoc profile with --url)',
  },
  { flags: '--url <base-url>', description: 'service base URL (overrides the profile)' },
  { flags: '--api-key <key>', description: "API key (prefer env TEXTGEN_API_KEY or the profile's apikey_env)" },
  { flags: '--token <bearer>', description: 'bearer token (prefer env TEXTGEN_TOKEN)' },
  { flags: '--api-version <date>', description: 'API version date, e.g. 2024-05-01' },
  { flags: '-o, --output <format>', description: 'output format: text, json, jsonl, yaml (table = text)' },
  { flags: '-j, --jmes-query <expr>', description: 'JMESPath query applied to the JSON result' },
  { flags: '--raw-output', description: 'print a string result without quotes' },
  { flags: '-q, --quiet', description: 'no warnings or progress on stderr' },
  { flags: '-v, --verbose', description: 'HTTP trace on stderr (secrets redacted)' },
  { flags: '--no-color', description: 'no colour' },
  { flags: '--no-interactive', description: 'never prompt; missing values are errors' },
  { flags: '--dry-run', description: 'print the request as a curl command (secrets redacted) and send nothing' },
  { flags: '--timeout <ms>', description: 'wait this long for an answer, or a silent stream (default 300000)' },
  {
    flags: '--max-time <ms>',
    description: 'give up after this long in all, retries and streaming included (like curl --max-time)',
  },
  { flags: '--retries <n>', description: 'retries for 408/429/5xx and connection resets (default 2)' },
  { flags: '--ca-cert <file>', description: 'extra trusted CA certificates (PEM)' },
  { flags: '--insecure', description: 'do not verify TLS certificates (prints a warning)' },
  { flags: '--record <dir>', description: 'record every call and its answer into cassette DIR (docs/cassettes.md)' },
  { flags: '--replay <dir>', description: 'answer every call from cassette DIR: no network, no credentials' },
  {
    flags: '--match <rule>',
    description: 'cassette key rule: ignore=PATH, keep=PATH, +query, +header=NAME, -body (repeatable)',
    repeatable: true,
  },
  {
    flags: '--replay-timing <mode>',
    description: 'none | recorded: replay streams at once, or at their pace',
    choices: ['none', 'recorded'],
  },
] as const satisfies readonly OptionSpec[];

/**
 * The global options as commander hands them over (strings until validated): derived from the table above, so a
 * global flag is declared once and its key and value type follow from it.
 */
export type GlobalOptions = OptionValues<typeof GLOBAL_OPTION_SPECS>;
