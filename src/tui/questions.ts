// What the terminal shows for the tools that ask the person something, and how it reads the
// answers: AskUserQuestion as numbered choices, ExitPlanMode as the plan and a yes/no.
import type { AskHostAnswer } from '../loop/toolPipeline.js';

export interface QuestionOption {
  label: string;
  description?: string;
}
export interface Question {
  question: string;
  header: string;
  options: QuestionOption[];
  multiSelect?: boolean;
}

/** The lines that present one question: header, question, numbered options, the free-text choice. */
export function questionLines(q: Question): string[] {
  const lines = [`[${q.header}] ${q.question}`];
  q.options.forEach((o, i) => lines.push(`  ${i + 1}. ${o.label}${o.description ? ` — ${o.description}` : ''}`));
  lines.push(`  ${q.options.length + 1}. Other (type your own answer)`);
  return lines;
}

export function questionPrompt(q: Question): string {
  const n = q.options.length + 1;
  return q.multiSelect
    ? `Choose one or more (e.g. 1,3), 1-${n}, or type an answer: `
    : `Choose 1-${n}, or type an answer: `;
}

/**
 * A typed line as the answer to one question: option numbers become their labels (several,
 * comma-separated, when multiSelect), "Other" or any text that is not a number is the answer as
 * typed. undefined: not an answer (empty, or a number out of range) — ask again.
 */
export function parseChoice(line: string, q: Question): string | undefined {
  const t = line.trim();
  if (t === '') return undefined;
  const nums = t.split(/[\s,]+/).filter(Boolean);
  if (!nums.every((n) => /^\d+$/.test(n))) return t;
  if (nums.length > 1 && !q.multiSelect) return undefined;
  const picked: string[] = [];
  for (const n of nums) {
    const i = Number(n) - 1;
    if (i < 0 || i > q.options.length) return undefined;
    if (i === q.options.length) return undefined; // "Other" needs the text itself
    if (!picked.includes(q.options[i].label)) picked.push(q.options[i].label);
  }
  return picked.join(', ');
}

/** The host-style answer for AskUserQuestion once every question is answered. */
export function questionsAnswer(input: Record<string, unknown>, answers: Record<string, string>): AskHostAnswer {
  return { behavior: 'allow', updatedInput: { ...input, answers } };
}

export function planLines(plan: string): string[] {
  return ['Plan for approval:', ...plan.split('\n').map((l) => `  ${l}`)];
}

/** y: approve (back to the mode before plan mode), a: approve and accept edits, n: keep planning. */
export function planAnswer(line: string): AskHostAnswer | undefined {
  const a = line.trim().toLowerCase();
  if (a === 'y' || a === 'yes') return { behavior: 'allow' };
  if (a === 'a' || a === 'accept')
    return {
      behavior: 'allow',
      updatedPermissions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
    };
  if (a === 'n' || a === 'no')
    return {
      behavior: 'deny',
      message: 'The user did not approve the plan. Stay in plan mode, ask what they want changed, and revise the plan.',
    };
  return undefined;
}
