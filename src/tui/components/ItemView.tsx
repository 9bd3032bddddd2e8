// One row of the transcript: the person's prompt, an answer, a tool call with its result, a note.
import { Box, Text } from 'ink';
import type { Item } from '../store.js';
import { Markdown } from '../markdown/Markdown.js';
import { useTheme } from '../theme.js';
import { ThinkingView } from './ThinkingView.js';
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
          {item.error ? <Text color={theme.paint('red')}>{item.text}</Text> : <Markdown text={item.text} />}
        </Box>
      );
    case 'tool':
      return <ToolRow item={item} />;
    case 'expanded':
      return item.tool.kind === 'thinking' ? (
        <ThinkingView text={item.tool.text} full />
      ) : (
        <ToolRow item={item.tool} full />
      );
    case 'thinking':
      return <ThinkingView text={item.text} />;
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
