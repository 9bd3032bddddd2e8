import { describe, expect, it } from 'vitest';
import { forkForSuggestion, suggestionFrom, suggestionsWanted } from '../../../src/session/promptSuggestion.js';

describe('prompt suggestions', () => {
  it('are on only when asked; the env variable wins over the setting', () => {
    expect(suggestionsWanted(false, true, {})).toBe(false);
    expect(suggestionsWanted(true, undefined, {})).toBe(true);
    expect(suggestionsWanted(true, false, {})).toBe(false);
    expect(suggestionsWanted(true, false, { CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: 'true' })).toBe(true);
    expect(suggestionsWanted(true, true, { CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: 'false' })).toBe(false);
    expect(suggestionsWanted(true, true, { CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: '0' })).toBe(false);
  });

  it('take the first line of the reply, unquoted and bounded; NONE or nothing is no suggestion', () => {
    expect(suggestionFrom('"Run the tests"\nbecause…')).toBe('Run the tests');
    expect(suggestionFrom('NONE')).toBeUndefined();
    expect(suggestionFrom('  ')).toBeUndefined();
    expect(suggestionFrom('x'.repeat(500))?.length).toBe(200);
  });

  it('fork the conversation with the question as the next user turn, leaving the history as it was', () => {
    const history = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ] as never[];
    const fork = forkForSuggestion(history);
    expect(fork.slice(0, 2)).toEqual(history);
    expect(fork.length).toBe(3);
    expect(JSON.stringify(fork[2])).toContain('Guess the next message');
    expect(history.length).toBe(2);
  });
});
