// The model's thinking: dim, folded to its first line and a count of the rest (Ctrl+O shows it
// whole); while it streams, one dim line that says so.
import { Box, Text } from 'ink';
import { oneLine } from '../format.js';
import { useTheme } from '../theme.js';

export function ThinkingView({ text, full = false, live = false }: { text: string; full?: boolean; live?: boolean }) {
  const theme = useTheme();
  const lines = text.trim().split('\n');
  const rest = lines.length - 1;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text dimColor={theme.dim} italic={theme.color} wrap="truncate-end">
        ✻ {live ? 'Thinking…' : 'Thinking'}
        {full ? ' (in full)' : ''}
        {!full && !live && rest > 0 ? ` (+${rest} line${rest === 1 ? '' : 's'}, ctrl+o to expand)` : ''}
      </Text>
      {full ? (
        lines.map((l, i) => (
          <Text key={i} dimColor={theme.dim} italic={theme.color} wrap="wrap">
            {'  '}
            {l}
          </Text>
        ))
      ) : (
        <Text dimColor={theme.dim} italic={theme.color} wrap="truncate-end">
          {'  '}
          {oneLine(live ? (lines[lines.length - 1] ?? '') : lines[0], 400)}
        </Text>
      )}
    </Box>
  );
}
