// AskUserQuestion (numbered choices, or a typed answer) and ExitPlanMode (the plan, then y / a / n)
// as dialogs. How answers are read is ../questions.ts.
import { Box, Text } from 'ink';
import { useKeys } from '../keys.js';
import type { AskHostAnswer } from '../../loop/toolPipeline.js';
import {
  parseChoice,
  planAnswer,
  planLines,
  type Question,
  questionLines,
  questionPrompt,
  questionsAnswer,
} from '../questions.js';
import { EMPTY, editorKey } from '../editor.js';
import { useTheme } from '../theme.js';
import { useRefState } from '../useRefState.js';
import { PromptInput } from './PromptInput.js';

export function QuestionsDialog({
  input,
  onAnswer,
}: {
  input: Record<string, unknown>;
  onAnswer: (a: AskHostAnswer) => void;
}) {
  const theme = useTheme();
  const questions = input.questions as Question[];
  const [getIndex, setIndex] = useRefState(0);
  const [getAnswers, setAnswers] = useRefState<Record<string, string>>({});
  const [getEditor, setEditor] = useRefState(EMPTY);
  const [getInvalid, setInvalid] = useRefState(false);

  useKeys(
    (ch, key) => {
      const index = getIndex();
      const q = questions[index];
      const r = editorKey(getEditor(), ch, key);
      if (r.submit === undefined) return setEditor(r.state);
      setEditor(EMPTY);
      const answer = parseChoice(r.submit, q);
      if (answer === undefined) return setInvalid(true);
      setInvalid(false);
      const next = { ...getAnswers(), [q.question]: answer };
      if (index + 1 < questions.length) {
        setAnswers(next);
        setIndex(index + 1);
      } else onAnswer(questionsAnswer(input, next));
    },
    { singleKeys: true },
  );

  const q = questions[getIndex()];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.paint('cyan')} paddingX={1} marginTop={1}>
      {questionLines(q).map((l, i) => (
        <Text key={i} bold={i === 0} wrap="wrap">
          {l}
        </Text>
      ))}
      {getInvalid() ? <Text color={theme.paint('red')}>Not one of the choices.</Text> : null}
      <Text>{questionPrompt(q)}</Text>
      <PromptInput state={getEditor()} />
    </Box>
  );
}

export function PlanDialog({
  input,
  onAnswer,
}: {
  input: Record<string, unknown>;
  onAnswer: (a: AskHostAnswer) => void;
}) {
  const theme = useTheme();
  useKeys(
    (ch) => {
      const a = planAnswer(ch);
      if (a) onAnswer(a.behavior === 'allow' ? { ...a, updatedInput: input } : a);
    },
    { singleKeys: true },
  );
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.paint('cyan')} paddingX={1} marginTop={1}>
      {planLines(String(input.plan)).map((l, i) => (
        <Text key={i} wrap="wrap">
          {l}
        </Text>
      ))}
      <Text bold>Approve this plan and leave plan mode?</Text>
      <Text>(y) yes · (a) yes, and accept edits · (n) no, keep planning</Text>
    </Box>
  );
}
