// TodoWrite: the agent's own task list, kept per session (and per subagent). The whole list is
// sent each time; at most one item may be in progress.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, type ToolContext } from './tool.js';

export const todoItemSchema = lazySchema(() =>
  z.object({
    content: z.string().min(1, 'content must not be empty').describe('What is to be done, in the imperative'),
    status: z.enum(['pending', 'in_progress', 'completed']),
    activeForm: z
      .string()
      .min(1, 'activeForm must not be empty')
      .describe('The present continuous form shown while it is being done'),
  }),
);
export type TodoItem = z.infer<typeof todoItemSchema>;

export const todoWriteInputSchema = lazySchema(() =>
  z.object({
    todos: z
      .array(todoItemSchema)
      .describe('The updated todo list')
      .refine((todos) => todos.filter((t) => t.status === 'in_progress').length <= 1, {
        message: 'at most one todo may be in_progress at a time',
      }),
  }),
);

/** Where one agent context keeps its list (`ctx.services.todos`); the session and each subagent have one. */
export interface TodoStore {
  get(): TodoItem[];
  set(todos: TodoItem[]): void;
}

export function createTodoStore(): TodoStore {
  let list: TodoItem[] = [];
  return {
    get: () => list,
    set: (todos) => {
      list = todos;
    },
  };
}

/** Lists of contexts that were given no store, per session. */
const fallbackStores = new Map<string, TodoStore>();

function storeFor(ctx: ToolContext): TodoStore {
  const svc = ctx.services?.todos;
  if (svc) return svc;
  let s = fallbackStores.get(ctx.sessionId);
  if (!s) fallbackStores.set(ctx.sessionId, (s = createTodoStore()));
  return s;
}

export const TodoWriteTool = defineTool({
  name: 'TodoWrite',
  description: `Creates and updates your task list for the current session. Use it for work with several steps, to plan and to show progress; skip it for a single trivial step.

- Send the whole list every time: each item has content (imperative: "Run the tests"), activeForm (present continuous: "Running the tests") and status (pending, in_progress, completed).
- Exactly one item should be in_progress while you work; never more than one.
- Mark an item completed as soon as it is done; add items you discover along the way; remove ones that no longer apply.`,
  inputSchema: todoWriteInputSchema,
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  kind: 'think',
  async *call(input, ctx) {
    const store = storeFor(ctx);
    const oldTodos = store.get();
    // A list where everything is done is finished: the next list starts empty.
    const newTodos = input.todos;
    store.set(newTodos.every((t) => t.status === 'completed') ? [] : newTodos);
    const counts = ['pending', 'in_progress', 'completed']
      .map((s) => `${newTodos.filter((t) => t.status === s).length} ${s.replace('_', ' ')}`)
      .join(', ');
    return {
      content: `Todos have been modified successfully (${counts}). Keep using the todo list to track your progress, and proceed with the current task if there is one.`,
      data: { oldTodos, newTodos },
    };
  },
});
