// The agent's todo list as a checklist, kept in the live area and redrawn in place as it changes.
import { Box, Text } from 'ink';
import type { TodoRow } from '../store.js';
import { useTheme } from '../theme.js';

export function TodoList({ todos }: { todos: TodoRow[] }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>Todos</Text>
      {todos.map((t, i) => (
        <Text
          key={i}
          wrap="truncate-end"
          color={t.status === 'in_progress' ? theme.paint('cyan') : undefined}
          dimColor={t.status === 'completed' ? theme.dim : false}
          strikethrough={t.status === 'completed' && theme.color}
        >
          {t.status === 'completed' ? '☒' : '☐'} {t.status === 'in_progress' ? t.activeForm : t.content}
        </Text>
      ))}
    </Box>
  );
}
