// The menu under the prompt: slash commands while typing `/name`, files after `@`.
import { Box, Text } from 'ink';
import type { Suggestions } from '../prompt.js';
import { useTheme } from '../theme.js';

export function CompletionMenu({ s, selected }: { s: Suggestions; selected: number }) {
  const theme = useTheme();
  const i = Math.min(selected, s.items.length - 1);
  return (
    <Box flexDirection="column" paddingX={1}>
      {s.kind === 'slash'
        ? s.items.map((c, n) => (
            <Text key={c.name} wrap="truncate-end" color={n === i ? theme.paint('cyan') : undefined}>
              {n === i ? '❯ ' : '  '}/{c.name}
              {c.argumentHint ? ` ${c.argumentHint}` : ''}
              <Text dimColor={theme.dim}> {c.description}</Text>
            </Text>
          ))
        : s.items.map((f, n) => (
            <Text key={f} wrap="truncate-start" color={n === i ? theme.paint('cyan') : undefined}>
              {n === i ? '❯ ' : '  '}
              {f}
            </Text>
          ))}
      <Text dimColor={theme.dim}>
        ↑/↓ choose · tab complete · enter {s.kind === 'slash' ? 'run' : 'complete'} · esc close
      </Text>
    </Box>
  );
}
