// The terminal UI's state: what the session emitted, folded into rows a person reads (their
// prompts, the answers, one row per tool call, notes), plus the permission questions waiting for
// an answer. Plain TypeScript with a subscribe/snapshot pair that React reads through
// useSyncExternalStore, so the folding is tested without a terminal.
import type { AskHostAnswer, AskHostRequest } from '../loop/toolPipeline.js';
import type { TaskEvent, TaskStatus } from '../../tools/taskEvents.js';
import type { SessionEvent } from '../session/events.js';
import { isErrorResult, isMainThread } from '../session/events.js';
import { type EditedFilesOf, type FileDiff, resultDiff } from './diff.js';
import { callLabel, contentText } from './format.js';
import { hasCodeFence, highlighterSettled, loadHighlighter } from './markdown/highlight.js';
import { settledLength } from './markdown/split.js';
import { lexerSettled, loadLexer } from './markdown/lexer.js';

/** `background`: a background task's call still running when the turn ended (its task's row follows it). */
export type ToolStatus = 'running' | 'ok' | 'error' | 'background';

export type Item =
  | { kind: 'banner'; id: string; text: string }
  | { kind: 'user'; id: string; text: string }
  | { kind: 'text'; id: string; text: string; error?: boolean }
  | {
      kind: 'tool';
      id: string;
      name: string;
      input: unknown;
      label: string;
      /** A subagent's or teammate's call (drawn indented). */
      nested: boolean;
      /** A nested call's task: the tool call that started it. */
      parent?: string;
      status: ToolStatus;
      result?: string;
      /** A file edit's change (a tool of kind 'edit'), drawn as a diff instead of the result text. */
      diff?: FileDiff;
    }
  /** The model's thinking, drawn dim and folded to its first line. */
  | { kind: 'thinking'; id: string; text: string }
  /** A tool call shown again in full (its whole output, its whole diff), asked for with Ctrl+O. */
  | { kind: 'expanded'; id: string; tool: ToolItem | ThinkingItem }
  | { kind: 'note'; id: string; text: string; tone: 'dim' | 'red' | 'plain' };

export type ToolItem = Extract<Item, { kind: 'tool' }>;
export type ThinkingItem = Extract<Item, { kind: 'thinking' }>;
/** What Ctrl+O can show in full. */
export type Expandable = ToolItem | ThinkingItem;

/** An item before it has an id. */
export type NewItem = Item extends infer I ? (I extends Item ? Omit<I, 'id'> & { id?: string } : never) : never;

export interface TodoRow {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  activeForm: string;
}

/** A subagent, background command or teammate: its live row and its line in the Ctrl+T list. */
export interface TaskRow {
  id: string;
  toolUseId: string;
  kind: 'local_bash' | 'local_agent' | 'in_process_teammate' | 'local_workflow' | string;
  description: string;
  status: TaskStatus;
  background: boolean;
  startedMs: number;
  endedMs?: number;
  /** Its last tool call or its own one-line account of what it is doing. */
  lastAction?: string;
  /** A teammate between turns: its last message called no tool, it waits for mail. */
  idle?: boolean;
}

/** An MCP server's elicitation, waiting for the person's answer. */
export interface FormDialog {
  id: number;
  payload: Record<string, unknown>;
  resolve: (answer: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }) => void;
}

export interface Dialog {
  id: number;
  req: AskHostRequest;
  resolve: (answer: AskHostAnswer) => void;
}

export interface TuiState {
  items: Item[];
  /** How many leading items are settled: they go to Ink's <Static> and are never drawn again. */
  committed: number;
  /** The main agent's text as it streams in (moved into an item when its message ends). */
  streaming: string;
  /** The main agent's thinking as it streams in. */
  thinking: string;
  /** Prompts submitted whose result has not come yet. */
  outstanding: number;
  dialogs: Dialog[];
  forms: FormDialog[];
  todos: TodoRow[] | null;
  tasks: TaskRow[];
  /** Tokens the last main-thread request used (the context in use). */
  contextTokens: number;
  costUsd: number;
}

const INTERRUPTED_ANSWER: AskHostAnswer = {
  behavior: 'deny',
  message: 'The run was interrupted before the user answered.',
};

export class TuiStore {
  private state: TuiState = {
    items: [],
    committed: 0,
    streaming: '',
    thinking: '',
    outstanding: 0,
    dialogs: [],
    forms: [],
    todos: null,
    tasks: [],
    contextTokens: 0,
    costUsd: 0,
  };
  private readonly listeners = new Set<() => void>();
  private nextId = 0;
  /** The last error already drawn (an API error's assistant message), not repeated by its result. */
  private lastError: string | undefined;
  /** Characters of the current message's text already moved out of `streaming` into items. */
  private streamedOut = 0;
  /** Thinking blocks of the current message already drawn when their stream ended. */
  private thoughtsOut = 0;

  /**
   * Where a resumed session's conversation goes once it is known (replay()): rows added before it
   * (a prompt typed while the session starts) stay live below that point until then, never written
   * to the scrollback above it.
   */
  private replayAt: number | undefined;

  /**
   * highlight: code blocks wait for the highlighter before they are written for good (colour on).
   * editedFiles: the files a call declares it edits (such calls' results are drawn as diffs).
   */
  constructor(private readonly opts: { highlight?: boolean; editedFiles?: EditedFilesOf } = {}) {}

  readonly subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  readonly snapshot = (): TuiState => this.state;

  private set(next: Partial<TuiState>): void {
    const merged = { ...this.state, ...next };
    merged.committed = settledPrefix(merged.items, merged.committed, this.opts.highlight === true, this.replayAt);
    this.state = merged;
    for (const fn of this.listeners) fn();
  }

  private id(): string {
    return `i${this.nextId++}`;
  }

  push(item: NewItem): void {
    this.set({ items: [...this.state.items, { ...item, id: item.id ?? this.id() } as Item] });
  }

  /** Draw again with the same state (something the UI reads outside the store has changed). */
  refresh(): void {
    this.set({});
  }

  /** A resumed session: its conversation comes later (replay()), above the rows added meanwhile. */
  awaitReplay(): void {
    this.replayAt = this.state.items.length;
  }

  /**
   * A resumed session's conversation (empty when there was none after all): drawn where the
   * session began, above the rows added while it started, which may then be written too.
   */
  replay(items: NewItem[]): void {
    const at = this.replayAt ?? this.state.items.length;
    this.replayAt = undefined;
    const list = this.state.items;
    this.set({
      items: [
        ...list.slice(0, at),
        ...items.map((it) => ({ ...it, id: it.id ?? this.id() }) as Item),
        ...list.slice(at),
      ],
    });
  }

  note(text: string, tone: 'dim' | 'red' | 'plain' = 'dim'): void {
    this.push({ kind: 'note', text, tone });
  }

  /** A prompt the person sent: drawn, and counted until its result. */
  submitted(text: string): void {
    this.set({
      items: [...this.state.items, { kind: 'user', id: this.id(), text }],
      outstanding: this.state.outstanding + 1,
    });
  }

  get busy(): boolean {
    return this.state.outstanding > 0;
  }

  /** One event of the session. */
  show(ev: SessionEvent): void {
    const top = isMainThread(ev);
    switch (ev.type) {
      case 'stream_event': {
        const e = ev.event as { type: string; delta?: { type?: string; text?: unknown } };
        if (!top) return;
        if (e.type === 'message_start') {
          this.streamedOut = 0;
          this.thoughtsOut = 0;
          this.set({ streaming: '', thinking: '' });
        } else if (e.type === 'content_block_stop' && this.state.thinking.trim()) {
          // A thought is drawn where it ended, before the text that follows it streams out.
          this.thoughtsOut++;
          this.set({
            items: [...this.state.items, { kind: 'thinking', id: this.id(), text: this.state.thinking.trim() }],
            thinking: '',
          });
        } else if (
          e.type === 'content_block_delta' &&
          e.delta?.type === 'thinking_delta' &&
          typeof (e.delta as { thinking?: unknown }).thinking === 'string'
        )
          this.set({ thinking: this.state.thinking + (e.delta as { thinking: string }).thinking });
        else if (e.type === 'content_block_delta' && e.delta?.type === 'text_delta' && typeof e.delta.text === 'string')
          this.streamed(this.state.streaming + e.delta.text);
        return;
      }
      case 'assistant': {
        const items = [...this.state.items];
        let contextTokens = this.state.contextTokens;
        for (const b of ev.message.content) {
          if (b.type === 'thinking' && top && typeof b.thinking === 'string' && b.thinking.trim()) {
            if (this.thoughtsOut > 0) this.thoughtsOut--;
            else items.push({ kind: 'thinking', id: this.id(), text: b.thinking.trim() });
          }
          if (b.type === 'text' && top && typeof b.text === 'string') {
            // What streaming already moved into items is not drawn twice.
            const skip = Math.min(this.streamedOut, b.text.length);
            this.streamedOut -= skip;
            const t = b.text.slice(skip).replace(/^\n+/, '').replace(/\n+$/, '');
            if (!t.trim()) continue;
            this.wantHighlighter(t);
            if (ev.error) this.lastError = t;
            items.push({ kind: 'text', id: this.id(), text: t, ...(ev.error ? { error: true } : {}) });
          }
          if (b.type === 'tool_use') {
            const name = String(b.name);
            const parent = (ev as { parentToolUseId?: string | null }).parentToolUseId;
            if (!top && parent) this.taskAction(parent, callLabel(name, b.input, 60));
            items.push({
              kind: 'tool',
              id: String(b.id),
              name,
              input: b.input,
              label: callLabel(name, b.input),
              nested: !top,
              ...(!top && parent ? { parent } : {}),
              status: 'running',
            });
          }
        }
        const parentId = (ev as { parentToolUseId?: string | null }).parentToolUseId;
        if (!top && parentId) this.teammateIdle(parentId, !ev.message.content.some((b) => b.type === 'tool_use'));
        const u = (ev.message as { usage?: Record<string, number | undefined> }).usage;
        if (top && u)
          contextTokens =
            (u.input_tokens ?? 0) +
            (u.cache_read_input_tokens ?? 0) +
            (u.cache_creation_input_tokens ?? 0) +
            (u.output_tokens ?? 0);
        this.set({
          items,
          streaming: top ? '' : this.state.streaming,
          thinking: top ? '' : this.state.thinking,
          contextTokens,
        });
        return;
      }
      case 'tool_result': {
        const id = ev.block.tool_use_id;
        const text = contentText(ev.block.content);
        const isError = ev.block.is_error === true;
        let todos = this.state.todos;
        const items = this.state.items.map((it) => {
          if (it.kind !== 'tool' || it.id !== id) return it;
          if (it.name === 'TodoWrite' && !isError && top) {
            const list = (it.input as { todos?: TodoRow[] } | null)?.todos;
            if (Array.isArray(list)) todos = list;
          }
          const diff = isError ? undefined : resultDiff(this.opts.editedFiles?.(it.name, it.input), ev.data);
          return { ...it, status: (isError ? 'error' : 'ok') as ToolStatus, result: text, ...(diff ? { diff } : {}) };
        });
        this.set({ items, todos });
        return;
      }
      case 'task':
        this.taskEvent(ev.event);
        return;
      case 'api_retry':
        this.note(`API error, retrying (attempt ${ev.retry.attempt})`);
        return;
      case 'compact_boundary':
        this.note('earlier conversation compacted into a summary');
        return;
      case 'notice':
        if (ev.notice.subtype === 'prompt_blocked') this.note(`✗ prompt blocked: ${ev.notice.reason}`, 'red');
        else if (ev.notice.subtype === 'hook_system_message') this.note(ev.notice.message);
        return;
      case 'result': {
        const r = ev.result;
        const { outcome } = r;
        // Calls the run never finished (interrupted) are settled as failed, so they can be committed;
        // a call of a background subagent or teammate that works on is not failed: it is marked as
        // going on in the background, where the task's live row and Ctrl+T follow it.
        const runsOn = (parent?: string) =>
          !!parent && this.state.tasks.some((t) => t.toolUseId === parent && t.status === 'running' && t.background);
        const items: Item[] = this.state.items.map((it) =>
          it.kind === 'tool' && it.status === 'running'
            ? { ...it, status: runsOn(it.parent) ? 'background' : 'error' }
            : it,
        );
        const add = (text: string, tone: 'dim' | 'red' | 'plain') =>
          items.push({ kind: 'note', id: this.id(), text, tone });
        if (this.state.streaming && outcome.interrupted)
          items.push({ kind: 'text', id: this.id(), text: this.state.streaming });
        if (outcome.interrupted) add('Interrupted', 'red');
        else if (isErrorResult(r) && outcome.resultText !== this.lastError) add(`✗ ${outcome.resultText}`, 'red');
        // A slash command answered without the model (/help, /cost …): its text is the answer.
        else if (!isErrorResult(r) && outcome.numTurns === 0 && outcome.resultText) add(outcome.resultText, 'plain');
        this.lastError = undefined;
        const stats = [
          `${outcome.numTurns} turn${outcome.numTurns === 1 ? '' : 's'}`,
          `$${r.costUsd.toFixed(4)}`,
          `${(r.durationMs / 1000).toFixed(1)}s`,
        ];
        add(`(${stats.join(', ')})`, 'dim');
        this.set({
          items,
          streaming: '',
          thinking: '',
          outstanding: Math.max(0, this.state.outstanding - 1),
          costUsd: r.costUsd,
        });
        return;
      }
    }
  }

  /**
   * The streaming text: its finished blocks (up to the last blank line outside a code fence)
   * become items, drawn once; only the block being written stays live.
   */
  private streamed(text: string): void {
    this.wantHighlighter(text);
    const cut = settledLength(text);
    if (cut === 0) {
      this.set({ streaming: text });
      return;
    }
    const rest = text.slice(cut).replace(/^\n+/, '');
    this.streamedOut += text.length - rest.length;
    const done = text.slice(0, cut).replace(/^\n+/, '');
    const items = done.trim()
      ? [...this.state.items, { kind: 'text' as const, id: this.id(), text: done }]
      : this.state.items;
    this.set({ items, streaming: rest });
  }

  /** A code block is coming: load the highlighter, and settle items again once it is there. */
  private wantHighlighter(text: string): void {
    if (!lexerSettled()) void loadLexer().then(() => this.set({}));
    if (this.opts.highlight && !highlighterSettled() && hasCodeFence(text))
      void loadHighlighter().then(() => this.set({}));
  }

  /** A task line (started, progress, updated, notification): the task's row. */
  private taskEvent(e: TaskEvent): void {
    if (e.kind === 'live') return;
    const id = e.taskId;
    const tasks = [...this.state.tasks];
    const at = tasks.findIndex((t) => t.id === id);
    const now = Date.now();
    if (e.kind === 'started') {
      const row: TaskRow = {
        id,
        toolUseId: e.toolUseId,
        kind: e.taskType,
        description: e.description,
        status: 'running',
        background: e.backgrounded,
        startedMs: now,
      };
      if (at >= 0) tasks[at] = { ...tasks[at], ...row, startedMs: tasks[at].startedMs };
      else tasks.push(row);
    } else if (at >= 0) {
      const t = tasks[at];
      if (e.kind === 'progress') {
        // A bare tool name does not replace the label of that call, already shown from the task's own message.
        const named = e.lastToolName && t.lastAction?.startsWith(`${e.lastToolName}(`);
        const action = e.summary ?? (named ? t.lastAction : e.lastToolName);
        if (action) tasks[at] = { ...t, lastAction: action };
      } else if (e.kind === 'ended') tasks[at] = { ...t, status: e.status, endedMs: now };
      else if (e.kind === 'backgrounded') tasks[at] = { ...t, background: true };
      else if (e.kind === 'notification') tasks[at] = { ...t, status: e.status, endedMs: t.endedMs ?? now };
      else return;
    } else return;
    this.set({ tasks });
  }

  /** A subagent's or teammate's tool call: the last action of the task that runs it. */
  private taskAction(parentToolUseId: string, label: string): void {
    const at = this.state.tasks.findIndex((t) => t.toolUseId === parentToolUseId && t.status === 'running');
    if (at < 0) return;
    const tasks = [...this.state.tasks];
    tasks[at] = { ...tasks[at], lastAction: label };
    this.state = { ...this.state, tasks };
  }

  /** A teammate's message: one that calls no tool ends its turn (idle), the next one starts another. */
  private teammateIdle(parentToolUseId: string, idle: boolean): void {
    const at = this.state.tasks.findIndex(
      (t) => t.toolUseId === parentToolUseId && t.status === 'running' && t.kind === 'in_process_teammate',
    );
    if (at < 0 || !!this.state.tasks[at].idle === idle) return;
    const tasks = [...this.state.tasks];
    tasks[at] = { ...tasks[at], idle };
    this.state = { ...this.state, tasks };
  }

  /** A command the UI runs itself (`!command`): a tool row, running; its id. */
  startLocal(label: string): string {
    const id = this.id();
    this.push({ kind: 'tool', id, name: 'Bash', input: {}, label, nested: false, status: 'running' });
    return id;
  }

  finishLocal(id: string, ok: boolean, output: string): void {
    this.set({
      items: this.state.items.map((it) =>
        it.kind === 'tool' && it.id === id
          ? { ...it, status: ok ? 'ok' : 'error', result: output || '(no output)' }
          : it,
      ),
    });
  }

  /** The tool calls and thoughts so far, oldest first (the Ctrl+O list). */
  expandable(): Expandable[] {
    return this.state.items.filter((it): it is Expandable => it.kind === 'tool' || it.kind === 'thinking');
  }

  /** Draw a tool call or a thought again in full, below the transcript. */
  expand(id: string): void {
    const tool = this.expandable().find((t) => t.id === id);
    if (tool) this.push({ kind: 'expanded', tool });
  }

  /** The pipeline's askHost: a dialog; several wait their turn. */
  ask(req: AskHostRequest, signal: AbortSignal): Promise<AskHostAnswer> {
    if (signal.aborted) return Promise.resolve(INTERRUPTED_ANSWER);
    return new Promise((resolve) => {
      const id = this.nextId++;
      const onAbort = () => settle(INTERRUPTED_ANSWER);
      const settle = (answer: AskHostAnswer) => {
        signal.removeEventListener('abort', onAbort);
        if (!this.state.dialogs.some((d) => d.id === id)) return;
        this.set({ dialogs: this.state.dialogs.filter((d) => d.id !== id) });
        resolve(answer);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.set({ dialogs: [...this.state.dialogs, { id, req, resolve: settle }] });
    });
  }

  /** An MCP elicitation: a form; several wait their turn. Aborted: cancel. */
  elicit(payload: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    if (signal.aborted) return Promise.resolve({ action: 'cancel' });
    return new Promise((resolve) => {
      const id = this.nextId++;
      const onAbort = () => settle({ action: 'cancel' });
      const settle: FormDialog['resolve'] = (answer) => {
        signal.removeEventListener('abort', onAbort);
        if (!this.state.forms.some((d) => d.id === id)) return;
        this.set({ forms: this.state.forms.filter((d) => d.id !== id) });
        resolve(answer);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.set({ forms: [...this.state.forms, { id, payload, resolve: settle }] });
    });
  }

  /** Leaving: every open question is answered as interrupted, every form cancelled. */
  closeDialogs(): void {
    for (const d of this.state.dialogs) d.resolve(INTERRUPTED_ANSWER);
    for (const f of this.state.forms) f.resolve({ action: 'cancel' });
  }
}

function settledPrefix(items: Item[], from: number, highlight: boolean, end = items.length): number {
  let n = from;
  while (n < end) {
    const it = items[n];
    if (it.kind === 'tool' && it.status === 'running') break;
    // Written once: a code block waits for its colours.
    if (highlight && it.kind === 'text' && !highlighterSettled() && hasCodeFence(it.text)) break;
    // Written once: an answer waits for its Markdown.
    if (it.kind === 'text' && !it.error && !lexerSettled()) break;
    n++;
  }
  return n;
}
