// An answer's Markdown drawn for the terminal: marked's lexer gives the tokens, drawn here as Ink
// elements: headings bold (level 1 underlined), lists with bullets or numbers and task boxes, code
// blocks syntax-highlighted (./highlight.ts), quotes behind a bar, tables with aligned columns,
// inline bold, italic, code, links (text and address). Colour goes through the theme (NO_COLOR).
import { Box, Text } from 'ink';
import type { Token, Tokens } from 'marked';
import { type ReactNode, useEffect, useMemo, useSyncExternalStore } from 'react';
import { type Theme, useTheme } from '../theme.js';
import { highlight, highlighterSettled, loadHighlighter, onHighlighter, type Segment } from './highlight.js';
import { lex, lexerSettled, loadLexer, onLexer } from './lexer.js';

/** highlight.js classes → colours. */
const CODE_COLOURS: Record<string, string> = {
  keyword: 'magenta',
  built_in: 'cyan',
  type: 'cyan',
  literal: 'yellow',
  number: 'yellow',
  string: 'green',
  regexp: 'red',
  subst: 'white',
  symbol: 'yellow',
  title: 'blue',
  'title.function': 'blue',
  'title.class': 'cyan',
  function: 'blue',
  params: 'white',
  attr: 'yellow',
  attribute: 'yellow',
  variable: 'red',
  'template-variable': 'red',
  tag: 'blue',
  name: 'blue',
  selector: 'magenta',
  'selector-tag': 'magenta',
  property: 'cyan',
  meta: 'gray',
  comment: 'gray',
  doctag: 'gray',
  addition: 'green',
  deletion: 'red',
  section: 'blue',
  bullet: 'yellow',
  link: 'blue',
};

export function Markdown({ text }: { text: string }) {
  // Drawn again once marked has loaded (plain text until then).
  const ready = useSyncExternalStore(onLexer, lexerSettled);
  useEffect(() => {
    if (!ready) void loadLexer();
  }, [ready]);
  const tokens = useMemo(() => (ready ? lex(text) : undefined), [text, ready]);
  if (!tokens) return <Text>{text}</Text>;
  const blocks = tokens.filter((t) => t.type !== 'space' && t.type !== 'def');
  return (
    <Box flexDirection="column">
      {blocks.map((t, i) => (
        <Box key={i} marginTop={i > 0 ? 1 : 0} flexDirection="column">
          <Block token={t} />
        </Box>
      ))}
    </Box>
  );
}

function Block({ token }: { token: Token }): ReactNode {
  const theme = useTheme();
  switch (token.type) {
    case 'heading': {
      const t = token as Tokens.Heading;
      return (
        <Text bold underline={t.depth === 1 && theme.color} color={theme.paint(t.depth <= 2 ? 'cyan' : 'white')}>
          {inline(t.tokens, theme)}
        </Text>
      );
    }
    case 'paragraph':
      return <Text>{inline((token as Tokens.Paragraph).tokens, theme)}</Text>;
    case 'text':
      return <Text>{(token as Tokens.Text).tokens ? inline((token as Tokens.Text).tokens!, theme) : token.raw}</Text>;
    case 'code':
      return <CodeBlock code={(token as Tokens.Code).text} lang={(token as Tokens.Code).lang} />;
    case 'list':
      return <List list={token as Tokens.List} />;
    case 'blockquote':
      return (
        <Box>
          <Box flexShrink={0} width={2}>
            <Text color={theme.paint('gray')}>▎</Text>
          </Box>
          <Box flexDirection="column">
            {(token as Tokens.Blockquote).tokens
              .filter((t) => t.type !== 'space')
              .map((t, i) => (
                <Text key={i} italic={theme.color} dimColor={theme.dim}>
                  {'tokens' in t && t.tokens ? inline(t.tokens, theme) : t.raw.trim()}
                </Text>
              ))}
          </Box>
        </Box>
      );
    case 'hr':
      return <Text dimColor={theme.dim}>{'─'.repeat(40)}</Text>;
    case 'table':
      return <Table table={token as Tokens.Table} />;
    default:
      return <Text>{token.raw.replace(/\n+$/, '')}</Text>;
  }
}

function List({ list, depth = 0 }: { list: Tokens.List; depth?: number }) {
  const theme = useTheme();
  const start = typeof list.start === 'number' ? list.start : 1;
  return (
    <Box flexDirection="column">
      {list.items.map((item, i) => {
        const marker = item.task ? (item.checked ? '☒' : '☐') : list.ordered ? `${start + i}.` : depth % 2 ? '◦' : '•';
        return (
          <Box key={i}>
            <Box flexShrink={0} width={marker.length + 1}>
              <Text color={theme.paint(item.task && item.checked ? 'green' : 'gray')}>{marker}</Text>
            </Box>
            <Box flexDirection="column" flexGrow={1}>
              {item.tokens
                .filter((t) => t.type !== 'space' && t.type !== 'checkbox')
                .map((t, j) =>
                  t.type === 'list' ? (
                    <List key={j} list={t as Tokens.List} depth={depth + 1} />
                  ) : t.type === 'code' ? (
                    <CodeBlock key={j} code={(t as Tokens.Code).text} lang={(t as Tokens.Code).lang} />
                  ) : (
                    <Text key={j}>{'tokens' in t && t.tokens ? inline(t.tokens, theme) : t.raw.trim()}</Text>
                  ),
                )}
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}

function CodeBlock({ code, lang }: { code: string; lang?: string }) {
  const theme = useTheme();
  const ready = useSyncExternalStore(onHighlighter, highlighterSettled);
  useEffect(() => {
    if (lang && theme.color) void loadHighlighter();
  }, [lang, theme.color]);
  const lines =
    (ready && theme.color ? highlight(code, lang) : undefined) ?? code.split('\n').map((l) => [{ text: l }]);
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {lang ? <Text dimColor={theme.dim}>{lang}</Text> : null}
      {lines.map((segs, i) => (
        <Text key={i} wrap="wrap">
          {segs.length ? segs.map((s, j) => <CodeSpan key={j} seg={s} theme={theme} />) : ' '}
        </Text>
      ))}
    </Box>
  );
}

function CodeSpan({ seg, theme }: { seg: Segment; theme: Theme }) {
  const colour = seg.cls ? (CODE_COLOURS[seg.cls] ?? CODE_COLOURS[seg.cls.split('.')[0]]) : undefined;
  if (!colour) return <Text>{seg.text}</Text>;
  return (
    <Text color={theme.paint(colour)} dimColor={seg.cls === 'comment' && theme.dim}>
      {seg.text}
    </Text>
  );
}

function Table({ table }: { table: Tokens.Table }) {
  const theme = useTheme();
  const plain = (c: Tokens.TableCell) => plainText(c.tokens);
  const widths = table.header.map((h, i) =>
    Math.max(plain(h).length, ...table.rows.map((r) => plain(r[i] ?? h).length)),
  );
  const pad = (s: string, i: number) => {
    const w = widths[i];
    const gap = Math.max(0, w - s.length);
    if (table.align[i] === 'right') return ' '.repeat(gap) + s;
    if (table.align[i] === 'center') return ' '.repeat(Math.floor(gap / 2)) + s + ' '.repeat(Math.ceil(gap / 2));
    return s + ' '.repeat(gap);
  };
  const row = (cells: Tokens.TableCell[]) => cells.map((c, i) => pad(plain(c), i)).join(' │ ');
  return (
    <Box flexDirection="column">
      <Text bold>{row(table.header)}</Text>
      <Text dimColor={theme.dim}>{widths.map((w) => '─'.repeat(w)).join('─┼─')}</Text>
      {table.rows.map((r, i) => (
        <Text key={i}>{row(r)}</Text>
      ))}
    </Box>
  );
}

/** The visible text of inline tokens (table cells are measured on it). */
function plainText(tokens: Token[]): string {
  return tokens
    .map((t) => {
      if (t.type === 'link') return `${plainText((t as Tokens.Link).tokens)}`;
      if ('tokens' in t && t.tokens) return plainText(t.tokens);
      if (t.type === 'codespan' || t.type === 'text' || t.type === 'escape') return decode((t as Tokens.Text).text);
      return t.raw;
    })
    .join('');
}

/** The lexer leaves entities such as &amp; in text; the terminal shows the characters. */
function decode(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

function inline(tokens: Token[], theme: Theme): ReactNode[] {
  return tokens.map((t, i) => {
    switch (t.type) {
      case 'checkbox': // a task item's box: drawn as its marker
        return null;
      case 'strong':
        return (
          <Text key={i} bold>
            {inline((t as Tokens.Strong).tokens, theme)}
          </Text>
        );
      case 'em':
        return (
          <Text key={i} italic>
            {inline((t as Tokens.Em).tokens, theme)}
          </Text>
        );
      case 'del':
        return (
          <Text key={i} strikethrough={theme.color}>
            {inline((t as Tokens.Del).tokens, theme)}
          </Text>
        );
      case 'codespan':
        return (
          <Text key={i} color={theme.paint('cyan')}>
            {theme.color ? decode((t as Tokens.Codespan).text) : `\`${decode((t as Tokens.Codespan).text)}\``}
          </Text>
        );
      case 'link': {
        const l = t as Tokens.Link;
        const label = plainText(l.tokens);
        return (
          <Text key={i} color={theme.paint('blue')} underline={theme.color}>
            {label}
            {label !== l.href && l.href !== `mailto:${label}` ? ` (${l.href})` : ''}
          </Text>
        );
      }
      case 'image':
        return <Text key={i}>[image: {(t as Tokens.Image).text || (t as Tokens.Image).href}]</Text>;
      case 'br':
        return <Text key={i}>{'\n'}</Text>;
      case 'text':
      case 'escape': {
        const tt = t as Tokens.Text;
        return tt.tokens ? <Text key={i}>{inline(tt.tokens, theme)}</Text> : <Text key={i}>{decode(tt.text)}</Text>;
      }
      default:
        return <Text key={i}>{t.raw}</Text>;
    }
  });
}
