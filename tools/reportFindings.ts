// ReportFindings: a code review's findings as typed data, for a host that draws them (the SDK's
// ReportFindingsInput/Output). The tool only checks and echoes them: the host reads the call's
// input and its tool_use_result; the model reads a one-line receipt.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool } from './tool.js';

const findingSchema = lazySchema(() =>
  z.strictObject({
    file: z.string().describe('The file, relative to the repository root.'),
    line: z.number().int().optional().describe('The 1-based line the finding points at.'),
    summary: z.string().describe('What is wrong, stated plainly.'),
    short_summary: z
      .string()
      .max(60)
      .optional()
      .describe('The claim alone in at most 60 characters, for compact views; no reason or consequence.'),
    failure_scenario: z.string().describe('The concrete input or state, and the wrong output or crash it leads to.'),
    category: z
      .string()
      .max(40)
      .optional()
      .describe('A short kebab-case kind of finding: "correctness", "efficiency", "test-coverage", "simplification"…'),
    severity: z
      .enum(['important', 'pre_existing', 'nit'])
      .optional()
      .describe(
        'Only when the review instructions ask for it. important: a bug this change adds or worsens; pre_existing: a bug that was already there; nit: minor.',
      ),
    verdict: z
      .enum(['CONFIRMED', 'PLAUSIBLE'])
      .optional()
      .describe('Only after a verification pass: whether it was confirmed or remains plausible.'),
    outcome: z
      .enum(['fixed', 'skipped', 'no_change_needed'])
      .optional()
      .describe('Only when reporting again after applying fixes: what became of this finding.'),
  }),
);

export const reportFindingsInputSchema = lazySchema(() =>
  z.strictObject({
    level: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).optional().describe('The effort level the review ran at.'),
    findings: z
      .array(findingSchema)
      .max(32)
      .describe('The findings that held up, most severe first; an empty array when none did.'),
  }),
);

export const ReportFindingsTool = defineTool({
  name: 'ReportFindings',
  description: `Hand the results of a code review to the host as structured findings, which its interface shows as a list. Use it only when the review instructions you are following say to report with this tool; otherwise report in whatever form those instructions give.

Call it once, at the end of the review, with every finding that survived checking, most severe first (an empty list if none did), and do not repeat the findings as text. If the instructions ask you to report again after applying fixes, call it again with each finding's outcome set to what actually happened.`,
  inputSchema: reportFindingsInputSchema,
  kind: 'think',
  // It changes nothing: the findings are data for the host.
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  label: (input) => `Report ${input.findings.length} finding(s)`,
  async *call(input) {
    const n = input.findings.length;
    return {
      content: n === 0 ? 'No findings reported.' : `${n} finding${n === 1 ? '' : 's'} reported.`,
      data: { count: n, ...(input.level ? { level: input.level } : {}), findings: input.findings },
    };
  },
});
