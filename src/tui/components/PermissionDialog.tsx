// A permission question: one key (y / a / n / f, or 1-4) or arrows and Enter. "Yes, always" shows
// the exact rule it adds; "No, and say what to do" takes a line of feedback the model reads.
import { Box, Text } from 'ink';
import { useKeys } from '../keys.js';
import type { AskHostAnswer, AskHostRequest } from '../../loop/toolPipeline.js';
import { EMPTY, editorKey } from '../editor.js';
import { callLabel, describeUpdates } from '../format.js';
import { useTheme } from '../theme.js';
import { useRefState } from '../useRefState.js';
import { PromptInput } from './PromptInput.js';

interface Choice {
  key: string;
  label: string;
  answer: (input: Record<string, unknown>) => AskHostAnswer | 'feedback';
}

export function permissionChoices(req: AskHostRequest): Choice[] {
  const suggestions = req.permission_suggestions ?? [];
  const choices: Choice[] = [
    { key: 'y', label: 'Yes', answer: (input) => ({ behavior: 'allow', updatedInput: input }) },
  ];
  if (suggestions.length)
    choices.push({
      key: 'a',
      label: `Yes, and always: ${describeUpdates(suggestions)}`,
      answer: (input) => ({ behavior: 'allow', updatedInput: input, updatedPermissions: suggestions }),
    });
  choices.push(
    {
      key: 'n',
      label: 'No',
      answer: () => ({ behavior: 'deny', message: `The user denied permission to use ${req.tool_name}.` }),
    },
    { key: 'f', label: 'No, and tell the agent what to do instead', answer: () => 'feedback' },
  );
  return choices;
}

export function PermissionDialog({
  req,
  onAnswer,
  children,
}: {
  req: AskHostRequest;
  onAnswer: (a: AskHostAnswer) => void;
  /** What the call would do (an Edit's diff), drawn above the choices. */
  children?: React.ReactNode;
}) {
  const theme = useTheme();
  const choices = permissionChoices(req);
  const [getSelected, setSelected] = useRefState(0);
  const [getFeedback, setFeedback] = useRefState<typeof EMPTY | null>(null);
  const input = (req.input && typeof req.input === 'object' ? req.input : {}) as Record<string, unknown>;

  const pick = (c: Choice) => {
    const a = c.answer(input);
    if (a === 'feedback') setFeedback(EMPTY);
    else onAnswer(a);
  };

  useKeys(
    (ch, key) => {
      const feedback = getFeedback();
      const selected = getSelected();
      if (feedback) {
        const r = editorKey(feedback, ch, key);
        if (r.submit !== undefined) {
          const said = r.submit.trim();
          onAnswer({
            behavior: 'deny',
            message: said
              ? `The user denied permission to use ${req.tool_name} and said: ${said}`
              : `The user denied permission to use ${req.tool_name}.`,
          });
        } else setFeedback(r.state);
        return;
      }
      if (key.upArrow) return setSelected((selected + choices.length - 1) % choices.length);
      if (key.downArrow || (key.tab && !key.shift)) return setSelected((selected + 1) % choices.length);
      if (key.return) return pick(choices[selected]);
      const lower = ch.toLowerCase();
      const byKey = choices.find((c) => c.key === lower);
      if (byKey) return pick(byKey);
      const n = Number(ch);
      if (Number.isInteger(n) && n >= 1 && n <= choices.length) pick(choices[n - 1]);
    },
    { singleKeys: true },
  );

  const feedback = getFeedback();
  const selected = getSelected();
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.paint('yellow')} paddingX={1} marginTop={1}>
      <Text bold>Allow {callLabel(req.tool_name, req.input)}?</Text>
      {req.decision_reason ? <Text dimColor={theme.dim}>{req.decision_reason}</Text> : null}
      {children}
      {feedback ? (
        <Box flexDirection="column">
          <Text>What should the agent do instead? (Enter sends)</Text>
          <PromptInput state={feedback} />
        </Box>
      ) : (
        choices.map((c, i) => (
          <Text key={c.key} color={i === selected ? theme.paint('cyan') : undefined} wrap="wrap">
            {i === selected ? '❯ ' : '  '}
            {i + 1}. {c.label} <Text dimColor={theme.dim}>({c.key})</Text>
          </Text>
        ))
      )}
    </Box>
  );
}
