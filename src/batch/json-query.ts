/**
 * `-j` in a batch: the JMESPath expression is compiled once and applied to every line's result (the record's
 * `result` is then the query's value). Loaded only by batch runs that have `-j`.
 */
import { UsageError } from '../contract/errors.js';

export type ResultQuery = (value: unknown) => unknown;

export async function compileResultQuery(expression: string | undefined): Promise<ResultQuery | undefined> {
  if (expression === undefined || expression === '') return undefined;
  const { compile, TreeInterpreter } = await import('@jmespath-community/jmespath');
  let ast: ReturnType<typeof compile>;
  try {
    ast = compile(expression);
  } catch (e) {
    throw new UsageError(`-j/--jmes-query: invalid expression ${JSON.stringify(expression)}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  return (value) => {
    try {
      // The results are plain JSON data (parsed answers and canonical objects), as the library expects.
      return TreeInterpreter.search(ast, value as Parameters<typeof TreeInterpreter.search>[1]);
    } catch (e) {
      throw new UsageError(`-j/--jmes-query: cannot evaluate ${JSON.stringify(expression)}: ${(e as Error).message}`, {
        cause: e,
      });
    }
  };
}

/** A result as the JSON text of its record, after the query; a missing value is null, as -j prints it. */
export function resultJson(value: unknown, query: ResultQuery | undefined): string {
  return JSON.stringify((query ? query(value) : value) ?? null);
}
