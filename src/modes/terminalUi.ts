// The interactive terminal mode: a line-based REPL on a TTY. Each line is a prompt for the same
// SessionRunner the headless modes drive; what the runner emits is drawn for a person (streamed
// text, one line per tool call, a dim stats line), never as protocol lines. Permission asks are
// questions on the terminal. Ctrl+C interrupts a run; at an empty prompt twice, Ctrl+D or /exit leave.
import { createInterface, type Interface } from 'node:readline';
import type { AskHostAnswer, AskHostRequest } from '../loop/toolPipeline.js';
import { isErrorResult, isMainThread, type SessionEvent } from '../session/events.js';
import type { SessionRunner } from '../session/runner.js';
import {
  parseChoice,
  planAnswer,
  planLines,
  questionLines,
  questionPrompt,
  questionsAnswer,
  type Question,
} from './terminalQuestions.js';

const RESULT_PREVIEW_LINES = 4;
const LINE_MAX = 160;

interface Style {
  dim(s: string): string;
  red(s: string): string;
  bold(s: string): string;
}

function makeStyle(color: boolean): Style {
  const wrap = (open: string, close: string) => (s: string) => (color ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return { dim: wrap('2', '22'), red: wrap('31', '39'), bold: wrap('1', '22') };
}

/** `Bash(echo hi)`, `Read(/a/b.ts)`: the call's most telling input field, on one short line. */
export function callLabel(name: string, input: unknown): string {
  const i = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const keys = ['command', 'file_path', 'path', 'pattern', 'url', 'description', 'prompt', 'query', 'task_id'];
  const key = keys.find((k) => typeof i[k] === 'string') ?? Object.keys(i).find((k) => typeof i[k] === 'string');
  const arg = key ? oneLine(String(i[key]), 80) : '';
  return `${name}(${arg})`;
}

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s*\n\s*/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: string }) => (b?.type === 'text' ? (b.text ?? '') : `[${b?.type}]`))
    .join('\n');
}

export interface TerminalOptions {
  color: boolean;
  input?: NodeJS.ReadStream;
  output?: NodeJS.WriteStream;
}

export class Terminal {
  private readonly style: Style;
  private readonly input: NodeJS.ReadStream;
  private readonly output: NodeJS.WriteStream;
  private rl: Interface | null = null;
  /** Prompts submitted whose result has not come yet. */
  private outstanding = 0;
  private atLineStart = true;
  /** Text of the current assistant message already drawn from stream deltas. */
  private streamedText = false;
  private question: { resolve: (line: string | null) => void } | null = null;
  private questions: Promise<unknown> = Promise.resolve();
  private ctrlCArmed = false;
  /** The last error already drawn (an API error's assistant message), not repeated by its result. */
  private lastError: string | undefined;
  private leaving: (() => void) | null = null;

  constructor(opts: TerminalOptions) {
    this.style = makeStyle(opts.color);
    this.input = opts.input ?? process.stdin;
    this.output = opts.output ?? process.stdout;
  }

  private write(s: string): void {
    if (!s) return;
    this.output.write(s);
    this.atLineStart = s.endsWith('\n');
  }

  /** Start a fresh line (after streamed text that did not end with one). */
  private line(s: string): void {
    if (!this.atLineStart) this.write('\n');
    this.write(`${s}\n`);
  }

  /** Draw one event of the session. */
  show(ev: SessionEvent): Promise<void> {
    const { dim, red } = this.style;
    const top = isMainThread(ev);
    switch (ev.type) {
      case 'stream_event': {
        const e = ev.event as { type: string; delta?: { type?: string; text?: unknown } };
        if (!top) break;
        if (e.type === 'message_start') this.streamedText = false;
        if (e.type === 'content_block_delta' && e.delta?.type === 'text_delta' && typeof e.delta.text === 'string') {
          this.streamedText = true;
          this.write(e.delta.text);
        }
        break;
      }
      case 'assistant': {
        for (const b of ev.message.content) {
          // An API error comes as an assistant message whose text is the error: drawn in red, once.
          if (b.type === 'text' && top && !this.streamedText && typeof b.text === 'string' && b.text) {
            const t = b.text.replace(/\n+$/, '');
            if (ev.error) this.lastError = t;
            this.line(ev.error ? red(t) : t);
          }
          if (b.type === 'tool_use') this.line(`${top ? '' : '  '}● ${callLabel(String(b.name), b.input)}`);
        }
        if (top && !this.atLineStart) this.write('\n');
        this.streamedText = false;
        break;
      }
      case 'tool_result': {
        if (!top) break;
        const lines = contentText(ev.block.content).replace(/\n+$/, '').split('\n');
        const shown = lines.slice(0, RESULT_PREVIEW_LINES).map((l) => oneLine(l, LINE_MAX));
        if (lines.length > RESULT_PREVIEW_LINES) shown.push(`… +${lines.length - RESULT_PREVIEW_LINES} lines`);
        const paint = ev.block.is_error ? red : dim;
        shown.forEach((l, i) => this.line(paint(`${i === 0 ? '  ⎿ ' : '    '}${l}`)));
        break;
      }
      case 'system':
        if (ev.subtype === 'api_retry') this.line(dim(`(API error, retrying: attempt ${ev.fields.attempt ?? '?'})`));
        else if (ev.subtype === 'compact_boundary') this.line(dim('(earlier conversation compacted into a summary)'));
        break;
      case 'notice':
        if (ev.notice.subtype === 'prompt_blocked') this.line(red(`✗ prompt blocked: ${ev.notice.reason}`));
        else if (ev.notice.subtype === 'hook_system_message') this.line(dim(ev.notice.message));
        break;
      case 'result': {
        const r = ev.result;
        const { outcome } = r;
        if (outcome.interrupted) this.line(red('Interrupted'));
        else if (isErrorResult(r) && outcome.resultText !== this.lastError) this.line(red(`✗ ${outcome.resultText}`));
        // A slash command answered without the model (/help, /cost …): its text is the answer.
        else if (!isErrorResult(r) && outcome.numTurns === 0 && outcome.resultText) this.line(outcome.resultText);
        this.lastError = undefined;
        const stats = [
          `${outcome.numTurns} turn${outcome.numTurns === 1 ? '' : 's'}`,
          `$${r.costUsd.toFixed(4)}`,
          `${(r.durationMs / 1000).toFixed(1)}s`,
        ];
        this.line(dim(`(${stats.join(', ')})`));
        if (this.outstanding > 0) this.outstanding--;
        if (this.outstanding === 0) this.showPrompt();
        break;
      }
    }
    return Promise.resolve();
  }

  /** The pipeline's askHost: a question on the terminal, one at a time. */
  ask(req: AskHostRequest, signal: AbortSignal): Promise<AskHostAnswer> {
    const next = this.questions.then(() => this.askNow(req, signal));
    this.questions = next.catch(() => undefined);
    return next;
  }

  private async askNow(req: AskHostRequest, signal: AbortSignal): Promise<AskHostAnswer> {
    const interrupted: AskHostAnswer = {
      behavior: 'deny',
      message: 'The run was interrupted before the user answered.',
    };
    if (signal.aborted || !this.rl) return interrupted;
    if (!this.atLineStart) this.write('\n');
    const input = (req.input && typeof req.input === 'object' ? req.input : {}) as Record<string, unknown>;
    if (req.tool_name === 'AskUserQuestion' && Array.isArray(input.questions)) {
      const answers: Record<string, string> = {};
      for (const q of input.questions as Question[]) {
        for (const l of questionLines(q)) this.line(l);
        let answer: string | undefined;
        while (answer === undefined) {
          const typed = await this.readAnswer(this.style.bold(questionPrompt(q)), signal);
          if (typed === null) return interrupted;
          answer = parseChoice(typed, q);
        }
        answers[q.question] = answer;
      }
      return questionsAnswer(input, answers);
    }
    if (req.tool_name === 'ExitPlanMode' && typeof input.plan === 'string') {
      for (const l of planLines(input.plan)) this.line(l);
      for (;;) {
        const typed = await this.readAnswer(
          `${this.style.bold('Approve this plan and leave plan mode?')} [y]es / [a]ccept edits too / [n]o `,
          signal,
        );
        if (typed === null) return interrupted;
        const answer = planAnswer(typed);
        if (answer) return answer.behavior === 'allow' ? { ...answer, updatedInput: input } : answer;
      }
    }
    const why = req.decision_reason ? this.style.dim(` (${req.decision_reason})`) : '';
    for (;;) {
      const answer = await this.readAnswer(
        `${this.style.bold(`Allow ${callLabel(req.tool_name, req.input)}?`)}${why} [y]es / [n]o / [a]lways `,
        signal,
      );
      if (answer === null) return interrupted;
      const a = answer.trim().toLowerCase();
      if (a === 'y' || a === 'yes') return { behavior: 'allow', updatedInput: input };
      if (a === 'a' || a === 'always')
        return { behavior: 'allow', updatedInput: input, updatedPermissions: req.permission_suggestions ?? [] };
      if (a === 'n' || a === 'no')
        return { behavior: 'deny', message: `The user denied permission to use ${req.tool_name}.` };
    }
  }

  /** One line typed at `prompt`; null when the run is interrupted first. */
  private async readAnswer(prompt: string, signal: AbortSignal): Promise<string | null> {
    if (signal.aborted || !this.rl) return null;
    const answer = await new Promise<string | null>((resolve) => {
      const onAbort = () => settle(null);
      const settle = (v: string | null) => {
        signal.removeEventListener('abort', onAbort);
        this.question = null;
        resolve(v);
      };
      this.question = { resolve: settle };
      signal.addEventListener('abort', onAbort, { once: true });
      this.rl!.setPrompt(prompt);
      this.rl!.prompt();
      this.atLineStart = false;
    });
    this.atLineStart = true;
    return answer;
  }

  private showPrompt(): void {
    if (!this.rl || this.question) return;
    this.rl.setPrompt('> ');
    this.rl.prompt();
    this.atLineStart = false;
  }

  /** The REPL: resolves when the person leaves (the caller then ends the session). */
  run(runner: SessionRunner, banner: string): Promise<void> {
    this.write(`${banner}\n`);
    const rl = createInterface({ input: this.input, output: this.output, terminal: true, historySize: 200 });
    this.rl = rl;
    return new Promise<void>((done) => {
      this.leaving = () => {
        if (!this.leaving) return;
        this.leaving = null;
        this.question?.resolve(null);
        const r = this.rl;
        this.rl = null;
        r?.close();
        if (!this.atLineStart) this.write('\n');
        done();
      };
      rl.on('line', (raw) => {
        this.atLineStart = true;
        this.ctrlCArmed = false;
        if (this.question) return this.question.resolve(raw);
        const text = raw.trim();
        if (text === '/exit' || text === '/quit') return this.leaving?.();
        if (text === '') {
          if (this.outstanding === 0) this.showPrompt();
          return;
        }
        this.outstanding++;
        runner.submit(raw);
      });
      rl.on('SIGINT', () => {
        if (this.outstanding > 0 || runner.running) {
          this.ctrlCArmed = false;
          if (!this.atLineStart) this.write('\n');
          this.atLineStart = true;
          if (!runner.interrupt()) this.question?.resolve(null);
          return;
        }
        if (rl.line.length > 0) {
          // Clear the typed text (end of line, then delete to its start).
          rl.write(null, { ctrl: true, name: 'e' });
          rl.write(null, { ctrl: true, name: 'u' });
          this.ctrlCArmed = false;
          return;
        }
        if (this.ctrlCArmed) return this.leaving?.();
        this.ctrlCArmed = true;
        this.line(this.style.dim('(press Ctrl+C again to exit)'));
        this.showPrompt();
      });
      rl.on('close', () => this.leaving?.());
      this.showPrompt();
    });
  }
}
