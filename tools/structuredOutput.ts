// StructuredOutput: offered only when a host asks for structured output (--json-schema or
// initialize.jsonSchema). Its input_schema is the host's JSON schema as given; its input is
// validated with a zod schema built from that JSON schema, so an invalid call gets the usual
// is_error result naming each violation (path + message). The loop (src/loop/structuredOutput.ts)
// finds it by its role and takes the valid input as the run's structured output.
import { z } from 'zod';
import { defineTool, type Tool } from './tool.js';

export const STRUCTURED_OUTPUT_ACCEPTED = 'Structured output provided successfully';

/** A schema we cannot offer or validate with: the message says what is wrong with it. */
export class StructuredOutputSchemaError extends Error {}

/**
 * Parse (if a string) and check a host's JSON schema. The Messages API takes only object schemas
 * as a tool's input_schema, and zod must be able to build a validator from it.
 */
export function compileOutputSchema(raw: unknown): { jsonSchema: Record<string, unknown>; validator: z.ZodType } {
  let schema = raw;
  if (typeof raw === 'string') {
    try {
      schema = JSON.parse(raw);
    } catch (err) {
      throw new StructuredOutputSchemaError(`the JSON schema is not valid JSON: ${(err as Error).message}`);
    }
  }
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    throw new StructuredOutputSchemaError('the JSON schema must be a JSON object');
  const jsonSchema = { ...(schema as Record<string, unknown>) };
  if (jsonSchema.type !== 'object')
    throw new StructuredOutputSchemaError(
      `the JSON schema must describe an object ("type": "object"; got ${JSON.stringify(jsonSchema.type ?? null)}): the output is a tool input, and tool inputs are objects`,
    );
  let validator: z.ZodType;
  try {
    validator = z.fromJSONSchema(jsonSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (err) {
    throw new StructuredOutputSchemaError(`the JSON schema cannot be used: ${(err as Error).message}`);
  }
  // `$schema` names the draft for validators; the model does not need it.
  delete jsonSchema.$schema;
  return { jsonSchema, validator };
}

/** The StructuredOutput tool for one host schema (throws StructuredOutputSchemaError). */
export function createStructuredOutputTool(rawSchema: unknown): Tool {
  const { jsonSchema, validator } = compileOutputSchema(rawSchema);
  return defineTool({
    name: 'StructuredOutput',
    // The loop ends the run with a valid call's input (src/loop/structuredOutput.ts).
    role: 'structured-output',
    description:
      'Return your final answer in the structured format the caller asked for. Call this tool once, at the end, ' +
      'with the complete answer as its input; the input must match the schema exactly. If the call is rejected, ' +
      'fix the reported problems and call it again.',
    inputSchema: validator,
    apiInputSchema: jsonSchema,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async *call(input) {
      return { content: STRUCTURED_OUTPUT_ACCEPTED, data: input };
    },
  });
}
