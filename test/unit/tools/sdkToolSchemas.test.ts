// The orchestration tools' inputs against the reference's own declarations: the official SDK ships
// sdk-tools.d.ts (generated from the reference CLI's tool schemas). Each tool offers exactly the
// fields its `<Name>Input` interface declares, and requires none that the interface leaves optional.
// A field the reference has and we do not build is still declared and refused by name when used
// (see docs/orchestration.md), so the sets must match.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { builtinTools, toolApiSchema } from '../../../tools/registry.js';
import { TEAM_TASK_TOOLS } from '../../../tools/teamTasks.js';
import { createWorkflowTool } from '../../../tools/workflow.js';

const require = createRequire(import.meta.url);
const SDK_DIR = dirname(require.resolve('@anthropic-ai/claude-agent-sdk'));
const source = ts.createSourceFile(
  'sdk-tools.d.ts',
  readFileSync(join(SDK_DIR, 'sdk-tools.d.ts'), 'utf8'),
  ts.ScriptTarget.Latest,
);

/** An interface's fields: name → optional. */
function declared(name: string): Map<string, boolean> {
  let found: ts.InterfaceDeclaration | undefined;
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === name) found = node;
  });
  if (!found) throw new Error(`sdk-tools.d.ts declares no ${name}`);
  const fields = new Map<string, boolean>();
  for (const m of found.members)
    if (ts.isPropertySignature(m)) fields.set(m.name.getText(source).replace(/^"|"$/g, ''), !!m.questionToken);
  return fields;
}

const TOOLS: Array<[tool: string, input: string]> = [
  ['CronCreate', 'CronCreateInput'],
  ['CronDelete', 'CronDeleteInput'],
  ['CronList', 'CronListInput'],
  ['ScheduleWakeup', 'ScheduleWakeupInput'],
  ['Monitor', 'MonitorInput'],
  ['ReportFindings', 'ReportFindingsInput'],
  ['Workflow', 'WorkflowInput'],
  ['TaskCreate', 'TaskCreateInput'],
  ['TaskGet', 'TaskGetInput'],
  ['TaskUpdate', 'TaskUpdateInput'],
  ['TaskList', 'TaskListInput'],
];

describe("the orchestration tools' inputs are the reference's (sdk-tools.d.ts)", () => {
  // Workflow is offered on opt-in, the task-list tools to teammate processes: all are built here.
  const tools = [...builtinTools(), createWorkflowTool(2), ...TEAM_TASK_TOOLS];
  it.each(TOOLS)('%s offers the fields of %s', (name, input) => {
    const tool = tools.find((t) => t.name === name);
    expect(tool, `${name} is not a built-in tool`).toBeDefined();
    const schema = toolApiSchema(tool!).input_schema as { properties?: object; required?: string[] };
    const theirs = declared(input);
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual([...theirs.keys()].sort());
    for (const field of schema.required ?? [])
      expect(theirs.get(field), `${name}.${field} is required here, optional in ${input}`).toBe(false);
  });

  it("ReportFindings' finding items have the reference's fields", () => {
    const tool = tools.find((t) => t.name === 'ReportFindings')!;
    const schema = toolApiSchema(tool).input_schema as any;
    const item = schema.properties.findings.items;
    const text = source.text;
    const start = text.indexOf('export interface ReportFindingsInput');
    const body = text.slice(start, text.indexOf('\n}\n', start));
    const fields = [...body.matchAll(/^ {4}(\w+)\??:/gm)].map((m) => m[1]);
    expect(Object.keys(item.properties).sort()).toEqual([...new Set(fields)].sort());
  });
});
