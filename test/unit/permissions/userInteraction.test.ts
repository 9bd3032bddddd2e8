// Tools that ask the person (AskUserQuestion, ExitPlanMode) are always asked, whatever the mode
// or the rules; plan mode comes and goes through the one permission state.
import { describe, expect, it } from 'vitest';
import { decidePermission } from '../../../src/permissions/index.js';
import { createPlanModeService } from '../../../src/session/planMode.js';
import { ExitPlanModeTool } from '../../../tools/planMode.js';
import { createAskUserQuestionTool } from '../../../tools/askUserQuestion.js';
import { state, tmpDir, Write } from './helpers.js';
import { callFacts } from '../../../tools/toolCall.js';

const cwd = tmpDir();
const Ask = createAskUserQuestionTool({ previewFormat: 'markdown', optionalDescriptions: false });
const q = {
  questions: [
    {
      question: 'Which?',
      header: 'Pick',
      options: [
        { label: 'a', description: 'A' },
        { label: 'b', description: 'B' },
      ],
      multiSelect: false,
    },
  ],
};

describe('tools that ask the user', () => {
  it('ask in every mode that asks, even bypassPermissions and under an allow rule; no "always" suggestion', () => {
    for (const mode of ['default', 'acceptEdits', 'plan', 'bypassPermissions'] as const) {
      const s = state({ cwd, mode, allow: ['AskUserQuestion'], allowBypass: true });
      const d = decidePermission(s, { call: callFacts(Ask, 'AskUserQuestion', q) });
      expect(d.behavior, mode).toBe('ask');
      expect(d.behavior === 'ask' && d.userInteraction).toBe(true);
      expect(d.behavior === 'ask' && d.suggestions).toEqual([]);
    }
  });

  it('dontAsk refuses with a message the model can act on; a deny rule still wins', () => {
    let d = decidePermission(state({ cwd, mode: 'dontAsk' }), { call: callFacts(Ask, 'AskUserQuestion', q) });
    expect(d.behavior === 'deny' && d.message).toContain('dontAsk mode, where no one is asked');
    d = decidePermission(state({ cwd, deny: ['AskUserQuestion'] }), { call: callFacts(Ask, 'AskUserQuestion', q) });
    expect(d.behavior === 'deny' && d.message).toContain('denied by the rule AskUserQuestion');
  });

  it('ExitPlanMode outside plan mode is refused without asking', () => {
    const d = decidePermission(state({ cwd }), { call: callFacts(ExitPlanModeTool, 'ExitPlanMode', { plan: 'p' }) });
    expect(d.behavior === 'deny' && d.message).toContain('not in plan mode');
    const p = decidePermission(state({ cwd, mode: 'plan' }), {
      call: callFacts(ExitPlanModeTool, 'ExitPlanMode', { plan: 'p' }),
    });
    expect(p.behavior).toBe('ask');
  });
});

describe('plan mode service', () => {
  it('enter remembers the mode it came from; exit returns to it, unless the answer chose another', () => {
    const s = state({ cwd, mode: 'acceptEdits' });
    const plan = createPlanModeService(s, () => 'Write the plan as a numbered list.');
    plan.enter();
    expect(s.mode).toBe('plan');
    expect(decidePermission(s, { call: callFacts(Write, 'Write', { file_path: 'a', content: '' }) }).behavior).toBe(
      'ask',
    ); // acceptEdits no longer allows it: whoever can answer is asked
    expect(plan.exit()).toBe('acceptEdits');
    s.setMode('plan');
    s.setMode('default'); // the host's setMode in its approval
    expect(plan.exit()).toBe('default');
    expect(plan.reminder()).toContain('Write the plan as a numbered list.');
    expect(plan.reminder()).toContain('Plan mode is active');
    expect(plan.reminder()).toContain('call ExitPlanMode');
  });

  it('a session started in plan mode leaves it to default', () => {
    const s = state({ cwd, mode: 'plan' });
    const plan = createPlanModeService(s, () => undefined);
    expect(plan.exit()).toBe('default');
    expect(plan.reminder()).toContain('read-only tools');
  });
});
