// Structured output (--json-schema / initialize.jsonSchema / the SDK's outputFormat): the
// StructuredOutput tool offered with the host's schema, its validated input as
// result.structured_output, retries, the reminder, and what never gets it (subagents).
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { firstUserText, lastUserText, text, type RecordedRequest, type ScriptedReply } from '../fake-api/server.js';
import {
  resultsById,
  runAgent,
  runTurns,
  startFakeApi,
  STREAM_ARGS,
  tempDir,
  turns,
  userLine,
  type FakeApi,
  sharedSession,
} from './harness.js';
import { sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    age: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'age'],
  additionalProperties: false,
};
const ARGS = [...STREAM_ARGS, '--json-schema', JSON.stringify(SCHEMA)];

const resultOf = (r: { json: () => Array<Record<string, any>> }) =>
  r
    .json()
    .filter((m) => m.type === 'result')
    .pop()!;
const toolNames = (req: RecordedRequest): string[] => (req.body.tools ?? []).map((t: any) => t.name);

function output(input: unknown, id = 'so1', say?: string): ScriptedReply {
  return {
    content: [
      ...(say ? [{ type: 'text' as const, text: say }] : []),
      { type: 'tool_use' as const, id, name: 'StructuredOutput', input },
    ],
  };
}

/**
 * The checks whose run ends in success share one stream-json session with the schema, one prompt
 * (one run) each: structured output is per run, its count of invalid calls and its one reminder
 * start again with every prompt. The fake answers the turns' replies in order; each check reads
 * only its own turn's requests and stdout lines. Made once, by the first check that reads it.
 */
const TURNS = {
  valid: [output({ name: 'Ada', age: 36, tags: ['math'] }, 'so1', 'Here is the record.')],
  invalid: [output({ name: 'Ada', age: 'thirty-six' }, 'bad1'), output({ name: 'Ada', age: 36 }, 'good1')],
  nested: [output({ name: '', age: 1, tags: ['ok', 7], extra: true }, 'bad2'), output({ name: 'x', age: 1 }, 'good2')],
  remind: [text('Ada, 36.'), output({ name: 'Ada', age: 36 }, 'so4')],
};

async function schemaTurns() {
  const names = Object.keys(TURNS) as Array<keyof typeof TURNS>;
  const own = await startFakeApi(names.flatMap((n) => TURNS[n]));
  try {
    const r = await runTurns(
      'the shared --json-schema session',
      { api: own, args: ARGS },
      Object.fromEntries(names.map((n) => [n, `who? (${n})`])) as Record<keyof typeof TURNS, string>,
    );
    // Nothing was asked after the last run's result.
    expect(own.requests, 'requests of the shared --json-schema session').toHaveLength(
      names.reduce((n, name) => n + r.turns[name].requests.length, 0),
    );
    return r;
  } finally {
    await own.close();
  }
}
const schemaSession = sharedSession('--json-schema', schemaTurns);
async function turnOf(name: keyof typeof TURNS) {
  return (await schemaSession()).turns[name];
}

describe('structured output (--json-schema)', () => {
  it('offers StructuredOutput with the schema as input_schema; a valid call ends the run with result.structured_output', async () => {
    const r = await turnOf('valid');
    const tool = r.requests[0].body.tools.find((t: any) => t.name === 'StructuredOutput');
    const { $schema: _drop, ...offered } = SCHEMA;
    expect(tool.input_schema).toEqual(offered);
    expect(r.json().find((m) => m.type === 'system' && m.subtype === 'init')!.tools).toContain('StructuredOutput');
    expect(resultOf(r)).toMatchObject({
      subtype: 'success',
      is_error: false,
      result: 'Here is the record.',
      structured_output: { name: 'Ada', age: 36, tags: ['math'] },
    });
    // The valid call is the end: no further model call.
    expect(r.requests).toHaveLength(1);
    const toolResult = r.json().find((m) => m.type === 'user' && m.message.content?.[0]?.tool_use_id === 'so1');
    expect(toolResult!.message.content[0].is_error).toBeUndefined();
  });

  it('with no text from the model, the result text is the JSON', async () => {
    api = await startFakeApi([output({ name: 'Bo', age: 1 })]);
    const r = await runAgent({
      api,
      args: ['-p', 'who?', '--output-format', 'json', '--json-schema', JSON.stringify(SCHEMA)],
    });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.lines[r.lines.length - 1]);
    expect(result).toMatchObject({ subtype: 'success', structured_output: { name: 'Bo', age: 1 } });
    expect(JSON.parse(result.result)).toEqual({ name: 'Bo', age: 1 });
  });

  it('an invalid call gets an is_error tool_result naming the bad field; the next valid call wins', async () => {
    const r = await turnOf('invalid');
    expect(r.requests).toHaveLength(2);
    const seen = resultsById(r.requests[1]).bad1;
    expect(seen.isError).toBe(true);
    expect(seen.text).toMatch(/StructuredOutput failed/);
    expect(seen.text).toMatch(/`age`.*number.*string/);
    expect(resultOf(r)).toMatchObject({ subtype: 'success', structured_output: { name: 'Ada', age: 36 } });
  });

  it('names nested paths and every violation', async () => {
    const r = await turnOf('nested');
    expect(r.requests).toHaveLength(2);
    expect(resultOf(r)).toMatchObject({ subtype: 'success', structured_output: { name: 'x', age: 1 } });
    const seen = resultsById(r.requests[1]).bad2.text;
    expect(seen).toMatch(/`name`/);
    expect(seen).toMatch(/`tags\.1`/);
    expect(seen).toMatch(/unexpected parameter `extra`/);
  });

  it('five invalid calls end the run with error_max_structured_output_retries', async () => {
    api = await startFakeApi((_req, i) => output({ name: 'Ada' }, `bad${i}`));
    const r = await runAgent({ api, args: ARGS, input: userLine('who?') });
    expect(r.code).toBe(1);
    expect(api.requests).toHaveLength(5);
    const result = resultOf(r);
    expect(result).toMatchObject({ subtype: 'error_max_structured_output_retries', is_error: true });
    expect(result.result).toMatch(/5 invalid StructuredOutput calls.*`age` is missing/s);
    expect(result.structured_output).toBeUndefined();
  });

  it('ending the turn without calling it: one reminder, then a call is accepted', async () => {
    const r = await turnOf('remind');
    expect(r.requests).toHaveLength(2);
    expect(lastUserText(r.requests[1])).toMatch(/call StructuredOutput now/);
    expect(resultOf(r)).toMatchObject({
      subtype: 'success',
      num_turns: 2,
      structured_output: { name: 'Ada', age: 36 },
    });
  });

  it('ending the turn twice without calling it is an error result, after exactly one reminder', async () => {
    api = await startFakeApi(() => text('Ada, 36.'));
    const r = await runAgent({ api, args: ARGS, input: userLine('who?') });
    expect(r.code).toBe(1);
    expect(api.requests).toHaveLength(2);
    expect(lastUserText(api.requests[1])).toMatch(/StructuredOutput/);
    const result = resultOf(r);
    expect(result).toMatchObject({ subtype: 'error_max_structured_output_retries', is_error: true });
    expect(result.result).toMatch(/without calling StructuredOutput/);
    expect(result.structured_output).toBeUndefined();
  });

  it('subagents are not offered StructuredOutput', async () => {
    api = await startFakeApi((req) => {
      if (firstUserText(req).startsWith('SUB:')) return text('sub done');
      if (turns(req) === 0)
        return {
          content: [
            {
              type: 'tool_use',
              id: 'task1',
              name: 'Task',
              input: { description: 'd', prompt: 'SUB: look', subagent_type: 'general-purpose' },
            },
          ],
        };
      return output({ name: 'Ada', age: 36 });
    });
    const r = await runAgent({ api, args: [...ARGS, '--dangerously-skip-permissions'], input: userLine('delegate') });
    expect(r.code).toBe(0);
    const sub = api.requests.find((q) => firstUserText(q).startsWith('SUB:'))!;
    expect(toolNames(sub)).not.toContain('StructuredOutput');
    expect(toolNames(api.requests[0])).toContain('StructuredOutput');
    expect(resultOf(r).structured_output).toEqual({ name: 'Ada', age: 36 });
  });

  it('a broken schema stops the start with exit 2 and says why', async () => {
    for (const [schema, why] of [
      ['{not json', /not valid JSON/],
      ['{"type":"array","items":{"type":"string"}}', /must describe an object/],
      ['{"type":"object","properties":{"a":{"type":"strng"}}}', /cannot be used: Unsupported type: strng/],
    ] as const) {
      const r = await runAgent({ args: [...STREAM_ARGS, '--json-schema', schema], input: userLine('x') });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/agent: --json-schema: /);
      expect(r.stderr).toMatch(why);
      expect(r.stdout).toBe('');
    }
  });
});

describe('structured output through the official SDK', () => {
  it("outputFormat {type:'json_schema'}: the result carries structured_output", async () => {
    api = await startFakeApi([output({ name: 'Ada', age: 36 }, 'so1', 'Done.')]);
    const messages: SDKMessage[] = [];
    const q = query({
      prompt: 'who?',
      options: sdkOptions(api.url, tempDir(), { outputFormat: { type: 'json_schema', schema: SCHEMA } }) as never,
    });
    for await (const m of q) messages.push(m);
    const result = messages.find((m) => m.type === 'result') as Record<string, unknown>;
    expect(result).toMatchObject({ subtype: 'success', is_error: false, structured_output: { name: 'Ada', age: 36 } });
    expect(api.requests[0].body.tools.map((t: any) => t.name)).toContain('StructuredOutput');
  });
});
