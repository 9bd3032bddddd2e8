// AskUserQuestion: multiple-choice questions for the person. The tool itself asks no one: every
// call goes through the permission step as a question (can_use_tool to the host, a numbered
// choice at the terminal), and the answers come back in the input's `answers`.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError } from './tool.js';

/** The SDK's toolConfig.askUserQuestion, passed to us as environment variables. */
export interface AskUserQuestionConfig {
  /** What `preview` holds: Markdown/ASCII (the default) or self-contained HTML for web hosts. */
  previewFormat: 'markdown' | 'html';
  /** Options may come without a description. */
  optionalDescriptions: boolean;
}

export function askUserQuestionConfig(env: NodeJS.ProcessEnv): AskUserQuestionConfig {
  const fmt = env.CLAUDE_CODE_QUESTION_PREVIEW_FORMAT;
  if (fmt !== undefined && fmt !== 'markdown' && fmt !== 'html') {
    throw new Error(`CLAUDE_CODE_QUESTION_PREVIEW_FORMAT must be markdown or html, not ${JSON.stringify(fmt)}`);
  }
  return {
    previewFormat: fmt ?? 'markdown',
    optionalDescriptions: env.CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS === '1',
  };
}

function previewHelp(format: AskUserQuestionConfig['previewFormat']): string {
  return format === 'html'
    ? 'Optional preview shown when this option is focused: a self-contained HTML fragment (no scripts, no external resources) such as a mockup or a code sample.'
    : 'Optional preview shown when this option is focused, in a monospace box: Markdown or ASCII such as a mockup, a code snippet or a layout sketch.';
}

function description(cfg: AskUserQuestionConfig): string {
  return `Asks the user multiple-choice questions while you work: to clear up an ambiguous request, learn a preference, or choose between approaches.

Usage:
- 1 to 4 questions per call; each has a short header (max 12 characters), 2 to 4 distinct options, and multiSelect when several options may be chosen.
- Give each option a concise label (1-5 words)${cfg.optionalDescriptions ? '' : ' and a description of what it means'}. Do not add an "Other" option: the user can always type their own answer.
- If you recommend an option, put it first and end its label with "(Recommended)".
- ${previewHelp(cfg.previewFormat)}
- The result gives each answer keyed by its question; multi-select answers are comma-separated.
- Do not use it to ask for approval of a plan: in plan mode, ExitPlanMode does that.`;
}

export function askUserQuestionInputSchema(cfg: AskUserQuestionConfig) {
  const option = z.object({
    label: z.string().min(1).describe('The display text for this option (1-5 words).'),
    description: (cfg.optionalDescriptions ? z.string().optional() : z.string()).describe(
      'Explanation of what this option means or what will happen if chosen.',
    ),
    preview: z.string().optional().describe(previewHelp(cfg.previewFormat)),
  });
  const question = z.object({
    question: z.string().min(1).describe('The complete question, ending with a question mark.'),
    header: z.string().max(12).describe('Very short label displayed as a chip/tag (max 12 chars).'),
    options: z.array(option).min(2).max(4).describe('2-4 distinct choices; no "Other" (it is provided automatically).'),
    multiSelect: z.boolean().default(false).describe('Allow the user to choose more than one option.'),
  });
  return z.object({
    questions: z.array(question).min(1).max(4).describe('Questions to ask the user (1-4 questions)'),
    answers: z
      .record(z.string(), z.string())
      .optional()
      .describe('Filled in by the user interface with the answers; leave it out.'),
    annotations: z
      .record(z.string(), z.object({ preview: z.string().optional(), notes: z.string().optional() }).loose())
      .optional()
      .describe('Filled in by the user interface; leave it out.'),
    metadata: z
      .object({ source: z.string().optional() })
      .loose()
      .optional()
      .describe('Optional metadata for tracking; not shown to the user.'),
  });
}

export type AskUserQuestionInput = z.infer<ReturnType<typeof askUserQuestionInputSchema>>;

/** The SDK's AskUserQuestionOutput. */
export interface AskUserQuestionOutput {
  questions: AskUserQuestionInput['questions'];
  answers: Record<string, string>;
  annotations?: AskUserQuestionInput['annotations'];
}

/** One tool per configuration: its zod schema is made once (the start-up snapshot holds the default's). */
const made = new Map<string, ReturnType<typeof makeAskUserQuestionTool>>();

export function createAskUserQuestionTool(cfg: AskUserQuestionConfig) {
  const key = `${cfg.previewFormat}:${cfg.optionalDescriptions}`;
  let tool = made.get(key);
  if (!tool) {
    tool = makeAskUserQuestionTool(cfg);
    made.set(key, tool);
  }
  return tool;
}

function makeAskUserQuestionTool(cfg: AskUserQuestionConfig) {
  return defineTool({
    name: 'AskUserQuestion',
    description: description(cfg),
    inputSchema: lazySchema(() => askUserQuestionInputSchema(cfg)),
    requiresUserInteraction: true,
    isReadOnly: () => true,
    isConcurrencySafe: () => false,
    kind: 'think',
    async *call(input) {
      const answers = input.answers ?? {};
      const answered = input.questions.filter((q) => answers[q.question] !== undefined);
      if (answered.length === 0) {
        throw new ToolError(
          'The user gave no answers to your questions. Go on with your best judgement and say what you assumed.',
        );
      }
      const parts = input.questions.map((q) =>
        answers[q.question] !== undefined
          ? `"${q.question}"="${answers[q.question]}"`
          : `"${q.question}" (not answered)`,
      );
      const notes = Object.entries(input.annotations ?? {})
        .filter(([, a]) => a.notes)
        .map(([q, a]) => `\nNotes on "${q}": ${a.notes}`)
        .join('');
      const data: AskUserQuestionOutput = {
        questions: input.questions,
        answers,
        ...(input.annotations ? { annotations: input.annotations } : {}),
      };
      return {
        content: `User has answered your questions: ${parts.join(', ')}.${notes} You can now continue with the user's answers in mind.`,
        data,
      };
    },
  });
}
