import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dropLazySchemas, lazySchema } from '../../../src/util/lazySchema.js';
import { toolApiSchema } from '../../../tools/registry.js';
import { BashTool } from '../../../tools/bash.js';

describe('lazySchema', () => {
  it('makes the schema at its first use and behaves as it', () => {
    let made = 0;
    const s = lazySchema(() => {
      made++;
      return z.object({ a: z.string().describe('an a'), n: z.number().int().optional() });
    });
    expect(made).toBe(0);
    expect(s.parse({ a: 'x' })).toEqual({ a: 'x' });
    expect(s.safeParse({ a: 1 }).success).toBe(false);
    expect(s instanceof z.ZodObject).toBe(true);
    expect(Object.keys(s.shape)).toEqual(['a', 'n']);
    expect(z.object({ inner: s }).parse({ inner: { a: 'y', n: 2 } })).toEqual({ inner: { a: 'y', n: 2 } });
    expect(z.toJSONSchema(s)).toEqual(
      z.toJSONSchema(z.object({ a: z.string().describe('an a'), n: z.number().int().optional() })),
    );
    expect(made).toBe(1);
    // Dropped (the snapshot builder's last step), it is made again when next used.
    dropLazySchemas();
    expect(s.parse({ a: 'z' })).toEqual({ a: 'z' });
    expect(made).toBe(2);
  });

  it("a tool's API definition outlives its dropped schema, and is a plain JSON object", () => {
    const before = toolApiSchema(BashTool);
    dropLazySchemas();
    const after = toolApiSchema(BashTool);
    expect(after.input_schema).toBe(before.input_schema);
    expect(Object.getOwnPropertyNames(after.input_schema)).not.toContain('~standard');
    expect(JSON.parse(JSON.stringify(after.input_schema))).toEqual(after.input_schema);
    expect(BashTool.inputSchema.safeParse({ command: 'true' }).success).toBe(true);
  });
});
