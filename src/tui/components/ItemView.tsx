// One row of the transcript: the person's prompt, an answer, a tool call with its result, a note.
import { Box, Text } from 'ink';
import type { Item } from '../store.js';
import { useTheme } from '../theme.js';
import { ToolRow } from './ToolRow.js';

export function ItemView({ item }: { item: Item }) {
  const theme = useTheme();
  switch (item.kind) {
    case 'banner':
      return <Text dimColor={theme.dim}>{item.text}</Text>;
    case 'user':
      return (
        <Box marginTop={1}>
          <Text color={theme.paint('gray')}>{'> '}</Text>
          <Text>{item.text}</Text>
        </Box>
      );
    case 'text':
      return (
        <Box marginTop={1}>
          <Text color={item.error ? theme.paint('red') : undefined}>{item.text}</Text>
        </Box>
      );
    case 'tool':
      return <ToolRow item={item} />;
    case 'expanded':
      return <ToolRow item={item.tool} full />;
    case 'note':
      return (
        <Text
          color={item.tone === 'red' ? theme.paint('red') : undefined}
          dimColor={item.tone === 'dim' ? theme.dim : false}
        >
          {item.text}
        </Text>
      );
  }
}
