import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import {
  ALEPH_ALPHA_ENDPOINTS,
  ALEPH_ALPHA_PAGE_EXAMPLES,
  ALEPH_ALPHA_SCHEMAS,
  ALEPH_ALPHA_VERSION,
  asProperty,
  type ContractProperty,
  type FieldFacts,
  type SchemaFacts,
} from '../contract/aleph-alpha-contract.js';
import { AZURE_OPENAI_CONTRACT } from '../contract/azure-openai-contract.js';
import { OPEN_INFERENCE_CONTRACT } from '../contract/open-inference-contract.js';
import { watsonxParametersSchema, watsonxStopReasonSchema } from '../contract/watsonx-schemas.js';
import {
  readAlephAlphaSeed,
  seedExample,
  seedPath,
  seedProperties,
  seedRequiredLists,
  seedSection,
} from './aleph-alpha-seed.js';

/**
 * The contract files under test/contract are the project's own record of the public documents; the tests of the
 * repository check the code against them and need nothing outside it. This suite checks those files against the
 * original documents — the OpenAPI documents and wire-facts pages in `../shared/specs` and the provider documents in
 * `../shared/seeds`, beside the repository — so a record that drifts from its source shows up. Where those folders
 * are not there (a plain clone), the suite is skipped and says so.
 */
const SHARED = resolve(import.meta.dirname, '../../../shared');
const SPECS = join(SHARED, 'specs');
const SEEDS = join(SHARED, 'seeds');
const available = existsSync(SPECS) && existsSync(SEEDS);
if (!available) {
  console.log(
    `cross-check of test/contract against the original documents SKIPPED: ${SPECS} and ${SEEDS} are not beside the ` +
      'repository (a plain clone has no such folder); every other test runs on the contract files alone.',
  );
}

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A schema without its prose: `description` and `example` dropped everywhere but as field names. */
function withoutProse(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutProse);
  if (!isNode(node)) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => k !== 'description' && k !== 'example')
      .map(([k, v]) => [
        k,
        k === 'properties' && isNode(v)
          ? Object.fromEntries(Object.entries(v).map(([f, s]) => [f, withoutProse(s)]))
          : withoutProse(v),
      ]),
  );
}

/** The JSON code blocks of a wire-facts page, in order. */
function pageExamples(page: string): unknown[] {
  return [...readFileSync(join(SPECS, page), 'utf8').matchAll(/```json\n([^]*?)```/g)].map(
    (m) => JSON.parse(m[1]!) as unknown,
  );
}

describe.skipIf(!available)('the Azure OpenAI contract agrees with azure-openai-2022-03-01-preview.json', () => {
  let doc: Node;
  beforeAll(() => {
    doc = JSON.parse(readFileSync(join(SPECS, 'azure-openai-2022-03-01-preview.json'), 'utf8')) as Node;
  });
  const contract = AZURE_OPENAI_CONTRACT;

  test('version, server and the api-key header', () => {
    expect((doc.info as Node).version).toBe(contract.apiVersion);
    expect((doc.servers as Node[])[0]!.url).toBe(contract.server);
    expect(((doc.components as Node).securitySchemes as Node).apiKey).toEqual({
      type: 'apiKey',
      name: contract.apiKeyHeader,
      in: 'header',
    });
  });

  test("exactly the document's operations", () => {
    const ops = Object.values(contract.operations).map((op) => `${op.method} ${op.path}`);
    const documented = Object.entries(doc.paths as Node).flatMap(([path, item]) =>
      Object.keys(item as Node).map((m) => `${m} ${path}`),
    );
    expect(ops.sort()).toEqual(documented.sort());
  });

  test.each(Object.entries(contract.operations))(
    "%s: parameters, request and answers are the document's",
    (_name, op) => {
      const d = ((doc.paths as Node)[op.path] as Node)[op.method] as Node;
      expect(op.parameters).toEqual(
        (d.parameters as Node[]).map((p) => ({
          in: p.in,
          name: p.name,
          required: p.required,
          type: (p.schema as Node).type,
        })),
      );
      const body = d.requestBody as Node;
      const [contentType, media] = Object.entries(body.content as Node)[0] as [string, Node];
      expect(op.request).toEqual({
        contentType,
        required: body.required,
        schema: withoutProse(media.schema),
        ...(media.example === undefined ? {} : { example: media.example }),
      });
      const answers = Object.fromEntries(
        Object.entries(d.responses as Node).map(([status, r]) => {
          const answer = r as Node;
          const [type, m] = Object.entries(answer.content as Node)[0] as [string, Node];
          return [
            status,
            {
              contentType: type,
              schema: withoutProse(m.schema),
              ...(m.example === undefined ? {} : { example: m.example }),
              ...(answer.headers === undefined ? {} : { headers: Object.keys(answer.headers as Node) }),
            },
          ];
        }),
      );
      expect(op.responses).toEqual(answers);
    },
  );

  test("the shared schemas are the document's", () => {
    expect(contract.schemas).toEqual(withoutProse((doc.components as Node).schemas));
  });

  test("the answer examples are the wire-facts page's (azure-openai.md)", () => {
    const examples = pageExamples('azure-openai.md');
    expect(examples).toContainEqual(contract.pageExamples.completionAnswer);
    expect(examples).toContainEqual(contract.pageExamples.embeddingsAnswer);
  });
});

describe.skipIf(!available)('the Open Inference contract agrees with open-inference-generate.yaml', () => {
  let doc: Node;
  beforeAll(() => {
    doc = parse(readFileSync(join(SPECS, 'open-inference-generate.yaml'), 'utf8')) as Node;
  });
  const contract = OPEN_INFERENCE_CONTRACT;
  const name = (schema: unknown): string => String((schema as Node).$ref).replace('#/components/schemas/', '');

  test("the OpenAPI version and exactly the document's operations", () => {
    expect(doc.openapi).toBe(contract.openapi);
    const ops = Object.values(contract.operations).map((op) => `${op.method} ${op.path}`);
    const documented = Object.entries(doc.paths as Node).flatMap(([path, item]) =>
      Object.keys(item as Node).map((m) => `${m} ${path}`),
    );
    expect(ops.sort()).toEqual(documented.sort());
  });

  test.each(Object.entries(contract.operations))("%s: parameters, request and answers are the document's", (_n, op) => {
    const d = ((doc.paths as Node)[op.path] as Node)[op.method] as Node;
    expect(op.parameters).toEqual(
      (d.parameters as Node[]).map((p) => ({
        in: p.in,
        name: p.name,
        required: p.required,
        type: (p.schema as Node).type,
      })),
    );
    const [contentType, media] = Object.entries((d.requestBody as Node).content as Node)[0] as [string, Node];
    expect(op.request).toEqual({ contentType, schema: name(media.schema) });
    const answers = Object.fromEntries(
      Object.entries(d.responses as Node).map(([status, r]) => {
        const [type, m] = Object.entries((r as Node).content as Node)[0] as [string, Node];
        return [
          status,
          { contentType: type, schema: name(m.schema), ...(m.example === undefined ? {} : { example: m.example }) },
        ];
      }),
    );
    expect(op.responses).toEqual(answers);
  });

  test("the component schemas are the document's: fields, types, enums, ranges, required lists", () => {
    expect(contract.schemas).toEqual(withoutProse((doc.components as Node).schemas));
  });
});

/** Where each recorded schema sits in the flattened seed: from its name to the schema after it. */
const AA_SECTIONS: Record<keyof typeof ALEPH_ALPHA_SCHEMAS, [string, string]> = {
  CompletionRequest: ['CompletionRequest: type: object', 'CompletionResponse: type: object'],
  CompletionResponse: ['CompletionResponse: type: object', 'ExplanationRequest:'],
  EvaluationRequest: ['EvaluationRequest: type: object', 'EvaluationResponse: type: object'],
  EvaluationResponse: ['EvaluationResponse: type: object', 'SummarizationRequest: type: object'],
  ExplanationRequest: ['ExplanationRequest: type: object', 'TokenIdsPromptItemImportance:'],
  TokenIdsPromptItemImportance: ['TokenIdsPromptItemImportance:', 'TargetItemImportance:'],
  TargetItemImportance: ['TargetItemImportance:', 'TextPromptItemImportance:'],
  TextPromptItemImportance: ['TextPromptItemImportance:', 'ImagePromptItemImportance:'],
  ImagePromptItemImportance: ['ImagePromptItemImportance:', 'ExplanationResponse:'],
  ExplanationResponse: ['ExplanationResponse:', 'QARequest:'],
  QARequest: ['QARequest:', 'QAResponse:'],
  QAResponse: ['QAResponse:', 'EmbeddingRequest:'],
  SummarizationRequest: ['SummarizationRequest: type: object', 'SummarizationResponse: type: object'],
  SummarizationResponse: ['SummarizationResponse: type: object', 'TokenizationRequest: type: object'],
  Document: ['Document:', 'CompletionRequest:'],
  EmbeddingRequest: [' EmbeddingRequest: type: object', ' EmbeddingResponse:'],
  EmbeddingResponse: [' EmbeddingResponse: type: object', ' SemanticEmbeddingRequest:'],
  SemanticEmbeddingRequest: [' SemanticEmbeddingRequest: type: object', ' SemanticEmbeddingResponse:'],
  SemanticEmbeddingResponse: [' SemanticEmbeddingResponse: type: object', ' BatchSemanticEmbeddingRequest:'],
  BatchSemanticEmbeddingRequest: [' BatchSemanticEmbeddingRequest: type: object', ' BatchSemanticEmbeddingResponse:'],
  BatchSemanticEmbeddingResponse: [' BatchSemanticEmbeddingResponse: type: object', ' EvaluationRequest:'],
  TokenizationRequest: ['TokenizationRequest: type: object', 'TokenizationResponse:'],
  TokenizationResponse: ['TokenizationResponse: type: object', 'DetokenizationRequest:'],
  DetokenizationRequest: ['DetokenizationRequest: type: object', 'DetokenizationResponse:'],
  DetokenizationResponse: ['DetokenizationResponse: type: object', 'RecentRequestsResponse:'],
};

/** Every field of a schema in the document's order, a nested object's fields right after it (as the seed lists them). */
function flattened(f: FieldFacts): Array<[string, FieldFacts]> {
  const own = Object.entries(f.properties ?? f.items?.properties ?? {});
  const nested = own.flatMap(([name, child]): Array<[string, FieldFacts]> => [[name, child], ...flattened(child)]);
  return [...nested, ...(f.oneOf ?? []).flatMap(flattened)];
}

function requiredLists(f: FieldFacts): string[][] {
  const here = f.required ? [[...f.required]] : [];
  const inside = [...Object.values(f.properties ?? {}), ...(f.items ? [f.items] : []), ...(f.oneOf ?? [])].flatMap(
    requiredLists,
  );
  return [...inside, ...here];
}

/** `key: value` for every scalar of an example, as the flattened seed writes them (quotes removed). */
function exampleLeaves(value: unknown, key?: string): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => exampleLeaves(v));
  if (isNode(value)) return Object.entries(value).flatMap(([k, v]) => exampleLeaves(v, k));
  return key === undefined ? [String(value)] : [`${key}: ${String(value)}`];
}

const sort = (lists: string[][]): string[] => lists.map((l) => l.join(',')).sort();

describe.skipIf(!available)("the Aleph Alpha contract agrees with the provider's OpenAPI document (seed 002)", () => {
  let seed = '';
  beforeAll(() => {
    seed = readAlephAlphaSeed(SEEDS);
  });
  const section = (name: keyof typeof ALEPH_ALPHA_SCHEMAS): string => seedSection(seed, ...AA_SECTIONS[name]);

  test('the version', () => {
    expect(seed).toMatch(
      new RegExp(`info: title: Aleph Alpha API version: "${ALEPH_ALPHA_VERSION.replace(/\./g, '\\.')}"`),
    );
  });

  // Its descriptions come before the types, which the flattened reading cannot follow: checked apart below.
  const regular = Object.keys(ALEPH_ALPHA_SCHEMAS).filter((n) => n !== 'ExplanationResponse') as Array<
    keyof typeof ALEPH_ALPHA_SCHEMAS
  >;

  test.each(regular)(
    '%s: every field, nested ones included, with its type, $ref, nullability, enum, items and range',
    (name) => {
      const ours: ContractProperty[] = flattened(ALEPH_ALPHA_SCHEMAS[name]).map(([n, f]) => asProperty(n, f));
      expect(ours).toEqual(seedProperties(section(name)));
    },
  );

  test.each(regular)('%s: the required lists', (name) => {
    expect(sort(requiredLists(ALEPH_ALPHA_SCHEMAS[name]))).toEqual(sort(seedRequiredLists(section(name))));
  });

  test.each(regular)('%s: formats and the quoted words of descriptions', (name) => {
    const text = section(name);
    for (const [field, f] of flattened(ALEPH_ALPHA_SCHEMAS[name])) {
      if (f.format !== undefined) expect(text, field).toContain(`${field}: type: ${f.type} format: ${f.format}`);
      if (f.description !== undefined) expect(text.slice(text.indexOf(` ${field}: `)), field).toContain(f.description);
    }
  });

  const withExamples = regular.filter((n) => (ALEPH_ALPHA_SCHEMAS[n] as SchemaFacts).example !== undefined);
  test.each(withExamples)('%s: the example', (name) => {
    const example = seedExample(section(name));
    for (const leaf of exampleLeaves((ALEPH_ALPHA_SCHEMAS[name] as SchemaFacts).example))
      expect(example).toContain(leaf);
  });

  test('ExplanationResponse: model_version, and explanations of {target, items: one of the four importances}', () => {
    const text = section('ExplanationResponse');
    const facts: SchemaFacts = ALEPH_ALPHA_SCHEMAS.ExplanationResponse;
    expect(Object.keys(facts.properties!)).toEqual(['model_version', 'explanations']);
    expect(text).toMatch(/properties: model_version: type: string explanations: description: /);
    const shape =
      /explanations: description: [^]*? type: array items: type: object properties: target: description: [^]*? type: string items: description: [^]*? type: array items: oneOf: ((?:- \$ref: "[^"]+" ?)+)/.exec(
        text,
      );
    expect(shape).not.toBeNull();
    const refs = [...shape![1]!.matchAll(/\$ref: "([^"]+)"/g)].map((m) => m[1]);
    const explanation = facts.properties!.explanations!.items!;
    expect(Object.keys(explanation.properties!)).toEqual(['target', 'items']);
    expect(explanation.properties!.target).toEqual({ type: 'string' });
    expect(explanation.properties!.items!.items!.oneOf!.map((r) => r.$ref)).toEqual(refs);
  });

  test.each(Object.entries(ALEPH_ALPHA_ENDPOINTS))(
    '%s: method, query parameters, request and answer schemas',
    (path, endpoint) => {
      const text = seedPath(seed, path, endpoint.method);
      const query = [...text.matchAll(/in: query name: (\w+) (?:required: \w+ )?schema: type: (\w+)/g)].map((m) => [
        m[1],
        m[2],
      ]);
      expect(Object.entries(endpoint.query)).toEqual(query);
      expect(text).toMatch(
        new RegExp(
          `requestBody: required: true content: application/json: schema: \\$ref: "#/components/schemas/${endpoint.request}"`,
        ),
      );
      const answer = text.slice(text.indexOf('responses: "200":'));
      expect(/\$ref: "#\/components\/schemas\/(\w+)"/.exec(answer)?.[1]).toBe(endpoint.response);
    },
  );

  test("the completion answer example is the wire-facts page's (aleph-alpha.md)", () => {
    expect(pageExamples('aleph-alpha.md')).toContainEqual(ALEPH_ALPHA_PAGE_EXAMPLES.completionResponse);
  });
});

describe.skipIf(!available)('the watsonx contract agrees with the wire-facts page (watsonx.md)', () => {
  let page = '';
  beforeAll(() => {
    page = readFileSync(join(SPECS, 'watsonx.md'), 'utf8');
  });

  test('the stop reasons', () => {
    const list = /`stop_reason` ∈ ([^\n]+)/
      .exec(page)![1]!
      .replace(/`/g, '')
      .split(',')
      .map((s) => s.trim());
    expect(watsonxStopReasonSchema.options).toEqual(list);
  });

  test("the parameters are the page's table, field for field", () => {
    const table = page.slice(page.indexOf('## Parameters'), page.indexOf('`moderations`'));
    const fields = [...table.matchAll(/^\| (\w+) \|/gm)].map((m) => m[1]).filter((f) => f !== 'field');
    expect(Object.keys(watsonxParametersSchema.shape).sort()).toEqual(fields.sort());
  });
});
