// TodoWrite, TaskOutput and TaskStop as tools: validation, per-context lists, unknown ids.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TaskOutputTool } from '../../../tools/taskOutput.js';
import { TaskStopTool } from '../../../tools/taskStop.js';
import { makeAgentTool, taskDescription } from '../../../tools/task.js';
import { findTool } from '../../../tools/registry.js';
import { createTodoStore, TodoWriteTool } from '../../../tools/todoWrite.js';
import { TaskRegistry } from '../../../src/tasks/registry.js';
import { createTaskControlService } from '../../../src/tasks/service.js';
import { createBackgroundShellService } from '../../../src/tasks/backgroundShell.js';
import { makeCtx, run, tempDir, text } from '../tools/helpers.js';

const todo = (content: string, status: string) => ({ content, status, activeForm: `${content}ing` });

describe('TodoWrite', () => {
  it('refuses two items in progress and empty fields, with a validation error', async () => {
    const ctx = makeCtx(tempDir(), { services: { todos: createTodoStore() } });
    const r = await run(TodoWriteTool, { todos: [todo('a', 'in_progress'), todo('b', 'in_progress')] }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('InputValidationError');
    expect(text(r)).toContain('at most one todo may be in_progress');
    const e = await run(TodoWriteTool, { todos: [{ content: '', status: 'pending', activeForm: 'x' }] }, ctx);
    expect(e.isError).toBe(true);
    const bad = await run(TodoWriteTool, { todos: [{ content: 'a', status: 'doing', activeForm: 'x' }] }, ctx);
    expect(bad.isError).toBe(true);
  });

  it('keeps one list per context (session, each subagent) and reports old and new', async () => {
    const main = makeCtx(tempDir(), { services: { todos: createTodoStore() } });
    const sub = makeCtx(tempDir(), { services: { todos: createTodoStore() } });
    const a = await run(TodoWriteTool, { todos: [todo('a', 'in_progress')] }, main);
    expect(a.data).toEqual({ oldTodos: [], newTodos: [todo('a', 'in_progress')] });
    const s = await run(TodoWriteTool, { todos: [todo('s', 'pending')] }, sub);
    expect(s.data).toEqual({ oldTodos: [], newTodos: [todo('s', 'pending')] });
    const b = await run(TodoWriteTool, { todos: [todo('a', 'completed')] }, main);
    expect(b.data).toEqual({ oldTodos: [todo('a', 'in_progress')], newTodos: [todo('a', 'completed')] });
    // All done: the list is finished and the next one starts empty.
    const c = await run(TodoWriteTool, { todos: [todo('n', 'pending')] }, main);
    expect((c.data as any).oldTodos).toEqual([]);
  });
});

describe('TaskOutput / TaskStop', () => {
  function ctxWithTasks() {
    const registry = new TaskRegistry({ dir: join(tempDir(), 'tasks'), emit: () => {} });
    const cwd = tempDir();
    return {
      registry,
      cwd,
      ctx: makeCtx(cwd, {
        services: {
          tasks: createTaskControlService(registry),
          backgroundShell: createBackgroundShellService(registry),
        },
      }),
    };
  }

  it('unknown ids are errors; a missing task_id is named', async () => {
    const { ctx } = ctxWithTasks();
    expect(text(await run(TaskOutputTool, { task_id: 'bnope' }, ctx))).toContain('No task found with ID: bnope');
    expect(text(await run(TaskStopTool, { task_id: 'bnope' }, ctx))).toContain('No task found with ID: bnope');
    expect(text(await run(TaskStopTool, {}, ctx))).toContain('`task_id` is missing');
  });

  it('block=false answers at once with not_ready; TaskStop accepts shell_id; a second stop says it is not running', async () => {
    const { ctx } = ctxWithTasks();
    const svc = ctx.services!.backgroundShell as ReturnType<typeof createBackgroundShellService>;
    const { taskId } = await svc.start('sleep 20', { cwd: ctx.cwd, toolUseId: 't' });
    const t0 = Date.now();
    const r = await run(TaskOutputTool, { task_id: taskId, block: false }, ctx);
    expect(Date.now() - t0).toBeLessThan(5000); // block=true would wait out its 30 s default
    expect(text(r)).toContain('<retrieval_status>not_ready</retrieval_status>');
    const stop = await run(TaskStopTool, { shell_id: taskId }, ctx);
    expect(text(stop)).toBe(`Successfully stopped task: ${taskId} (sleep 20)`);
    expect(stop.data).toEqual({
      message: `Successfully stopped task: ${taskId} (sleep 20)`,
      task_id: taskId,
      task_type: 'local_bash',
      command: 'sleep 20',
    });
    expect(text(await run(TaskStopTool, { task_id: taskId }, ctx))).toContain('is not running (status: stopped)');
  });

  it('timeout is capped at 600000 ms', async () => {
    const { ctx } = ctxWithTasks();
    expect((await run(TaskOutputTool, { task_id: 'x', timeout: 600_001 }, ctx)).isError).toBe(true);
  });
});

describe('Task tool', () => {
  it('is offered as Agent and answers to Task, concurrency-safe, and its description lists the agents', () => {
    const AgentTool = makeAgentTool(() => [
      { name: 'general-purpose', description: 'General' },
      { name: 'Explore', description: 'Read-only', tools: ['Read', 'Glob'] },
    ]);
    expect(AgentTool.name).toBe('Agent');
    expect(AgentTool.legacyName).toBe('Task');
    expect(findTool([AgentTool], 'Task')).toBe(AgentTool);
    expect(findTool([AgentTool], 'Agent')).toBe(AgentTool);
    expect(AgentTool.isConcurrencySafe({} as never)).toBe(true);
    expect(AgentTool.description).toContain('- general-purpose: General (Tools: All tools)');
    expect(AgentTool.description).toContain('- Explore: Read-only (Tools: Read, Glob)');
    expect(taskDescription([])).toContain('(none)');
  });

  it("each Agent tool lists the agents it was built with, read when described: no session's list leaks into another's", () => {
    let agents = [{ name: 'mine', description: 'Mine' }];
    const one = makeAgentTool(() => agents);
    const other = makeAgentTool(() => [{ name: 'theirs', description: 'Theirs' }]);
    expect(one.description).toContain('- mine: Mine');
    expect(one.description).not.toContain('theirs');
    expect(other.description).not.toContain('mine');
    agents = [{ name: 'later', description: 'Added later' }];
    expect(one.description).toContain('- later: Added later');
    expect(makeAgentTool().description).toContain('(none)');
  });

  it('without a subagent service it is an error result, not a crash', async () => {
    const r = await run(makeAgentTool(), { description: 'd', prompt: 'p' }, makeCtx(tempDir()));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('Subagents are not available');
  });
});
