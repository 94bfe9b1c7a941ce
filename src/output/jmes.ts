import { UsageError } from '../contract/errors.js';

/**
 * `-j/--jmes-query` over the JSON result. The query sees exactly what `--output json` would print
 * (a JSON round trip drops `undefined` members and turns dates into strings). Expressions are
 * compiled first so that a syntax error, which is the user's, is told apart from an evaluation error
 * (unknown function, wrong argument type), which is also the user's: both are usage errors.
 */
export async function applyJmesQuery(value: unknown, expression: string): Promise<unknown> {
  const { compile, TreeInterpreter } = await import('@jmespath-community/jmespath');
  let ast: ReturnType<typeof compile>;
  try {
    ast = compile(expression);
  } catch (error) {
    throw new UsageError(`-j/--jmes-query: invalid expression ${JSON.stringify(expression)}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  const json = JSON.stringify(value);
  const data: Parameters<typeof TreeInterpreter.search>[1] = json === undefined ? null : JSON.parse(json);
  try {
    return TreeInterpreter.search(ast, data);
  } catch (error) {
    throw new UsageError(`-j/--jmes-query: cannot evaluate ${JSON.stringify(expression)}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
